// The emulation's documented semantics, checked from inside a kernel: Cast rounding modes,
// the high-level math library, reduction order and half saturation, WholeReduce strides,
// DataCopyPad padding and strides, fp16 launches (saturating input conversion, untouched
// outputs keep their bits), whole-block copies of a tensor's 32-byte tail, and atomic copies
// out from several blocks.
#include <string>

#include <gtest/gtest.h>

#include "integration/ascendc_support.h"

namespace cannbot::ascendc {
namespace {

constexpr const char* kProgram = R"(
#include "cannbot_launch.h"
using namespace AscendC;

static void FloatBody(GM_ADDR x) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> fb, hb, wb, db;
  pipe.InitBuffer(fb, 256 * 4);
  pipe.InitBuffer(hb, 256 * 2);
  pipe.InitBuffer(wb, 64 * 4);
  pipe.InitBuffer(db, 64 * 4);
  LocalTensor<float> f = fb.Get<float>();
  LocalTensor<half> h = hb.Get<half>();
  LocalTensor<float> w = wb.Get<float>();
  LocalTensor<float> d = db.Get<float>();

  // Cast float -> half with each rounding mode: quarter-ulp above 1, an exact tie, negatives.
  const float q = 1.0f + 1.0f / 4096, tie = 1.0f + 1.0f / 2048, up = 1.0f + 1.0f / 1024;
  const float in[8] = {q, tie, -q, -tie, 3.0f, 70000.0f, 0.0f, -0.0f};
  struct { RoundMode mode; float want[4]; } cases[] = {
      {RoundMode::CAST_RINT, {1.0f, 1.0f, -1.0f, -1.0f}},
      {RoundMode::CAST_FLOOR, {1.0f, 1.0f, -up, -up}},
      {RoundMode::CAST_CEIL, {up, up, -1.0f, -1.0f}},
      {RoundMode::CAST_TRUNC, {1.0f, 1.0f, -1.0f, -1.0f}},
      {RoundMode::CAST_ROUND, {1.0f, up, -1.0f, -up}},
      {RoundMode::CAST_ODD, {up, up, -up, -up}},
  };
  for (const auto& c : cases) {
    for (int i = 0; i < 8; ++i) f.SetValue(i, in[i]);
    Cast(h, f, c.mode, 8);
    for (int i = 0; i < 4; ++i) CHECK(static_cast<float>(h.GetValue(i)) == c.want[i]);
    CHECK(static_cast<float>(h.GetValue(4)) == 3.0f);
  }
  Cast(f, h, RoundMode::CAST_NONE, 8);
  CHECK(f.GetValue(4) == 3.0f);

  // Cast float -> bfloat16_t (8 significant bits): a quarter ulp above 1, an exact tie, a tie
  // to odd, negatives; bf16 keeps float's range, so 70000 does not saturate.
  {
    LocalTensor<bfloat16_t> b = hb.Get<bfloat16_t>();
    const float bq = 1.0f + 1.0f / 512, btie = 1.0f + 1.0f / 256, bup = 1.0f + 1.0f / 128;
    const float odd_tie = 1.0f + 3.0f / 256;  // halfway between 1+1/128 and 1+2/128
    const float bin[8] = {bq, btie, -bq, odd_tie, 70000.0f, 3.0f, 0.0f, -0.0f};
    struct { RoundMode mode; float want[4]; } bcases[] = {
        {RoundMode::CAST_RINT, {1.0f, 1.0f, -1.0f, 1.0f + 2.0f / 128}},
        {RoundMode::CAST_FLOOR, {1.0f, 1.0f, -bup, bup}},
        {RoundMode::CAST_CEIL, {bup, bup, -1.0f, 1.0f + 2.0f / 128}},
        {RoundMode::CAST_TRUNC, {1.0f, 1.0f, -1.0f, bup}},
        {RoundMode::CAST_ROUND, {1.0f, bup, -1.0f, 1.0f + 2.0f / 128}},
        {RoundMode::CAST_ODD, {bup, bup, -bup, bup}},
    };
    for (const auto& c : bcases) {
      for (int i = 0; i < 8; ++i) f.SetValue(i, bin[i]);
      Cast(b, f, c.mode, 8);
      for (int i = 0; i < 4; ++i) CHECK(static_cast<float>(b.GetValue(i)) == c.want[i]);
      const float big = static_cast<float>(b.GetValue(4));  // bf16 neighbours 69632, 70144
      CHECK(big == (c.mode == RoundMode::CAST_FLOOR || c.mode == RoundMode::CAST_TRUNC ? 69632.0f
                                                                                      : 70144.0f));
    }
    Cast(f, b, RoundMode::CAST_NONE, 8);
    CHECK(f.GetValue(5) == 3.0f);
  }

  // The high-level math library: per element in float, Gelu in its documented tanh form.
  for (int i = 0; i < 8; ++i) f.SetValue(i, static_cast<float>(i) - 3.0f);
  Silu(w, f, 8);
  CHECK(std::fabs(w.GetValue(4) - 1.0f / (1.0f + std::exp(-1.0f))) < 1e-6f);
  Gelu(w, f, 8);
  CHECK(std::fabs(w.GetValue(5) - 2.0f * 0.5f * (1.0f + std::tanh(0.7978845608f * (2.0f + 0.044715f * 8.0f)))) < 1e-5f);
  Swish(w, f, 8, 2.0f);
  CHECK(std::fabs(w.GetValue(4) - 1.0f / (1.0f + std::exp(-2.0f))) < 1e-6f);
  Sigmoid(w, f, 8);
  CHECK(std::fabs(w.GetValue(3) - 0.5f) < 1e-7f);
  // The rounding functions on the pages' examples: Round half away from zero, Rint half to
  // even, Frac keeping the sign.
  f.SetValue(0, 3.5f);
  f.SetValue(1, -3.4f);
  f.SetValue(2, 2.5f);
  f.SetValue(3, -258.41888f);
  Round(w, f, 4);
  CHECK(w.GetValue(0) == 4.0f && w.GetValue(1) == -3.0f && w.GetValue(2) == 3.0f);
  Rint(w, f, 4);
  CHECK(w.GetValue(0) == 4.0f && w.GetValue(2) == 2.0f);
  Frac<float, false>(w, f, 4);
  CHECK(std::fabs(w.GetValue(3) + 0.41888f) < 1e-4f && w.GetValue(0) == 0.5f);
  Sign(w, f, 4);
  CHECK(w.GetValue(1) == -1.0f && w.GetValue(2) == 1.0f);
  Acosh<float>(w, f, 1);
  CHECK(std::fabs(w.GetValue(0) - std::acosh(3.5f)) < 1e-6f);

  // ReduceSum over 130 floats: pairwise inside each 64-float repeat, repeats added in order.
  for (int i = 0; i < 130; ++i) f.SetValue(i, static_cast<float>(i + 1));
  ReduceSum(d, f, w, 130);
  CHECK(d.GetValue(0) == 8515.0f);
  ReduceMax(d, f, w, 130, true);
  CHECK(d.GetValue(0) == 130.0f);
  uint32_t index = 0;
  const float bits = d.GetValue(1);
  std::memcpy(&index, &bits, 4);
  CHECK(index == 129u);

  // Half partial sums saturate at 65504 (the documented [60000, 60000, -30000, 100] example).
  // The documentation's 35604 leaves out rounding: every partial sum is a half, so
  // -29900 -> -29904, then 65504 - 29904 = 35600 is a tie between halves -> 35584.
  h.SetValue(0, half(60000.0f));
  h.SetValue(1, half(60000.0f));
  h.SetValue(2, half(-30000.0f));
  h.SetValue(3, half(100.0f));
  LocalTensor<half> hd = db.Get<half>();
  ReduceSum(hd, h, w.ReinterpretCast<half>(), 4);
  CHECK(static_cast<float>(hd.GetValue(0)) == 35584.0f);

  // WholeReduceSum: one result per 64-float repeat, written contiguously.
  for (int i = 0; i < 128; ++i) f.SetValue(i, static_cast<float>(i + 1));
  WholeReduceSum(d, f, 64, 2, 1, 1, 8);
  CHECK(d.GetValue(0) == 2080.0f && d.GetValue(1) == 6176.0f);
  WholeReduceMax(d, f, 64, 2, 1, 1, 8, ReduceOrder::ORDER_ONLY_VALUE);
  CHECK(d.GetValue(0) == 64.0f && d.GetValue(1) == 128.0f);
  // The Ascend 950 form of Duplicate: the source tensor's first element, in place too.
  Duplicate(d, d, 8);
  CHECK(d.GetValue(1) == 64.0f && d.GetValue(7) == 64.0f);

  // DataCopyPad: 5 floats padded to a 32-byte block with 9s.
  GlobalTensor<float> xg;
  xg.SetGlobalBuffer((__gm__ float*)x, 64);
  Duplicate(f, -1.0f, 64);
  DataCopyPad(f, xg, DataCopyExtParams(1, 20, 0, 0, 0),
              DataCopyPadExtParams<float>(true, 0, 0, 9.0f));
  PipeBarrier<PIPE_ALL>();
  CHECK(f.GetValue(4) == 4.0f && f.GetValue(5) == 9.0f && f.GetValue(7) == 9.0f);
  CHECK(f.GetValue(8) == -1.0f);
  // Three blocks of 3 floats, skipping one float in GM each time; 32-byte pitch in UB.
  DataCopyPad(f, xg, DataCopyExtParams(3, 12, 4, 0, 0),
              DataCopyPadExtParams<float>(false, 0, 0, 0.0f));
  PipeBarrier<PIPE_ALL>();
  CHECK(f.GetValue(0) == 0.0f && f.GetValue(2) == 2.0f);
  CHECK(f.GetValue(8) == 4.0f && f.GetValue(10) == 6.0f);
  CHECK(f.GetValue(16) == 8.0f && f.GetValue(18) == 10.0f);
}

// fp16 launch: inputs saturate to +-65504; the kernel doubles element 0 only.
static void HalfBody(GM_ADDR x, GM_ADDR y) {
  TPipe pipe;
  TQue<TPosition::VECIN, 1> q;
  pipe.InitBuffer(q, 1, 64);
  GlobalTensor<half> xg, yg;
  xg.SetGlobalBuffer((__gm__ half*)x, 16);
  yg.SetGlobalBuffer((__gm__ half*)y, 16);
  LocalTensor<half> t = q.AllocTensor<half>();
  DataCopy(t, xg, 16);
  q.EnQue(t);
  t = q.DeQue<half>();
  CHECK(static_cast<float>(t.GetValue(1)) == 65504.0f);
  CHECK(static_cast<float>(t.GetValue(2)) == -65504.0f);
  CHECK(std::isinf(static_cast<float>(t.GetValue(3))));
  t.SetValue(0, static_cast<half>(static_cast<float>(t.GetValue(0)) * 2.0f));
  PipeBarrier<PIPE_ALL>();
  DataCopyPad(yg, t, DataCopyExtParams(1, 2, 0, 0, 0));
  q.FreeTensor(t);
}

// A 1-float tensor moved as one whole 32-byte block both ways: legal (device allocations are
// padded to the block); the padding reads NaN and is never copied back.
static void TailBody(GM_ADDR x, GM_ADDR y) {
  TPipe pipe;
  TQue<TPosition::VECIN, 1> q;
  pipe.InitBuffer(q, 1, 32);
  GlobalTensor<float> xg, yg;
  xg.SetGlobalBuffer((__gm__ float*)x, 1);
  yg.SetGlobalBuffer((__gm__ float*)y, 1);
  LocalTensor<float> t = q.AllocTensor<float>();
  DataCopy(t, xg, 8);
  q.EnQue(t);
  t = q.DeQue<float>();
  CHECK(std::isnan(t.GetValue(1)) && std::isnan(t.GetValue(7)));
  t.SetValue(0, t.GetValue(0) * 2.0f);
  t.SetValue(1, 123.0f);
  PipeBarrier<PIPE_ALL>();
  DataCopy(yg, t, 8);
  q.FreeTensor(t);
}

// Four blocks combine into one output under SetAtomicMax and SetAtomicMin (a plain copy would
// leave the last block's value); the A2 core's macros hold inside a block, a vector core's
// unless the kernel declares KERNEL_TYPE_AIC_ONLY.
static void AtomicBody(GM_ADDR out) {
  KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
  CHECK(__CCE_AICORE__ == 220);
  CHECK(ASCEND_IS_AIV && !ASCEND_IS_AIC);
  CHECK(likely(GetBlockNum() == 4) && !unlikely(GetBlockNum() != 4));
  GlobalTensor<float> y;
  y.SetGlobalBuffer((__gm__ float*)out, 24);
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, 32 * 4);
  LocalTensor<float> v = buf.Get<float>();
  CHECK(GetSubBlockIdx() == 0);
  {  // ArithProgression: 0.5, 0.75, ... in float (exact here), 3, 1003, ... in int32
    LocalTensor<float> f = buf.Get<float>();
    ArithProgression<float>(f, 0.5f, 0.25f, 16);
    CHECK(f.GetValue(0) == 0.5f && f.GetValue(7) == 2.25f && f.GetValue(15) == 4.25f);
    TBuf<TPosition::VECCALC> longer;  // past 64 elements the blocks are 64 long
    pipe.InitBuffer(longer, 100 * 4);
    LocalTensor<float> g = longer.Get<float>();
    ArithProgression<float>(g, 1.0f, 1.0f, 100);
    CHECK(g.GetValue(63) == 64.0f && g.GetValue(64) == 65.0f && g.GetValue(99) == 100.0f);
    LocalTensor<int32_t> n = buf.Get<int32_t>();
    ArithProgression<int32_t>(n, 3, 1000, 10);
    CHECK(n.GetValue(9) == 9003);
    // Cast int32 -> half dequantises by the DEQSCALE register (SetDeqScale).
    LocalTensor<half> h = buf.GetWithOffset<half>(16, 64);
    Cast(h, n, RoundMode::CAST_NONE, 8);
    CHECK(static_cast<float>(h.GetValue(1)) == 1003.0f);
    SetDeqScale(static_cast<half>(0.5f));
    Cast(h, n, RoundMode::CAST_NONE, 8);
    CHECK(static_cast<float>(h.GetValue(1)) == 501.5f);
    SetDeqScale(static_cast<half>(1.0f));
    // Broadcast [2, 1] -> [2, 3] (axis 1) and [1, 3] -> [2, 3] (axis 0), dense.
    LocalTensor<float> b = buf.GetWithOffset<float>(8, 96);
    f.SetValue(0, 1.0f);
    f.SetValue(1, 2.0f);
    f.SetValue(2, 3.0f);
    const uint32_t dst[2] = {2, 3}, column[2] = {2, 1}, row[2] = {1, 3};
    Broadcast<float, 2, 1>(b, f, dst, column);
    CHECK(b.GetValue(0) == 1.0f && b.GetValue(2) == 1.0f && b.GetValue(3) == 2.0f &&
          b.GetValue(5) == 2.0f);
    BroadCast<float, 2, 0>(b, f, dst, row);
    CHECK(b.GetValue(0) == 1.0f && b.GetValue(2) == 3.0f && b.GetValue(3) == 1.0f &&
          b.GetValue(5) == 3.0f);
    // The multi-operand math functions: Clamp with a scalar and a tensor bound, the one-sided
    // clamps, Fma, and the integer and logical ones.
    f.SetValue(0, -5.0f);
    f.SetValue(1, 0.5f);
    f.SetValue(2, 9.0f);
    b.SetValue(0, 1.0f);
    b.SetValue(1, 1.0f);
    b.SetValue(2, 4.0f);
    TBuf<TPosition::VECCALC> more;
    pipe.InitBuffer(more, 512);
    LocalTensor<float> c = more.GetWithOffset<float>(8, 0);
    Clamp(c, f, 0.0f, b, 3);
    CHECK(c.GetValue(0) == 0.0f && c.GetValue(1) == 0.5f && c.GetValue(2) == 4.0f);
    ClampMax<float>(c, f, 1.0f, 3);
    CHECK(c.GetValue(0) == -5.0f && c.GetValue(2) == 1.0f);
    ClampMin<float>(c, f, 1.0f, 3);
    CHECK(c.GetValue(0) == 1.0f && c.GetValue(2) == 9.0f);
    Fma(c, f, b, b, 3);  // f * b + b
    CHECK(c.GetValue(0) == -4.0f && c.GetValue(2) == 40.0f);
    LocalTensor<int32_t> m = more.GetWithOffset<int32_t>(8, 32);
    LocalTensor<int32_t> k = more.GetWithOffset<int32_t>(8, 64);
    m.SetValue(0, 0b1100);
    k.SetValue(0, 0b1010);
    m.SetValue(1, 0);
    k.SetValue(1, 7);
    LocalTensor<int32_t> r = more.GetWithOffset<int32_t>(8, 96);
    BitwiseAnd(r, m, k, 2);
    CHECK(r.GetValue(0) == 0b1000);
    Xor<int32_t>(r, m, k, 2);
    CHECK(r.GetValue(0) == 0b0110 && r.GetValue(1) == 7);
    LocalTensor<bool> truth = more.GetWithOffset<bool>(32, 128);
    LogicalAnd(truth, m, k, 2);
    CHECK(truth.GetValue(0) && !truth.GetValue(1));
    LogicalOr(truth, m, k, 2);
    CHECK(truth.GetValue(1));
  }
  AscendCUtils::SetMask<float>(8);
  CHECK(cannbot_ascendc::R().vector_mask().low == 0xFFu);
  ResetMask();
  Duplicate(v, static_cast<float>(3 - GetBlockIdx()), 16);
  const event_t done = static_cast<event_t>(GetTPipePtr()->AllocEventID<HardEvent::V_MTE3>());
  SetFlag<HardEvent::V_MTE3>(done);
  WaitFlag<HardEvent::V_MTE3>(done);
  GetTPipePtr()->ReleaseEventID<HardEvent::V_MTE3>(done);
  if (GetBlockIdx() == 0) InitGlobalMemory(y[16], 8, 0);  // 0 converts to float
  SetAtomicMax<float>();
  DataCopy(y, v, 8);
  SetAtomicMin<float>();
  DataCopy(y[8], v[8], 8);
  SetAtomicNone();
  KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIC_ONLY)  // as some kernels write it, no semicolon
  CHECK(ASCEND_IS_AIC && !ASCEND_IS_AIV && g_coreType == AIC);
}

int main() {
  std::vector<float> x(64), y(64, 0.0f);
  for (int i = 0; i < 64; ++i) x[i] = static_cast<float>(i);
  CannbotTiling tiling{};
  tiling.block_dim = 1;
  tiling.dtype_bits = 32;
  cannbot_ascendc::Launch(tiling, {x.data()}, {y.data()}, {64, 64},
                          [&](GM_ADDR* in, GM_ADDR*, GM_ADDR) { FloatBody(in[0]); });

  std::vector<float> hx(16, 1.5f), hy(16);
  hx[1] = 3e38f;
  hx[2] = -1e6f;
  hx[3] = INFINITY;
  uint32_t poison = 0x7FC0DEADu;
  for (float& v : hy) std::memcpy(&v, &poison, 4);
  tiling.dtype_bits = 16;
  cannbot_ascendc::Launch(tiling, {hx.data()}, {hy.data()}, {16, 16},
                          [&](GM_ADDR* in, GM_ADDR* out, GM_ADDR) { HalfBody(in[0], out[0]); });
  CHECK(hy[0] == 3.0f);
  uint32_t bits = 0;
  std::memcpy(&bits, &hy[5], 4);
  CHECK(bits == poison);  // never written: the exact fp32 poison comes back

  std::vector<float> tx(1, 4.0f), ty(2, 7.0f);  // ty[1]: the host memory behind the output
  tiling.dtype_bits = 32;
  cannbot_ascendc::Launch(tiling, {tx.data()}, {ty.data()}, {1, 1},
                          [&](GM_ADDR* in, GM_ADDR* out, GM_ADDR) { TailBody(in[0], out[0]); });
  CHECK(ty[0] == 8.0f && ty[1] == 7.0f);

  std::vector<float> none(1, 0.0f), ay(24, 1.5f);
  for (int i = 8; i < 16; ++i) ay[i] = -1.0f;
  tiling.block_dim = 4;
  cannbot_ascendc::Launch(tiling, {none.data()}, {ay.data()}, {1, 24},
                          [&](GM_ADDR*, GM_ADDR* out, GM_ADDR) { AtomicBody(out[0]); });
  CHECK(ay[0] == 3.0f && ay[7] == 3.0f);    // the largest of 1.5 and the blocks' 3, 2, 1, 0
  CHECK(ay[8] == -1.0f && ay[15] == -1.0f);  // the smallest of -1 and theirs
  CHECK(ay[16] == 0.0f && ay[23] == 0.0f);   // InitGlobalMemory
  std::printf(failures == 0 ? "semantics ok\n" : "semantics FAILED\n");
  return failures == 0 ? 0 : 1;
}
)";

TEST(AscendcSemanticsTest, DocumentedBehaviourHolds) {
  auto dir = TempDir::Create("cannbot-ascendc-semantics");
  ASSERT_TRUE(dir.ok());
  const Status built = testing::BuildCheckProgram(*dir, "semantics", kProgram);
  ASSERT_TRUE(built.ok()) << built.message();
  const CommandResult run = testing::RunCheckProgram(*dir, "semantics");
  EXPECT_TRUE(run.exit.Success()) << run.exit.Describe() << "\n" << run.output;
  EXPECT_NE(run.output.find("semantics ok"), std::string::npos) << run.output;
  auto stats = ParseAllStats(run.output);
  ASSERT_TRUE(stats.ok()) << stats.status().message();
  ASSERT_EQ(stats->size(), 4u);
  EXPECT_EQ((*stats)[1].dtype_bits, 16u);
  EXPECT_EQ((*stats)[1].total.ub_to_gm_bytes, 2u);
  EXPECT_EQ((*stats)[3].block_dim, 4u);
  // An atomic copy moves its bytes; InitGlobalMemory's are counted as a copy out too.
  EXPECT_EQ((*stats)[3].total.ub_to_gm_bytes, 4u * 16 * 4 + 8 * 4);
}

}  // namespace
}  // namespace cannbot::ascendc
