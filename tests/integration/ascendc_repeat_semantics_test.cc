// The mask and repeat forms of the emulated vector instructions, the mask register, Compare,
// Select, Brcb, Gather, GatherMask and RepeatReduceSum, checked from inside a kernel against
// values worked out by hand from the documented lane model (cannbot_ascendc_repeat.h), and the
// rules they enforce; kernel printing, TQueBind and static tensors (cannbot_ascendc_debug.h).
#include <string>

#include <gtest/gtest.h>

#include "integration/ascendc_support.h"

namespace cannbot::ascendc {
namespace {

constexpr const char* kRepeatProgram = R"(
#include "cannbot_launch.h"
#include "cannbot_host_tiling.h"
using namespace AscendC;

struct Bufs {
  TPipe pipe;
  TBuf<TPosition::VECCALC> ab, bb, db, hb, mb;
  LocalTensor<float> a, b, d;
  LocalTensor<half> h;
  LocalTensor<uint8_t> m;
  Bufs() {
    pipe.InitBuffer(ab, 256 * 4);
    pipe.InitBuffer(bb, 256 * 4);
    pipe.InitBuffer(db, 256 * 4);
    pipe.InitBuffer(hb, 256 * 2);
    pipe.InitBuffer(mb, 64);
    a = ab.Get<float>();
    b = bb.Get<float>();
    d = db.Get<float>();
    h = hb.Get<half>();
    m = mb.Get<uint8_t>();
    for (int i = 0; i < 256; ++i) {
      a.SetValue(i, static_cast<float>(i));
      b.SetValue(i, 100.0f);
    }
  }
  void Clear(float v) { Duplicate(d, v, 256); }
};

static void Lanes() {
  Bufs t;
  TBuf<TPosition::VECCALC> never;
  (void)never.Get<float>();  // never used: no violation
  // Continuous mask 10, two repeats: lanes 0..9 of each 64-float repeat.
  t.Clear(-1.0f);
  Add(t.d, t.a, t.b, 10, 2, BinaryRepeatParams(1, 1, 1, 8, 8, 8));
  CHECK(t.d.GetValue(9) == 109.0f && t.d.GetValue(10) == -1.0f);
  CHECK(t.d.GetValue(64) == 164.0f && t.d.GetValue(73) == 173.0f && t.d.GetValue(74) == -1.0f);
  CHECK(t.d.GetValue(128) == -1.0f);

  // Bit mask: lanes 0 and 2 only.
  t.Clear(-1.0f);
  uint64_t bits[2] = {0x5, 0};
  Sub(t.d, t.a, t.b, bits, 1, BinaryRepeatParams());
  CHECK(t.d.GetValue(0) == -100.0f && t.d.GetValue(1) == -1.0f && t.d.GetValue(2) == -98.0f);

  // Source block stride 2: lanes 8..15 read the third block (elements 16..23).
  t.Clear(-1.0f);
  Muls(t.d, t.a, 2.0f, 16, 1, UnaryRepeatParams(1, 2, 8, 8));
  CHECK(t.d.GetValue(7) == 14.0f && t.d.GetValue(8) == 32.0f && t.d.GetValue(15) == 46.0f);

  // Repeat stride 0 on the destination: the last repeat wins.
  t.Clear(-1.0f);
  Adds(t.d, t.a, 1.0f, 64, 3, UnaryRepeatParams(1, 1, 0, 8));
  CHECK(t.d.GetValue(0) == 129.0f && t.d.GetValue(63) == 192.0f && t.d.GetValue(64) == -1.0f);

  // Counter mode: 100 elements whatever repeatTimes says.
  t.Clear(-1.0f);
  SetMaskCount();
  SetVectorMask<float, MaskMode::COUNTER>(0, 100);
  Add<float, false>(t.d, t.a, t.b, MASK_PLACEHOLDER, 1, BinaryRepeatParams());
  SetMaskNorm();
  ResetMask();
  CHECK(t.d.GetValue(99) == 199.0f && t.d.GetValue(100) == -1.0f);

  // isSetMask = false in normal mode reads the register.
  t.Clear(-1.0f);
  SetVectorMask<float>(0, 0x3);
  Exp<float, false>(t.d, t.a, MASK_PLACEHOLDER, 1, UnaryRepeatParams());
  CHECK(t.d.GetValue(0) == 1.0f && t.d.GetValue(2) == -1.0f);
  // ... and a masked call leaves its own mask there.
  Relu(t.d, t.a, 4, 1, UnaryRepeatParams());
  t.Clear(-1.0f);
  Abs<float, false>(t.d, t.a, MASK_PLACEHOLDER, 1, UnaryRepeatParams());
  CHECK(t.d.GetValue(3) == 3.0f && t.d.GetValue(4) == -1.0f);
  ResetMask();

  // half: 128 lanes per repeat, mask[1] covers lanes 64..127.
  Duplicate(t.h, half(0.0f), 256);
  uint64_t high[2] = {0, 1ull << 63};
  Adds(t.h, t.h, half(5.0f), high, 1, UnaryRepeatParams());
  CHECK(static_cast<float>(t.h.GetValue(127)) == 5.0f &&
        static_cast<float>(t.h.GetValue(126)) == 0.0f);

  // Cast half -> float: 64 lanes (256 bytes of float), the half source advances 4 blocks.
  for (int i = 0; i < 128; ++i) t.h.SetValue(i, half(static_cast<float>(i)));
  t.Clear(-1.0f);
  Cast(t.d, t.h, RoundMode::CAST_NONE, 64, 2, UnaryRepeatParams(1, 1, 8, 4));
  CHECK(t.d.GetValue(63) == 63.0f && t.d.GetValue(127) == 127.0f);

  // WholeReduceSum reads the mask register with isSetMask = false: 4 lanes, then counter mode
  // with 100 elements (a full repeat of 64 and a partial one of 36, whatever repeatTime says).
  SetVectorMask<float>(0, 0xF);
  WholeReduceSum<float, false>(t.d, t.a, MASK_PLACEHOLDER, 2, 1, 1, 8);
  CHECK(t.d.GetValue(0) == 6.0f && t.d.GetValue(1) == 64.0f + 65.0f + 66.0f + 67.0f);
  SetMaskCount();
  SetVectorMask<float, MaskMode::COUNTER>(0, 100);
  WholeReduceSum<float, false>(t.d, t.a, MASK_PLACEHOLDER, 1, 1, 1, 8);
  CHECK(t.d.GetValue(0) == 2016.0f && t.d.GetValue(1) == 2934.0f);  // 0..63, 64..99
  SetMaskNorm();
  ResetMask();

  // Duplicate with a repeat stride of 16 blocks.
  t.Clear(-1.0f);
  Duplicate(t.d, 7.0f, 8, 2, 1, 16);
  CHECK(t.d.GetValue(7) == 7.0f && t.d.GetValue(8) == -1.0f && t.d.GetValue(128) == 7.0f);
}

static void Selection() {
  Bufs t;
  // Compare: a < 5 over 64 floats sets bits 0..4.
  Duplicate(t.m.ReinterpretCast<float>(), 0.0f, 16);
  Duplicate(t.b, 5.0f, 64);
  Compare(t.m, t.a, t.b, CMPMODE::LT, 64);
  CHECK(t.m.GetValue(0) == 0x1F && t.m.GetValue(1) == 0);
  CompareScalar(t.m, t.a, 60.0f, CMPMODE::GE, 64);
  CHECK(t.m.GetValue(7) == 0xF0 && t.m.GetValue(0) == 0);
  // NaN: only NE holds.
  t.d.SetValue(0, NAN);
  CompareScalar(t.m, t.d, 1.0f, CMPMODE::NE, 64);
  CHECK((t.m.GetValue(0) & 1) == 1);
  CompareScalar(t.m, t.d, 1.0f, CMPMODE::EQ, 64);
  CHECK((t.m.GetValue(0) & 1) == 0);
  // Compare in repeat form: repeat r's bits start at r * 64.
  Compare(t.m, t.a, t.b, CMPMODE::GT, 64, 2, BinaryRepeatParams());
  CHECK(t.m.GetValue(0) == 0xC0 && t.m.GetValue(8) == 0 && t.m.GetValue(15) == 0xFF);

  // Select, two tensors, bits consumed continuously: a where a < 5, else 100.
  Duplicate(t.b, 100.0f, 256);
  CompareScalar(t.m, t.a, 5.0f, CMPMODE::LT, 128);
  Select(t.d, t.m, t.a, t.b, SELMODE::VSEL_TENSOR_TENSOR_MODE, 128);
  CHECK(t.d.GetValue(4) == 4.0f && t.d.GetValue(5) == 100.0f && t.d.GetValue(127) == 100.0f);
  // Scalar mode.
  Select(t.d, t.m, t.a, -3.0f, SELMODE::VSEL_TENSOR_SCALAR_MODE, 64);
  CHECK(t.d.GetValue(0) == 0.0f && t.d.GetValue(5) == -3.0f);
  // VSEL_CMPMASK_SPR: the first 64 bits serve every repeat.
  Select(t.d, t.m, t.a, t.b, SELMODE::VSEL_CMPMASK_SPR, 128);
  CHECK(t.d.GetValue(64) == 64.0f && t.d.GetValue(69) == 100.0f);

  // Brcb: each of 16 elements fills one block of 8 floats.
  t.Clear(-1.0f);
  Brcb(t.d, t.a, 2, BrcbRepeatParams(1, 8));
  CHECK(t.d.GetValue(0) == 0.0f && t.d.GetValue(7) == 0.0f && t.d.GetValue(8) == 1.0f);
  CHECK(t.d.GetValue(127) == 15.0f && t.d.GetValue(128) == -1.0f);

  // Gather by byte offsets.
  LocalTensor<uint32_t> offsets = t.m.ReinterpretCast<uint32_t>();
  offsets.SetValue(0, 12);
  offsets.SetValue(1, 0);
  offsets.SetValue(2, 4);
  Gather(t.d, t.a, offsets, 8u, 3);
  CHECK(t.d.GetValue(0) == 5.0f && t.d.GetValue(1) == 2.0f && t.d.GetValue(2) == 3.0f);

  // GatherMask, built-in pattern 2 (odd elements) over one 64-float repeat, packed from d[0].
  uint64_t kept = 0;
  t.Clear(-1.0f);
  GatherMask(t.d, t.a, 2, false, 0, {1, 1, 0, 0}, kept);
  CHECK(kept == 32 && t.d.GetValue(0) == 1.0f && t.d.GetValue(31) == 63.0f &&
        t.d.GetValue(32) == -1.0f);
  // Pattern 3 (the first of every four), two repeats 8 blocks apart.
  GatherMask(t.d, t.a, 3, false, 0, {1, 2, 8, 0}, kept);
  CHECK(kept == 32 && t.d.GetValue(15) == 60.0f && t.d.GetValue(16) == 64.0f &&
        t.d.GetValue(31) == 124.0f);
  // Counter mode: 70 elements a repeat, the second from element 32 (4 blocks on), a pattern
  // tensor with bits 0, 33 and 69 read again from its start (src1RepeatStride 0).
  LocalTensor<uint32_t> pattern = t.m.ReinterpretCast<uint32_t>();
  pattern.SetValue(0, 1u);
  pattern.SetValue(1, 1u << 1);
  pattern.SetValue(2, 1u << 5);
  SetMaskCount();
  GatherMask(t.d, t.a, pattern, true, 70, {1, 2, 4, 0}, kept);
  CHECK(kept == 6 && t.d.GetValue(0) == 0.0f && t.d.GetValue(1) == 33.0f &&
        t.d.GetValue(2) == 69.0f && t.d.GetValue(3) == 32.0f && t.d.GetValue(5) == 101.0f);
  // GatherMask leaves the register in normal mode: a masked Adds takes its 2 lanes again.
  t.Clear(-1.0f);
  Adds(t.d, t.a, 1.0f, 2, 1, UnaryRepeatParams());
  CHECK(t.d.GetValue(1) == 2.0f && t.d.GetValue(2) == -1.0f);

  // RepeatReduceSum: WholeReduceSum with the older argument order.
  RepeatReduceSum<float>(t.d, t.a, 2, 64, 0, 1, 1, 8);
  CHECK(t.d.GetValue(0) == 2016.0f && t.d.GetValue(1) == 6112.0f);

  // ReduceRepeat and ReduceDataBlock: the same reductions, chosen by a template argument.
  t.Clear(-1.0f);
  ReduceRepeat<ReduceType::SUM, float, float>(t.d, t.a, 64, 2, 1, 1, 8);
  CHECK(t.d.GetValue(0) == 2016.0f && t.d.GetValue(1) == 6112.0f && t.d.GetValue(2) == -1.0f);
  ReduceRepeat<ReduceType::MAX, float, float>(t.d, t.a, 64, 1, 1, 1, 8,
                                              ReduceOrder::ORDER_ONLY_VALUE);
  CHECK(t.d.GetValue(0) == 63.0f);
  ReduceRepeat<ReduceType::MIN, float, float>(t.d, t.a[64], 64, 1, 1, 1, 8,
                                              ReduceOrder::ORDER_ONLY_VALUE);
  CHECK(t.d.GetValue(0) == 64.0f);
  ReduceDataBlock<ReduceType::SUM, float, float>(t.d, t.a, 64, 1, 1, 1, 8);  // 8 blocks of 8
  CHECK(t.d.GetValue(0) == 28.0f && t.d.GetValue(1) == 92.0f && t.d.GetValue(7) == 476.0f);
  ReduceDataBlock<ReduceType::MAX, float, float>(t.d, t.a, 64, 1, 1, 1, 8);
  CHECK(t.d.GetValue(0) == 7.0f && t.d.GetValue(7) == 63.0f);

  // The cycle counter grows with the work; DivCeil; the event ids are global names too.
  const int64_t before = GetSystemCycle();
  Adds(t.d, t.a, 1.0f, 64);
  CHECK(GetSystemCycle() > before);
  CHECK(DivCeil(10, 4) == 3 && DivCeil(8u, 4u) == 2u && CeilDivision(5, 0) == 0);
  SetFlag<HardEvent::V_S>(::EVENT_ID1);
  WaitFlag<HardEvent::V_S>(::EVENT_ID1);

  // The math library's whole-tensor forms take src's size; the host sizes of Gelu's temporary
  // buffer come in its documented no-reuse-flag forms, over a TensorShape.
  t.Clear(-1.0f);
  Sigmoid<float>(t.d, t.a);
  CHECK(t.d.GetValue(0) == 0.5f && t.d.GetValue(255) == 1.0f);
  const TensorShape shape({32});
  CHECK(GetGeluMinTmpSize(shape, 4) == 256u && GetGeluMaxTmpSize(shape, 4) == 32u * 8u + 256u);
}

// Shifts, bitwise, block reductions, TQueSync, GetTPipePtr at global scope, scalar GM access
// through the data cache, Log, float16_t.
static void Integers(GM_ADDR x, GM_ADDR y) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> ib, jb, fb, db;
  pipe.InitBuffer(ib, 256 * 4); pipe.InitBuffer(jb, 256 * 4); pipe.InitBuffer(fb, 256 * 4); pipe.InitBuffer(db, 256 * 4);
  LocalTensor<int32_t> a = ib.Get<int32_t>(), b = jb.Get<int32_t>();
  LocalTensor<float> f = fb.Get<float>(), d = db.Get<float>();
  for (int i = 0; i < 64; ++i) a.SetValue(i, i - 32);
  ShiftLeft(b, a, 2, 64);
  CHECK(b.GetValue(0) == -128 && b.GetValue(63) == 124);
  ShiftRight(b, a, 1, 64);
  CHECK(b.GetValue(0) == -16 && b.GetValue(63) == 15);
  LocalTensor<uint32_t> u = a.ReinterpretCast<uint32_t>(), v = b.ReinterpretCast<uint32_t>();
  ShiftRight(v, u, 28u, 16, 1, UnaryRepeatParams());
  CHECK(v.GetValue(0) == 0xFu);
  // A count of the full width shifts every bit out: the sign mask (arithmetic), or 0.
  ShiftRight(b, a, 32, 64);
  CHECK(b.GetValue(0) == -1 && b.GetValue(31) == -1 && b.GetValue(32) == 0 && b.GetValue(63) == 0);
  ShiftLeft(b, a, 40, 64);
  CHECK(b.GetValue(0) == 0 && b.GetValue(63) == 0);
  ShiftRight(v, u, 32u, 64);
  CHECK(v.GetValue(0) == 0u);
  // Integer vector math: exact, wrapping as two's complement does.
  Duplicate(b, 2147483647, 64);
  Adds(b, b, 1, 64);
  CHECK(b.GetValue(0) == -2147483647 - 1);
  Mul(b, a, a, 64);
  CHECK(b.GetValue(0) == 1024 && b.GetValue(63) == 961);
  Maxs(b, a, 3, 64);
  CHECK(b.GetValue(0) == 3 && b.GetValue(63) == 31);
  Not(b, a, 64);
  CHECK(b.GetValue(32) == -1);
  And(b, a, a, 64); CHECK(b.GetValue(5) == -27);
  Or(b, a, a, 64); CHECK(b.GetValue(5) == -27);
  for (int i = 0; i < 128; ++i) f.SetValue(i, static_cast<float>(i));
  Duplicate(d, -1.0f, 256);
  BlockReduceSum(d, f, 2, 64, 1, 1, 8);
  CHECK(d.GetValue(0) == 28.0f && d.GetValue(1) == 92.0f && d.GetValue(8) == 540.0f);
  BlockReduceMax(d, f, 1, 64, 1, 1, 8);
  CHECK(d.GetValue(0) == 7.0f && d.GetValue(7) == 63.0f);
  TQueSync<PIPE_V, PIPE_MTE3> sync;
  sync.SetFlag(0); sync.WaitFlag(0);
  CHECK(GetTPipePtr() == &pipe);
  GlobalTensor<float> xg, yg; xg.SetGlobalBuffer((__gm__ float*)x, 64); yg.SetGlobalBuffer((__gm__ float*)y, 64);
  CHECK(xg.GetValue(1) == 2.0f);
  yg.SetValue(2, 42.0f);
  Log(d, f[8], 8); CHECK(std::fabs(d.GetValue(0) - std::log(8.0f)) < 1e-6f);
  float16_t h = 1.5f; CHECK(static_cast<float>(h) == 1.5f);
  // Abs clears the sign bit and keeps the rest: bf16 data run through half's Abs (a published
  // idiom) keeps its values, though 2^124 in bf16 (0xFD80) is a signalling NaN as half.
  LocalTensor<uint16_t> raw = a.ReinterpretCast<uint16_t>();
  raw.SetValue(0, 0xFD80); raw.SetValue(1, 0xBC00); raw.SetValue(2, 0x7C00);
  LocalTensor<half> hv = a.ReinterpretCast<half>();
  Abs(hv, hv, 16);
  CHECK(raw.GetValue(0) == 0x7D80 && raw.GetValue(1) == 0x3C00 && raw.GetValue(2) == 0x7C00);
  raw.SetValue(0, 0xFD80);
  Abs(hv, hv, 16, 1, UnaryRepeatParams());  // the mask/repeat form too
  CHECK(raw.GetValue(0) == 0x7D80);
  // The operator form: the whole tensor (here the 8 floats of each view) takes part.
  LocalTensor<float> p = f[0], q = f[64], r = f[128];
  for (int i = 0; i < 8; ++i) { p.SetValue(i, 2.0f + i); q.SetValue(i, 3.0f); }
  r = p * q;  // over the smallest of the three: r's remaining elements
  CHECK(r.GetValue(0) == 6.0f && r.GetValue(7) == 27.0f);
  r = p + q; CHECK(r.GetValue(1) == 6.0f);
  r = p - q; CHECK(r.GetValue(2) == 1.0f);
  r = p / q; CHECK(r.GetValue(4) == 2.0f);
}

// One masked instruction: the launch's counters see 3 repeats of 10 floats.
static void Counted() {
  Bufs t;
  Add(t.d, t.a, t.b, 10, 3, BinaryRepeatParams());
}

// A bound queue carries x through UB untouched; printing and static tensors.
static void Debugging(GM_ADDR x, GM_ADDR y) {
  {
    TPipe pipe;
    TQueBind<TPosition::VECIN, TPosition::VECOUT, 1> q;
    pipe.InitBuffer(q, 1, 64 * 4);
    GlobalTensor<float> xg, yg;
    xg.SetGlobalBuffer((__gm__ float*)x, 64);
    yg.SetGlobalBuffer((__gm__ float*)y, 64);
    LocalTensor<float> t = q.AllocTensor<float>();
    DataCopy(t, xg, 64);
    q.EnQue(t);
    t = q.DeQue<float>();
    DataCopy(yg, t, 64);
    q.FreeTensor(t);
    DumpTensor(xg, 3, 2);
  }
  InitSocState();
  LocalMemAllocator<Hardware::UB> ub;
  LocalTensor<float> s = ub.Alloc<float, 8>();
  LocalTensor<int32_t> n = ub.Alloc<int32_t>(4);
  CHECK(ub.GetCurAddr() == 64);
  Duplicate(s, 2.5f, 8);
  Duplicate(n, 7, 4);
  DumpTensor(s, 1, 3);
  DumpTensor(n, 2, 2);
  CHECK(*s.GetPhyAddr(1) == 2.5f);  // an address the kernel can use
  LocalTensor<float> same(TPosition::VECCALC, 0, 8);
  CHECK(same.GetValue(7) == 2.5f);
  PRINTF("block %d of %d\n", static_cast<int>(GetBlockIdx()), static_cast<int>(GetBlockNum()));
  // The built-in variables newer kernels read: this launch's one block.
  __gm__ float* base = reinterpret_cast<__gm__ float*>(x);
  CHECK(block_idx == 0 && block_num == 1 && base + block_idx * 64 == base);
}

static void Broken(const std::string& which) {
  Bufs t;
  if (which == "wide-mask") Add(t.d, t.a, t.b, 65, 1, BinaryRepeatParams());
  uint64_t bits[2] = {1, 1};
  if (which == "high-bits") Add(t.d, t.a, t.b, bits, 1, BinaryRepeatParams());
  if (which == "past-end") Adds(t.d, t.a, 1.0f, 64, 5, UnaryRepeatParams());
  if (which == "select-mode") Select(t.d, t.m, t.a, t.b, SELMODE::VSEL_TENSOR_SCALAR_MODE, 64);
  // A spec's int32 tensor travels as fp32: exact up to 2^24, and stopped beyond, both ways.
  const int32_t wide[2] = {1 << 24, (1 << 24) + 1};
  if (which == "int-input") cannbot_ascendc::Widened(wide, 2, true);
  int32_t narrowed[1] = {0};
  if (which == "int-output") cannbot_ascendc::Narrow({33554432.0f}, {0.0f}, narrowed);
  if (which == "int-exact") {
    const std::vector<float> in = cannbot_ascendc::Widened(wide, 1, true);
    cannbot_ascendc::Narrow(in, {0.0f}, narrowed);
    std::printf("int-exact %d\n", narrowed[0]);
  }
  uint64_t kept = 0;
  if (which == "gather-pattern") GatherMask(t.d, t.a, 8, false, 0, {1, 1, 0, 0}, kept);
  if (which == "gather-past-end") GatherMask(t.d, t.a, 7, false, 0, {1, 5, 8, 0}, kept);
  // Counter mode with an absurd element count: named at once, not walked lane by lane.
  if (which == "gather-huge-mask") GatherMask(t.d, t.a, 7, true, 0xffffffffu, {1, 255, 1, 0}, kept);
  TBuf<TPosition::VECCALC> never;  // Get alone is harmless, as on the device; use is not
  LocalTensor<float> unset = never.Get<float>();
  if (which == "unset-tbuf") Duplicate(unset, 1.0f, 8);
}

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  std::vector<float> x(64, 1.0f), y(64, 0.0f);
  x[1] = 2.0f;
  CannbotTiling tiling{};
  tiling.block_dim = 1;
  tiling.dtype_bits = 32;
  cannbot_ascendc::Launch(tiling, {x.data()}, {y.data()}, {64, 64},
                          [&](GM_ADDR* in, GM_ADDR* out, GM_ADDR) {
                            if (mode == "counted") {
                              Counted();
                            } else if (mode == "debug") {
                              Debugging(in[0], out[0]);
                            } else if (mode == "integer") {
                              Integers(in[0], out[0]);
                            } else if (!mode.empty()) {
                              Broken(mode);
                            } else {
                              Lanes();
                              Selection();
                            }
                          });
  if (mode == "debug") CHECK(y[0] == 1.0f && y[1] == 2.0f && y[63] == 1.0f);
  if (mode == "integer") CHECK(y[2] == 42.0f);
  std::printf(failures == 0 ? "repeat semantics ok\n" : "repeat semantics FAILED\n");
  return failures == 0 ? 0 : 1;
}
)";

class AscendcRepeatTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto dir = TempDir::Create("cannbot-ascendc-repeat");
    ASSERT_TRUE(dir.ok());
    dir_ = new TempDir(std::move(*dir));
    built_ = testing::BuildCheckProgram(*dir_, "repeat", kRepeatProgram);
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static CommandResult Run(const std::string& mode) {
    return testing::RunCheckProgram(*dir_, "repeat",
                                    mode.empty() ? std::vector<std::string>{}
                                                 : std::vector<std::string>{mode});
  }
  static TempDir* dir_;
  static Status built_;
};
TempDir* AscendcRepeatTest::dir_ = nullptr;
Status AscendcRepeatTest::built_ = Status::Ok();

TEST_F(AscendcRepeatTest, LaneModelCompareAndSelectHold) {
  ASSERT_TRUE(built_.ok()) << built_.message();
  const CommandResult run = Run("");
  EXPECT_TRUE(run.exit.Success()) << run.exit.Describe() << "\n" << run.output;
  EXPECT_NE(run.output.find("repeat semantics ok"), std::string::npos) << run.output;
}

TEST_F(AscendcRepeatTest, AMaskedInstructionCountsWholeRepeats) {
  ASSERT_TRUE(built_.ok()) << built_.message();
  const CommandResult run = Run("counted");
  ASSERT_TRUE(run.exit.Success()) << run.output;
  auto stats = ParseStats(run.output);
  ASSERT_TRUE(stats.ok()) << stats.status().message() << "\n" << run.output;
  // The set-up is scalar; the masked Add is 3 whole repeats that move 10 floats each.
  EXPECT_EQ(stats->total.vector_instructions, 1u);
  EXPECT_EQ(stats->total.vector_repeats, 3u);
  EXPECT_EQ(stats->total.vector_bytes, 3u * 10u * 4u);
}

TEST_F(AscendcRepeatTest, BoundQueuesPrintingAndStaticTensorsWork) {
  ASSERT_TRUE(built_.ok()) << built_.message();
  const CommandResult run = Run("debug");
  EXPECT_TRUE(run.exit.Success()) << run.exit.Describe() << "\n" << run.output;
  EXPECT_NE(run.output.find("repeat semantics ok"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("DumpTensor: desc=3, GM, 2 elements: 1 2\n"), std::string::npos)
      << run.output;
  EXPECT_NE(run.output.find("DumpTensor: desc=1, VECCALC, 3 elements: 2.5 2.5 2.5\n"),
            std::string::npos)
      << run.output;
  EXPECT_NE(run.output.find("DumpTensor: desc=2, VECCALC, 2 elements: 7 7\n"), std::string::npos)
      << run.output;
  EXPECT_NE(run.output.find("block 0 of 1\n"), std::string::npos) << run.output;
  auto stats = ParseStats(run.output);
  ASSERT_TRUE(stats.ok()) << stats.status().message();
  EXPECT_EQ(stats->total.gm_to_ub_bytes, 256u);
  EXPECT_EQ(stats->total.ub_to_gm_bytes, 256u);
}

TEST_F(AscendcRepeatTest, IntegerInstructionsBlockReductionsAndScalarGmAccessWork) {
  ASSERT_TRUE(built_.ok()) << built_.message();
  const CommandResult run = Run("integer");
  EXPECT_TRUE(run.exit.Success()) << run.exit.Describe() << "\n" << run.output;
  EXPECT_NE(run.output.find("repeat semantics ok"), std::string::npos) << run.output;
  auto stats = ParseStats(run.output);
  ASSERT_TRUE(stats.ok()) << stats.status().message();
  // One GetValue and one SetValue on global memory: a 32-byte transfer each way.
  EXPECT_EQ(stats->total.gm_to_ub_copies, 1u);
  EXPECT_EQ(stats->total.ub_to_gm_bytes, 32u);
}

TEST_F(AscendcRepeatTest, BrokenMasksAndReachesAreNamed) {
  ASSERT_TRUE(built_.ok()) << built_.message();
  const CommandResult exact = Run("int-exact");  // 2^24 itself goes through unchanged
  EXPECT_NE(exact.output.find("int-exact 16777216\n"), std::string::npos) << exact.output;
  const struct {
    const char* mode;
    const char* rule;
    const char* says;
  } cases[] = {
      {"wide-mask", "bad-argument", "mask 65"},
      {"high-bits", "bad-argument", "mask[1]"},
      {"past-end", "ub-out-of-bounds", "Adds"},
      {"select-mode", "bad-argument", "VSEL_TENSOR_SCALAR_MODE"},
      {"gather-pattern", "bad-argument", "built-in pattern 8"},
      {"gather-past-end", "ub-out-of-bounds", "GatherMask"},
      {"gather-huge-mask", "ub-out-of-bounds", "mask = 4294967295 elements a repeat"},
      {"int-input", "launch-contract", "holds 16777217 at element 1, beyond the 2^24"},
      {"int-output", "launch-contract", "wrote 33554432 to element 0 of an integer output"},
      {"unset-tbuf", "queue-uninitialized", "Duplicate uses a tensor from a TBuf"},
  };
  for (const auto& c : cases) {
    const CommandResult run = Run(c.mode);
    EXPECT_FALSE(run.exit.Success()) << c.mode;
    const auto violation = FindViolation(run.output);
    ASSERT_TRUE(violation.has_value()) << c.mode << ": " << run.output;
    EXPECT_EQ(violation->rule, c.rule) << c.mode;
    EXPECT_NE(violation->message.find(c.says), std::string::npos) << violation->message;
  }
}

}  // namespace
}  // namespace cannbot::ascendc
