// The register-based vector functions (cannbot_ascendc_reg.h, cannbot_ascendc_reg_compute.h),
// checked from inside a kernel against values worked out by hand from their API pages: masks,
// merge modes, load and store distributions, post-update addresses, AddrReg offsets, unaligned
// loads and stores, reductions, Compare and Select, Cast's lane layouts, Div's flush to zero,
// bitwise operations and shifts, Interleave, Gather, masks moved to and from the UB, moves by
// index (UB Gather, GatherB, Scatter), Squeeze with the AR-form store, PairReduceElem and
// Histograms;
// what they count; and the rules they enforce.
#include <string>

#include <gtest/gtest.h>

#include "integration/ascendc_support.h"

namespace cannbot::ascendc {
namespace {

constexpr const char* kRegProgram = R"(
#include "cannbot_launch.h"
#include "cannbot_host_tiling.h"
using namespace AscendC;
namespace R = AscendC::Reg;

struct Ub {
  TPipe pipe;
  TBuf<TPosition::VECCALC> fb, hb;
  LocalTensor<float> f;
  LocalTensor<half> h;
  __ubuf__ float* a;
  __ubuf__ half* ha;
  Ub() {
    pipe.InitBuffer(fb, 512 * 4);
    pipe.InitBuffer(hb, 256 * 2);
    f = fb.Get<float>();
    h = hb.Get<half>();
    a = reinterpret_cast<__ubuf__ float*>(f.GetPhyAddr());
    ha = reinterpret_cast<__ubuf__ half*>(h.GetPhyAddr());
    for (int i = 0; i < 512; ++i) a[i] = static_cast<float>(i);
    for (int i = 0; i < 256; ++i) ha[i] = static_cast<half>(i);
  }
};

__simd_vf__ inline void Masks(__ubuf__ float* a) {
  uint32_t count = 70;
  R::MaskReg first = R::UpdateMask<float>(count);  // 64 lanes; 6 left
  CHECK(count == 6 && first.Active<float>(63));
  R::MaskReg tail = R::UpdateMask<float>(count);
  CHECK(count == 0 && tail.Active<float>(5) && !tail.Active<float>(6));
  R::MaskReg m3 = R::CreateMask<float, R::MaskPattern::M3>();
  CHECK(m3.Active<float>(0) && !m3.Active<float>(1) && m3.Active<float>(63));
  R::MaskReg half_of = R::CreateMask<float, R::MaskPattern::H>();
  CHECK(half_of.Active<float>(31) && !half_of.Active<float>(32));
  // A half mask read by a float instruction: element i of float is bit 4i, half element 2i.
  R::MaskReg vl3 = R::CreateMask<half, R::MaskPattern::VL3>();
  CHECK(vl3.Active<float>(0) && vl3.Active<float>(1) && !vl3.Active<float>(2));

  R::RegTensor<float> x, y, d;
  R::LoadAlign(x, a);       // 0..63
  R::LoadAlign(y, a + 64);  // 64..127
  R::Duplicate(d, -1.0f);
  R::Add(d, x, y, tail);  // zeroing: lanes 6.. become 0
  CHECK(d.Lane(5) == 5.0f + 69.0f && d.Lane(6) == 0.0f);
  R::Duplicate(d, -1.0f);
  R::Add<float, R::MaskMergeMode::MERGING>(d, x, y, tail);
  CHECK(d.Lane(5) == 74.0f && d.Lane(6) == -1.0f);
  R::Muls(d, x, 0.5f, first);
  R::Axpy(d, y, 2.0f, first);  // d = 2y + d
  CHECK(d.Lane(3) == 2.0f * 67.0f + 1.5f);
  R::Duplicate(d, y, tail);  // lane 0 of y where the mask selects
  CHECK(d.Lane(5) == 64.0f && d.Lane(6) == 0.0f);
  R::ExpSub(d, y, y, first);
  CHECK(d.Lane(0) == 1.0f);
  R::LeakyRelu(d, x, 0.25f, first);
  CHECK(d.Lane(2) == 2.0f);
}

__simd_vf__ inline void Moves(__ubuf__ float* a, __ubuf__ half* ha) {
  R::MaskReg all = R::CreateMask<float>();
  R::RegTensor<float> x;
  R::LoadAlign<float, R::LoadDist::DIST_BRC_B32>(x, a + 5);
  CHECK(x.Lane(0) == 5.0f && x.Lane(63) == 5.0f);
  R::LoadAlign<float, R::LoadDist::DIST_E2B_B32>(x, a + 8);  // each float to a 32-byte block
  CHECK(x.Lane(7) == 8.0f && x.Lane(8) == 9.0f && x.Lane(63) == 15.0f);
  __ubuf__ float* p = a;
  R::LoadAlign<float, R::PostLiteral::POST_MODE_UPDATE>(x, p, 64);
  R::LoadAlign<float, R::PostLiteral::POST_MODE_UPDATE>(x, p, 64);
  CHECK(p == a + 128 && x.Lane(0) == 64.0f);
  // Stores write the selected lanes only; the first-element form ignores the mask.
  uint32_t three = 3;
  R::MaskReg m = R::UpdateMask<float>(three);
  R::StoreAlign(a + 256, x, m);
  CHECK(a[256 + 2] == 66.0f && a[256 + 3] == 259.0f);
  R::StoreAlign<float, R::StoreDist::DIST_FIRST_ELEMENT_B32>(a + 300, x, m);
  CHECK(a[300] == 64.0f && a[301] == 301.0f);
  // Half -> float -> half: unpacked halves, a widening and a narrowing cast, a packed store.
  R::RegTensor<half> h;
  R::LoadAlign<half, R::LoadDist::DIST_UNPACK_B16>(h, ha + 16);
  CHECK(static_cast<float>(h.Lane(2)) == 17.0f && static_cast<float>(h.Lane(3)) == 0.0f);
  R::Cast<float, half, AscendC::layoutZMrgZ>(x, h, all);
  CHECK(x.Lane(1) == 17.0f && x.Lane(63) == 79.0f);
  R::Muls(x, x, 0.5f, all);
  R::Cast<half, float, AscendC::LayoutZMrgZRndRSatNS>(h, x, all);
  CHECK(static_cast<float>(h.Lane(2)) == 8.5f && static_cast<float>(h.Lane(3)) == 0.0f);
  R::StoreAlign<half, R::StoreDist::DIST_PACK_B32>(ha + 128, h, all);
  CHECK(static_cast<float>(ha[129]) == 8.5f && static_cast<float>(ha[191]) == 39.5f);
  CHECK(static_cast<float>(ha[192]) == 192.0f);
  // Layout ONE puts the narrowed value in the odd half of each pair.
  static constexpr R::CastTrait odd = {R::RegLayout::ONE, R::SatMode::NO_SAT,
                                       R::MaskMergeMode::ZEROING, RoundMode::CAST_RINT};
  R::Cast<half, float, odd>(h, x, all);
  CHECK(static_cast<float>(h.Lane(0)) == 0.0f && static_cast<float>(h.Lane(1)) == 8.0f);
}

__simd_vf__ inline void Reductions(__ubuf__ float* a) {
  R::MaskReg all = R::CreateMask<float>();
  R::RegTensor<float> x, d, y;
  R::LoadAlign(x, a + 64);  // 64..127
  R::ReduceSum(d, x, all);
  CHECK(d.Lane(0) == 6112.0f && d.Lane(1) == 0.0f);
  R::Muls(y, x, -1.0f, all);
  R::Reduce<R::ReduceType::MIN>(d, y, all);
  CHECK(d.Lane(0) == -127.0f && d.Lane<uint32_t>(1) == 63u);
  R::ReduceMax(d, x, R::CreateMask<float, R::MaskPattern::VL8>());
  CHECK(d.Lane(0) == 71.0f && d.Lane<uint32_t>(1) == 7u);
  R::MaskReg big;
  R::Compares<float, CMPMODE::GE>(big, x, 100.0f, all);
  CHECK(!big.Active<float>(35) && big.Active<float>(36));
  R::Duplicate(y, 0.0f);
  R::Select(d, x, y, big);
  CHECK(d.Lane(35) == 0.0f && d.Lane(36) == 100.0f);
  R::Compare<float, CMPMODE::LT>(big, y, x, all);
  CHECK(big.Active<float>(0));
  // Div with a flush-to-zero algorithm drops a subnormal quotient; the default keeps it.
  R::Duplicate(x, 1e-30f);
  R::Duplicate(y, 1e10f);
  R::Div(d, x, y, all);
  CHECK(d.Lane(0) > 0.0f);
  static constexpr R::DivSpecificMode ftz = {R::MaskMergeMode::ZEROING, false,
                                             DivAlgo::PRECISION_1ULP_FTZ_TRUE};
  R::Div<float, &ftz>(d, x, y, all);
  CHECK(d.Lane(0) == 0.0f);
}

__simd_vf__ inline void Unaligned(__ubuf__ float* a) {
  R::MaskReg all = R::CreateMask<float>();
  R::RegTensor<float> x;
  R::UnalignRegForLoad in;
  __ubuf__ float* from = a + 3;  // 12 bytes past a block boundary
  R::LoadUnAlignPre(in, from);
  R::LoadUnAlign(x, in, from, 64);
  CHECK(x.Lane(0) == 3.0f && x.Lane(63) == 66.0f && from == a + 67);
  // 8 floats from byte 4 of a block: the 7 that end the block go out, the 8th waits; 6 more
  // continue it inside the next block and wait too, until StoreUnAlignPost.
  R::UnalignRegForStore out;
  __ubuf__ float* to = a + 385;
  R::StoreUnAlign(to, x, out, 8);
  CHECK(a[385] == 3.0f && a[391] == 9.0f && a[392] == 392.0f && to == a + 393);
  R::StoreUnAlign(to, x, out, 6);
  CHECK(a[392] == 392.0f && a[393] == 393.0f && to == a + 399);
  R::StoreUnAlignPost(to, out, 0);
  CHECK(a[392] == 10.0f && a[393] == 3.0f && a[398] == 8.0f && a[399] == 399.0f);
  // An AddrReg offset of 2 * 64 elements.
  R::AddrReg at = R::CreateAddrReg<float>(2, 64);
  R::LoadAlign(x, a, at);
  CHECK(x.Lane(0) == 128.0f);
  R::ReduceDataBlock<R::ReduceType::MAX>(x, x, all);
  CHECK(x.Lane(0) == 135.0f && x.Lane(7) == 191.0f && x.Lane(8) == 0.0f);
  R::Arange(x, 2.5f);
  CHECK(x.Lane(0) == 2.5f && x.Lane(63) == 65.5f);
  R::Truncate<float, RoundMode::CAST_FLOOR>(x, x, all);
  CHECK(x.Lane(0) == 2.0f && x.Lane(1) == 3.0f);
}

__simd_vf__ inline void Bits(__ubuf__ float* a) {
  R::MaskReg all32 = R::CreateMask<uint32_t>();
  R::RegTensor<int16_t> s16, d16;
  R::MaskReg all16 = R::CreateMask<int16_t>();
  R::Duplicate(s16, static_cast<int16_t>(-21846));  // 1010101010101010
  R::ShiftLefts(d16, s16, 1, all16);
  CHECK(static_cast<uint16_t>(d16.Lane(0)) == 0xD554u);  // the sign bit kept
  R::ShiftRights(d16, s16, 3, all16);
  CHECK(static_cast<uint16_t>(d16.Lane(0)) == 0xF555u);  // the sign bit copied
  R::RegTensor<uint16_t> u16, v16;
  R::Duplicate(u16, static_cast<uint16_t>(0xAAAAu));
  R::ShiftRights(v16, u16, 1, all16);
  CHECK(v16.Lane(5) == 0x5555u);
  R::ShiftLefts(v16, u16, 16, all16);
  CHECK(v16.Lane(5) == 0u);
  R::RegTensor<uint16_t> by;
  R::Arange(by, static_cast<uint16_t>(0));  // lane i shifts by i
  R::ShiftRight(v16, u16, by, all16);
  CHECK(v16.Lane(0) == 0xAAAAu && v16.Lane(4) == 0x0AAAu && v16.Lane(20) == 0u);
  R::ShiftLeft(d16, s16, by, all16);
  CHECK(static_cast<uint16_t>(d16.Lane(2)) == 0xAAA8u);  // 0xAAAA << 2, its sign bit kept
  R::RegTensor<uint32_t> p, q, r;
  R::Duplicate(p, 0xF0F0u);
  R::Duplicate(q, 0xFF00u);
  R::And(r, p, q, all32);
  CHECK(r.Lane(0) == 0xF000u);
  R::Xor(r, p, q, all32);
  CHECK(r.Lane(63) == 0x0FF0u);
  R::Not(r, p, all32);
  CHECK(r.Lane(1) == 0xFFFF0F0Fu);
  // Interleave pairs the lanes of two registers; DeInterleave takes them apart again.
  R::RegTensor<float> x, y, lo, hi, back0, back1;
  R::LoadAlign(x, a);       // 0..63
  R::LoadAlign(y, a + 64);  // 64..127
  R::Interleave(lo, hi, x, y);
  CHECK(lo.Lane(0) == 0.0f && lo.Lane(1) == 64.0f && lo.Lane(2) == 1.0f && hi.Lane(0) == 32.0f &&
        hi.Lane(63) == 127.0f);
  R::DeInterleave(back0, back1, lo, hi);
  CHECK(back0.Lane(17) == 17.0f && back1.Lane(17) == 81.0f);
  R::RegTensor<uint32_t> index;
  R::Arange(index, 0u);
  R::MaskReg every = R::CreateMask<uint32_t>();
  R::Muls(index, index, 0u, every);
  R::Adds(index, index, 63u, every);  // every lane reads lane 63
  R::Gather(lo, x, index);
  CHECK(lo.Lane(0) == 63.0f && lo.Lane(40) == 63.0f);
  // Mask registers: Not and And.
  R::MaskReg first8 = R::CreateMask<float, R::MaskPattern::VL8>(), rest, none;
  R::Not(rest, first8, all32);
  CHECK(!rest.Active<float>(7) && rest.Active<float>(8));
  R::And(none, rest, first8, all32);
  CHECK(!none.Active<float>(0) && !none.Active<float>(8));
}

__simd_vf__ inline void MaskMoves(__ubuf__ float* a) {
  __ubuf__ uint8_t* bits = reinterpret_cast<__ubuf__ uint8_t*>(a + 448);  // 256 spare bytes
  for (int i = 0; i < 128; ++i) bits[i] = 0;
  bits[0] = 0x11;   // register bytes 0 and 4: float lanes 0 and 1
  bits[1] = 0x01;   // register byte 8: float lane 2
  bits[31] = 0x80;  // register byte 255, the last
  R::MaskReg m;
  R::LoadAlign(m, bits);
  CHECK(m.Active<float>(0) && m.Active<float>(1) && m.Active<float>(2) && !m.Active<float>(3));
  CHECK(m.Active<uint8_t>(255) && !m.Active<uint8_t>(254));
  // Up-sampled: 16 bytes, each bit for two register bytes (bit 2: bytes 4 and 5).
  bits[0] = 0x04;
  R::LoadAlign<uint8_t, R::MaskDist::DIST_US>(m, bits);
  CHECK(!m.Active<uint8_t>(3) && m.Active<uint8_t>(4) && m.Active<uint8_t>(5));
  CHECK(!m.Active<uint8_t>(6) && !m.Active<uint8_t>(255));  // byte 31 is not read
  // Down-sampled: 64 bytes, every other bit (register byte 3 is bit 6; bit 255 is dropped).
  bits[0] = 0x40;
  R::LoadAlign<uint8_t, R::MaskDist::DIST_DS>(m, bits);
  CHECK(m.Active<uint8_t>(3) && !m.Active<uint8_t>(2) && !m.Active<uint8_t>(127));
  // Stores: eight float lanes' mask (32 register bytes), as it is and packed.
  R::MaskReg vl8 = R::CreateMask<float, R::MaskPattern::VL8>();
  __ubuf__ uint8_t* out = bits + 64;
  R::StoreAlign<uint8_t, R::PostLiteral::POST_MODE_UPDATE>(out, vl8, 32);
  CHECK(bits[64] == 0xFF && bits[67] == 0xFF && bits[68] == 0 && out == bits + 96);
  R::StoreAlign<uint8_t, R::MaskDist::DIST_PACK>(out, vl8);
  CHECK(bits[96] == 0xFF && bits[97] == 0xFF && bits[98] == 0);
  R::MaskReg back;
  R::LoadAlign(back, bits, R::CreateAddrReg<uint8_t>(2, 32));  // bits + 64
  CHECK(back.Active<float>(7) && !back.Active<float>(8));
  // A mask from a register's bits: block 1 (bytes 8..15) of a b32 register, a bit per float.
  R::RegTensor<uint32_t> flags;
  R::Duplicate(flags, 0u);
  flags.SetLane<uint32_t>(2, 0x5u);  // bits 0 and 2 of block 1: floats 0 and 2
  R::MaskReg from_bits;
  R::MaskGenWithRegTensor<uint32_t, 1>(from_bits, flags);
  CHECK(from_bits.Active<float>(0) && !from_bits.Active<float>(1) && from_bits.Active<float>(2));
}

__simd_vf__ inline void ByIndex(__ubuf__ float* a, __ubuf__ half* ha) {
  R::MaskReg all32 = R::CreateMask<uint32_t>();
  R::RegTensor<uint32_t> index;
  R::Arange(index, 0u);
  R::Muls(index, index, 3u, all32);  // lane i reads element 3i
  R::RegTensor<float> x;
  R::MaskReg first8 = R::CreateMask<float, R::MaskPattern::VL8>();
  R::Gather(x, a, index, first8);
  CHECK(x.Lane(0) == 0.0f && x.Lane(7) == 21.0f && x.Lane(8) == 0.0f);  // unselected: zero
  // Bytes widened to 16 bits, zeros above: half 1.0 is 0x3C00, its bytes 0x00 and 0x3C.
  R::RegTensor<uint16_t> wide, index16;
  R::Arange(index16, static_cast<uint16_t>(0));
  R::MaskReg all16 = R::CreateMask<uint16_t>();
  R::Gather(wide, reinterpret_cast<__ubuf__ uint8_t*>(ha), index16, all16);
  CHECK(wide.Lane(2) == 0x00u && wide.Lane(3) == 0x3Cu);
  // GatherB: block b from byte offset index[b]; block 1 unselected keeps its bytes.
  R::RegTensor<uint32_t> blocks;
  R::Duplicate(blocks, 64u);  // every block from element 16 (byte 64)
  R::Duplicate(x, -1.0f);
  R::MaskReg skip1 = R::CreateMask<uint32_t, R::MaskPattern::ALL>();
  skip1.Set<uint32_t>(1, false);
  R::GatherB(x, a, blocks, skip1);
  CHECK(x.Lane(0) == 16.0f && x.Lane(7) == 23.0f && x.Lane(8) == -1.0f && x.Lane(16) == 16.0f);
  // Scatter lane i to element 2i + 384 (the even elements of a[384..511]).
  R::Arange(index, 192u);
  R::Muls(index, index, 2u, all32);
  R::Arange(x, 1000.0f);
  R::MaskReg first4 = R::CreateMask<float, R::MaskPattern::VL4>();
  R::Scatter(a, x, index, first4);
  CHECK(a[384] == 1000.0f && a[386] == 1001.0f && a[390] == 1003.0f && a[392] != 1004.0f);
  // Squeeze keeps the selected lanes in order; the AR-form store writes their bytes at AR.
  R::MaskReg odd = R::CreateMask<float, R::MaskPattern::ALL>();
  for (uint32_t i = 0; i < 64; i += 2) odd.Set<float>(i, false);
  R::RegTensor<float> packed;
  R::Squeeze<float, R::GatherMaskMode::STORE_REG>(packed, x, odd);
  CHECK(packed.Lane(0) == 1001.0f && packed.Lane(31) == 1063.0f && packed.Lane(32) == 0.0f);
  R::ClearSpr<AscendC::SpecialPurposeReg::AR>();
  R::UnalignRegForStore out;
  __ubuf__ float* to = a + 448;
  R::Squeeze<float, R::GatherMaskMode::STORE_REG>(packed, x, odd);
  R::StoreUnAlign<float>(to, packed, out);
  R::Squeeze<float, R::GatherMaskMode::STORE_REG>(packed, x, odd);
  R::StoreUnAlign<float>(to, packed, out);
  R::StoreUnAlignPost(to, out);
  CHECK(a[448] == 1001.0f && a[479] == 1063.0f && a[480] == 1001.0f && a[511] == 1063.0f);
  // PairReduceElem: lane i is x[2i] + x[2i+1] over the selected ones; the upper half zero.
  R::RegTensor<float> pairs;
  R::PairReduceElem(pairs, x, odd);  // only the odd lanes count
  CHECK(pairs.Lane(0) == 1001.0f && pairs.Lane(31) == 1063.0f && pairs.Lane(32) == 0.0f);
  R::PairReduceElem(pairs, x, R::CreateMask<float>());
  CHECK(pairs.Lane(1) == 1002.0f + 1003.0f);
  // Histograms: bytes 0..255 once each, then counted into the two bins.
  R::RegTensor<uint8_t> bytes;
  R::Arange(bytes, static_cast<uint8_t>(0));
  R::RegTensor<uint16_t> low, high, cumulative;
  R::Duplicate(low, static_cast<uint16_t>(0));
  R::Duplicate(high, static_cast<uint16_t>(5));
  R::Duplicate(cumulative, static_cast<uint16_t>(0));
  R::MaskReg every8 = R::CreateMask<uint8_t>();
  R::Histograms<uint8_t, uint16_t, R::HistogramsBinType::BIN0, R::HistogramsType::FREQUENCY>(
      low, bytes, every8);
  R::Histograms<uint8_t, uint16_t, R::HistogramsBinType::BIN1, R::HistogramsType::FREQUENCY>(
      high, bytes, every8);
  R::Histograms<uint8_t, uint16_t, R::HistogramsBinType::BIN1, R::HistogramsType::ACCUMULATE>(
      cumulative, bytes, every8);
  CHECK(low.Lane(0) == 1u && low.Lane(127) == 1u && high.Lane(0) == 6u);
  CHECK(cumulative.Lane(0) == 1u && cumulative.Lane(9) == 10u && cumulative.Lane(127) == 128u);
}

__simd_vf__ inline void Counted(__ubuf__ float* a) {
  R::MaskReg all = R::CreateMask<float>();
  R::RegTensor<float> x;
  R::LoadAlign(x, a);
  R::Exp(x, x, all);
  R::StoreAlign(a, x, all);
}

static void Broken(const std::string& which, Ub& ub, GM_ADDR in, GM_ADDR out) {
  R::RegTensor<float> x;
  R::MaskReg all = R::CreateMask<float>();
  GlobalTensor<float> gin, gout;
  gin.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(in), 64);
  gout.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(out), 64);
  if (which == "unwaited-load") {  // the copy in is not waited for
    DataCopy(ub.f, gin, 64);
    R::LoadAlign(x, ub.a);
  }
  if (which == "unwaited-store") {  // nor is the vector function's store, before the copy out
    R::StoreAlign(ub.a, x, all);
    DataCopy(gout, ub.f, 64);
  }
  if (which == "waited") {
    DataCopy(ub.f, gin, 64);
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    R::LoadAlign(x, ub.a);
    R::StoreAlign(ub.a, x, all);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(gout, ub.f, 64);
  }
  if (which == "misaligned") R::LoadAlign(x, ub.a + 1);
  R::MaskReg mask;
  R::RegTensor<uint32_t> far_index;
  R::Duplicate(far_index, 1u << 20);
  if (which == "gather-ub-past") R::Gather(x, ub.a, far_index, all);
  R::UnalignRegForStore ureg;
  if (which == "ar-unsqueezed") {
    R::ClearSpr<AscendC::SpecialPurposeReg::AR>();
    R::StoreUnAlign<float>(ub.a, x, ureg);
  }
  __ubuf__ uint8_t* bytes = reinterpret_cast<__ubuf__ uint8_t*>(ub.a);
  if (which == "mask-misaligned") R::LoadAlign(mask, bytes + 16);
  float host[64] = {};
  if (which == "not-ub") R::LoadAlign(x, host);
  __ubuf__ float* end = reinterpret_cast<__ubuf__ float*>(
      cannbot_ascendc::R().ub_base() + cannbot_ascendc::kUbBytes - 128);
  if (which == "past-ub") R::StoreAlign(end, x, all);
  static constexpr R::CastTrait three = {R::RegLayout::THREE, R::SatMode::NO_SAT,
                                         R::MaskMergeMode::ZEROING, RoundMode::CAST_RINT};
  R::RegTensor<half> h;
  if (which == "layout") R::Cast<half, float, three>(h, x, all);
  R::UnalignRegForLoad unprimed;
  if (which == "no-pre") R::LoadUnAlign(x, unprimed, ub.a + 1);
  R::RegTensor<uint32_t> far;
  R::Duplicate(far, 64u);
  if (which == "gather-past") R::Gather(x, x, far);
}

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  std::vector<float> x(64, 1.0f), y(64, 0.0f);
  CannbotTiling tiling{};
  tiling.block_dim = 1;
  tiling.dtype_bits = 32;
  cannbot_ascendc::Launch(tiling, {x.data()}, {y.data()}, {64, 64},
                          [&](GM_ADDR* in, GM_ADDR* out, GM_ADDR) {
                            Ub ub;
                            if (mode == "counted") {
                              asc_vf_call<Counted>(ub.a);
                            } else if (!mode.empty()) {
                              Broken(mode, ub, in[0], out[0]);
                            } else {
                              asc_vf_call<Masks>(ub.a);
                              Moves(ub.a, ub.ha);
                              Reductions(ub.a);
                              Unaligned(ub.a);
                              Bits(ub.a);
                              MaskMoves(ub.a);
                              ByIndex(ub.a, ub.ha);
                            }
                          });
  std::printf(failures == 0 ? "reg semantics ok\n" : "reg semantics FAILED\n");
  return failures == 0 ? 0 : 1;
}
)";

class AscendcRegTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto dir = TempDir::Create("cannbot-ascendc-reg");
    ASSERT_TRUE(dir.ok());
    dir_ = new TempDir(std::move(*dir));
    built_ = testing::BuildCheckProgram(*dir_, "reg", kRegProgram);
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static CommandResult Run(const std::string& mode) {
    return testing::RunCheckProgram(*dir_, "reg",
                                    mode.empty() ? std::vector<std::string>{}
                                                 : std::vector<std::string>{mode});
  }
  static TempDir* dir_;
  static Status built_;
};
TempDir* AscendcRegTest::dir_ = nullptr;
Status AscendcRegTest::built_ = Status::Ok();

TEST_F(AscendcRegTest, MasksMovesReductionsAndCastsHold) {
  ASSERT_TRUE(built_.ok()) << built_.message();
  const CommandResult run = Run("");
  EXPECT_TRUE(run.exit.Success()) << run.exit.Describe() << "\n" << run.output;
  EXPECT_NE(run.output.find("reg semantics ok"), std::string::npos) << run.output;
}

TEST_F(AscendcRegTest, EachRegisterInstructionCountsOneRepeat) {
  ASSERT_TRUE(built_.ok()) << built_.message();
  const CommandResult run = Run("counted");
  ASSERT_TRUE(run.exit.Success()) << run.output;
  auto stats = ParseStats(run.output);
  ASSERT_TRUE(stats.ok()) << stats.status().message() << "\n" << run.output;
  // The set-up is scalar; a load, an Exp and a store are three repeats, the Exp complex.
  EXPECT_EQ(stats->total.vector_instructions, 3u);
  EXPECT_EQ(stats->total.vector_repeats, 3u);
  EXPECT_EQ(stats->total.vector_complex_repeats, 1u);
}

TEST_F(AscendcRegTest, BadAddressesLayoutsAndHandOffsAreNamed) {
  ASSERT_TRUE(built_.ok()) << built_.message();
  // The same copies and register moves, each waited for: no rule is broken.
  const CommandResult waited = Run("waited");
  EXPECT_TRUE(waited.exit.Success()) << waited.output;
  EXPECT_FALSE(FindViolation(waited.output).has_value()) << waited.output;
  const struct {
    const char* mode;
    const char* rule;
    const char* says;
  } cases[] = {
      {"misaligned", "vector-misaligned", "Reg::LoadAlign needs a 32-byte aligned UB address"},
      {"mask-misaligned", "vector-misaligned", "Reg::LoadAlign (mask) needs a 32-byte aligned"},
      {"not-ub", "ub-out-of-bounds", "outside the Unified Buffer"},
      {"gather-ub-past", "ub-out-of-bounds", "Reg::Gather lane 0: index 1048576"},
      {"ar-unsqueezed", "bad-argument", "no Squeeze<STORE_REG> before it"},
      {"past-ub", "ub-out-of-bounds", "Reg::StoreAlign writes 256 bytes"},
      {"layout", "bad-argument", "RegLayout 3"},
      {"no-pre", "bad-argument", "no LoadUnAlignPre initialised"},
      {"gather-past", "bad-argument", "Reg::Gather index 64 (lane 0)"},
      {"unwaited-load", "missing-sync", "Reg::LoadAlign reaches UB byte 0, which a DataCopy"},
      {"unwaited-store", "missing-sync", "before the writes into it were waited for"},
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
