// cannbot_ascendc_select.h: Compare, CompareScalar, Select, Brcb, Gather and GatherMask, in
// count and mask/repeat forms (the lane model is in cannbot_ascendc_repeat.h).
//
// Semantics (public Ascend C documentation):
// - Compare/CompareScalar write one bit per lane into a mask tensor (any integer element type,
//   read as bytes, least significant bit first): 1 where `src0 <op> src1` holds. Repeat r's
//   results start at bit r * lanes. NaN compares unequal to everything (NE holds, the others
//   do not).
// - Select takes src0 where the selMask bit is 1, else src1 (a tensor, or a scalar in
//   VSEL_TENSOR_SCALAR_MODE). VSEL_CMPMASK_SPR reads the same first `lanes` bits for every
//   repeat; the other modes consume the bits continuously (repeat r from bit r * lanes).
// - Brcb: each repeat takes 8 source elements and fills one 32-byte block of dst with each.
// - Gather: dst[i] = the element at byte srcBaseAddr + srcOffset[i] of src (element-aligned).
// - GatherMask: the elements of src0 whose pattern bit is 1, packed from dst[0]; rsvdCnt says
//   how many. A repeat takes 256 bytes (normal mode) or `mask` elements (reduceMode, counter
//   mode as on Atlas A2: repeatTimes repeats of mask elements each); element j of repeat r is
//   at r * src0RepeatStride * E + (j / E) * src0BlockStride * E + j % E (E per 32-byte block).
//   The pattern is built in (1 even, 2 odd, 3..6 the first..fourth of every four, 7 all; the
//   same for every repeat) or a uint16/uint32 tensor read bit by bit, repeat r's bits from
//   byte r * src1RepeatStride * 32. The instruction leaves the mask register in normal mode.
//
// Written from the public Ascend C documentation; not vendor code. Thread-safety: none.
#ifndef CANNBOT_ASCENDC_SELECT_H
#define CANNBOT_ASCENDC_SELECT_H

#include <cstdint>
#include <type_traits>
#include <vector>

#include "cannbot_ascendc_repeat.h"

namespace AscendC {
namespace cannbot_detail {

// Whether `a mode b` holds (compared in C: float, or int64_t for the register functions).
template <typename C>
inline bool Holds(C a, C b, CMPMODE mode) {
  switch (mode) {
    case CMPMODE::LT: return a < b;
    case CMPMODE::GT: return a > b;
    case CMPMODE::EQ: return a == b;
    case CMPMODE::LE: return a <= b;
    case CMPMODE::GE: return a >= b;
    case CMPMODE::NE: return a != b;
  }
  cannbot_ascendc::Violation("bad-argument", "Compare with an unknown CMPMODE %d",
                             static_cast<int>(mode));
}

// Elements of U that hold `bits` bits.
template <typename U>
inline int64_t MaskElements(uint64_t bits) {
  return static_cast<int64_t>((bits + 8 * sizeof(U) - 1) / (8 * sizeof(U)));
}
template <typename U>
inline bool GetBit(const LocalTensor<U>& t, uint64_t i) {
  const uint8_t* bytes = reinterpret_cast<const uint8_t*>(t.cb_data_);
  return ((bytes[i / 8] >> (i % 8)) & 1u) != 0;
}
template <typename U>
inline void SetBit(const LocalTensor<U>& t, uint64_t i, bool on) {
  uint8_t* bytes = reinterpret_cast<uint8_t*>(t.cb_data_);
  const uint8_t bit = static_cast<uint8_t>(1u << (i % 8));
  bytes[i / 8] = on ? static_cast<uint8_t>(bytes[i / 8] | bit)
                    : static_cast<uint8_t>(bytes[i / 8] & ~bit);
}

// Bits the plan writes or reads continuously: the count, or whole repeats.
inline uint64_t PlanBits(const LanePlan& p) { return p.counter ? p.count : p.repeats * p.lanes; }

// dst bit (r * lanes + j) = src0 lane <mode> b(r, j), for every active lane.
template <typename T, typename U, typename B>
inline void CompareLanes(const LocalTensor<U>& dst, const LocalTensor<T>& src0, Stride s0,
                         const LanePlan& p, CMPMODE mode, const char* api, B b) {
  RequireVectorFloat<T>(api);
  static_assert(std::is_integral<U>::value, "Compare writes its bits into an integer tensor");
  StridedOperand(src0, p, s0, api, Access::kRead);
  Operand(dst, MaskElements<U>(PlanBits(p)), api, Access::kWrite);
  for (uint64_t r = 0; r < p.repeats; ++r) {
    for (uint32_t j = 0; j < p.lanes; ++j) {
      if (!p.On(r, j)) continue;
      const float a = static_cast<float>(src0.cb_data_[LaneIndex<T>(r, j, s0)]);
      SetBit(dst, r * p.lanes + j, Holds<float>(a, b(r, j), mode));
    }
  }
  CountRepeats(p, sizeof(T), false);
}

// dst lane = selMask bit ? src0 lane : b(r, j), for every active lane.
template <typename T, typename U, typename B>
inline void SelectLanes(const LocalTensor<T>& dst, Stride ds, const LocalTensor<U>& sel,
                        const LocalTensor<T>& src0, Stride s0, const LanePlan& p, SELMODE mode,
                        const char* api, B b) {
  static_assert(std::is_integral<U>::value, "Select reads its bits from an integer tensor");
  const bool same_bits = mode == SELMODE::VSEL_CMPMASK_SPR;
  StridedOperand(src0, p, s0, api, Access::kRead);
  Operand(sel, MaskElements<U>(same_bits ? p.lanes : PlanBits(p)), api, Access::kRead);
  StridedOperand(dst, p, ds, api, Access::kWrite);
  T out[cannbot_ascendc::kRepeatBytes / 2];
  for (uint64_t r = 0; r < p.repeats; ++r) {
    for (uint32_t j = 0; j < p.lanes; ++j) {
      if (!p.On(r, j)) continue;
      const bool take0 = GetBit(sel, same_bits ? j : r * p.lanes + j);
      out[j] = take0 ? src0.cb_data_[LaneIndex<T>(r, j, s0)] : b(r, j);
    }
    for (uint32_t j = 0; j < p.lanes; ++j) {
      if (p.On(r, j)) dst.cb_data_[LaneIndex<T>(r, j, ds)] = out[j];
    }
  }
  CountRepeats(p, sizeof(T), false);
}

inline void RequireTensorMode(SELMODE mode, bool scalar, const char* api) {
  if (scalar != (mode == SELMODE::VSEL_TENSOR_SCALAR_MODE)) {
    cannbot_ascendc::Violation(
        "bad-argument",
        "%s: VSEL_TENSOR_SCALAR_MODE takes a scalar src1, the other modes a tensor (mode %d with "
        "a %s)",
        api, static_cast<int>(mode), scalar ? "scalar" : "tensor");
  }
}

}  // namespace cannbot_detail

// ---- Compare / CompareScalar ----
template <typename T, typename U>
inline void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0,
                    const LocalTensor<T>& src1, CMPMODE cmpMode, uint32_t count) {
  const auto p = cannbot_detail::CountPlan(count, cannbot_detail::kLanes<T>);
  cannbot_detail::StridedOperand(src1, p, {}, "Compare", cannbot_detail::Access::kRead);
  cannbot_detail::CompareLanes(dst, src0, {}, p, cmpMode, "Compare", [&](uint64_t r, uint32_t j) {
    return static_cast<float>(src1.cb_data_[cannbot_detail::LaneIndex<T>(r, j, {})]);
  });
}
template <typename T, typename U, bool isSetMask = true, typename MaskType>
inline void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0,
                    const LocalTensor<T>& src1, CMPMODE cmpMode, MaskType mask,
                    uint8_t repeatTimes, const BinaryRepeatParams& rp) {
  const auto p = cannbot_detail::MaskPlan<isSetMask>(cannbot_detail::MaskArg(mask), repeatTimes,
                                                     cannbot_detail::kLanes<T>, "Compare");
  const cannbot_detail::Stride s1{rp.src1BlkStride, rp.src1RepStride};
  cannbot_detail::StridedOperand(src1, p, s1, "Compare", cannbot_detail::Access::kRead);
  cannbot_detail::CompareLanes(dst, src0, {rp.src0BlkStride, rp.src0RepStride}, p, cmpMode,
                               "Compare", [&](uint64_t r, uint32_t j) {
                                 return static_cast<float>(
                                     src1.cb_data_[cannbot_detail::LaneIndex<T>(r, j, s1)]);
                               });
}
template <typename T, typename U>
inline void CompareScalar(const LocalTensor<U>& dst, const LocalTensor<T>& src0,
                          const typename cannbot_detail::NonDeduced<T>::type& src1Scalar,
                          CMPMODE cmpMode, uint32_t count) {
  const float b = static_cast<float>(static_cast<T>(src1Scalar));
  cannbot_detail::CompareLanes(dst, src0, {}, cannbot_detail::CountPlan(count, cannbot_detail::kLanes<T>),
                               cmpMode, "CompareScalar", [b](uint64_t, uint32_t) { return b; });
}
template <typename T, typename U, bool isSetMask = true, typename MaskType>
inline void CompareScalar(const LocalTensor<U>& dst, const LocalTensor<T>& src0,
                          const typename cannbot_detail::NonDeduced<T>::type& src1Scalar,
                          CMPMODE cmpMode, MaskType mask, uint8_t repeatTimes,
                          const UnaryRepeatParams& rp) {
  const auto p = cannbot_detail::MaskPlan<isSetMask>(cannbot_detail::MaskArg(mask), repeatTimes,
                                                     cannbot_detail::kLanes<T>, "CompareScalar");
  const float b = static_cast<float>(static_cast<T>(src1Scalar));
  cannbot_detail::CompareLanes(dst, src0, {rp.srcBlkStride, rp.srcRepStride}, p, cmpMode,
                               "CompareScalar", [b](uint64_t, uint32_t) { return b; });
}

// ---- Select ----
template <typename T, typename U>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask,
                   const LocalTensor<T>& src0, const LocalTensor<T>& src1, SELMODE selMode,
                   uint32_t count) {
  cannbot_detail::RequireTensorMode(selMode, false, "Select");
  const auto p = cannbot_detail::CountPlan(count, cannbot_detail::kLanes<T>);
  cannbot_detail::StridedOperand(src1, p, {}, "Select", cannbot_detail::Access::kRead);
  cannbot_detail::SelectLanes(dst, {}, selMask, src0, {}, p, selMode, "Select",
                              [&](uint64_t r, uint32_t j) {
                                return src1.cb_data_[cannbot_detail::LaneIndex<T>(r, j, {})];
                              });
}
template <typename T, typename U>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask,
                   const LocalTensor<T>& src0,
                   const typename cannbot_detail::NonDeduced<T>::type& src1Scalar,
                   SELMODE selMode, uint32_t count) {
  cannbot_detail::RequireTensorMode(selMode, true, "Select");
  const T b = static_cast<T>(src1Scalar);
  cannbot_detail::SelectLanes(dst, {}, selMask, src0, {},
                              cannbot_detail::CountPlan(count, cannbot_detail::kLanes<T>), selMode,
                              "Select", [b](uint64_t, uint32_t) { return b; });
}
template <typename T, typename U, bool isSetMask = true, typename MaskType>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask,
                   const LocalTensor<T>& src0, const LocalTensor<T>& src1, SELMODE selMode,
                   MaskType mask, uint8_t repeatTimes, const BinaryRepeatParams& rp) {
  cannbot_detail::RequireTensorMode(selMode, false, "Select");
  const auto p = cannbot_detail::MaskPlan<isSetMask>(cannbot_detail::MaskArg(mask), repeatTimes,
                                                     cannbot_detail::kLanes<T>, "Select");
  const cannbot_detail::Stride s1{rp.src1BlkStride, rp.src1RepStride};
  cannbot_detail::StridedOperand(src1, p, s1, "Select", cannbot_detail::Access::kRead);
  cannbot_detail::SelectLanes(dst, {rp.dstBlkStride, rp.dstRepStride}, selMask, src0,
                              {rp.src0BlkStride, rp.src0RepStride}, p, selMode, "Select",
                              [&](uint64_t r, uint32_t j) {
                                return src1.cb_data_[cannbot_detail::LaneIndex<T>(r, j, s1)];
                              });
}
template <typename T, typename U, bool isSetMask = true, typename MaskType>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask,
                   const LocalTensor<T>& src0,
                   const typename cannbot_detail::NonDeduced<T>::type& src1Scalar,
                   SELMODE selMode, MaskType mask, uint8_t repeatTimes,
                   const BinaryRepeatParams& rp) {
  cannbot_detail::RequireTensorMode(selMode, true, "Select");
  const auto p = cannbot_detail::MaskPlan<isSetMask>(cannbot_detail::MaskArg(mask), repeatTimes,
                                                     cannbot_detail::kLanes<T>, "Select");
  const T b = static_cast<T>(src1Scalar);
  cannbot_detail::SelectLanes(dst, {rp.dstBlkStride, rp.dstRepStride}, selMask, src0,
                              {rp.src0BlkStride, rp.src0RepStride}, p, selMode, "Select",
                              [b](uint64_t, uint32_t) { return b; });
}

// ---- Brcb: 8 elements per repeat, each broadcast to one 32-byte block ----
template <typename T>
inline void Brcb(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint8_t repeatTimes,
                 const BrcbRepeatParams& rp) {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4, "Brcb takes 16- or 32-bit elements");
  constexpr uint64_t e = cannbot_ascendc::kBlockBytes / sizeof(T);
  const uint64_t reach =
      repeatTimes == 0 ? 0 : (repeatTimes - 1) * rp.dstRepStride * e + 7 * rp.dstBlkStride * e + e;
  cannbot_detail::Operand(src, repeatTimes * 8, "Brcb", cannbot_detail::Access::kRead);
  cannbot_detail::Operand(dst, static_cast<int64_t>(reach), "Brcb", cannbot_detail::Access::kWrite);
  for (uint64_t r = 0; r < repeatTimes; ++r) {
    for (uint64_t b = 0; b < 8; ++b) {
      const T v = src.cb_data_[r * 8 + b];
      T* block = dst.cb_data_ + r * rp.dstRepStride * e + b * rp.dstBlkStride * e;
      for (uint64_t k = 0; k < e; ++k) block[k] = v;
    }
  }
  cannbot_ascendc::CountVectorInstruction(
      repeatTimes, static_cast<uint64_t>(repeatTimes) * cannbot_ascendc::kRepeatBytes, false);
}

// ---- Gather: dst[i] = src at byte srcBaseAddr + srcOffset[i] ----
template <typename T>
inline void Gather(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                   const LocalTensor<uint32_t>& srcOffset, const uint32_t srcBaseAddr,
                   const uint32_t count) {
  cannbot_detail::Operand(srcOffset, count, "Gather", cannbot_detail::Access::kRead);
  cannbot_detail::Operand(src, 0, "Gather", cannbot_detail::Access::kRead);
  cannbot_detail::Operand(dst, count, "Gather", cannbot_detail::Access::kWrite);
  for (uint32_t i = 0; i < count; ++i) {
    const uint64_t byte = static_cast<uint64_t>(srcBaseAddr) + srcOffset.cb_data_[i];
    if (byte % sizeof(T) != 0 || byte / sizeof(T) >= src.cb_size_) {
      cannbot_ascendc::Violation(
          "ub-out-of-bounds",
          "Gather offset %llu (element %u) is not an element of the source, which holds %llu "
          "elements of %u bytes",
          static_cast<unsigned long long>(byte), i, static_cast<unsigned long long>(src.cb_size_),
          static_cast<unsigned>(sizeof(T)));
    }
    dst.cb_data_[i] = src.cb_data_[byte / sizeof(T)];
  }
  cannbot_ascendc::CountVector(static_cast<uint64_t>(count) * sizeof(T), false);
}

// ---- GatherMask: the src0 elements a pattern selects, packed into dst ----
enum class GatherMaskMode : uint8_t { VERSION_V1 = 0, VERSION_V2 = 1 };
constexpr GatherMaskMode defaultGatherMaskMode = GatherMaskMode::VERSION_V1;
constexpr GatherMaskMode defaultGahterMaskMode = defaultGatherMaskMode;  // the older spelling

struct GatherMaskParams {
  GatherMaskParams() = default;
  GatherMaskParams(uint8_t src0BlockStrideIn, uint16_t repeatTimesIn, uint16_t src0RepeatStrideIn,
                   uint8_t src1RepeatStrideIn)
      : src0BlockStride(src0BlockStrideIn), repeatTimes(repeatTimesIn),
        src0RepeatStride(src0RepeatStrideIn), src1RepeatStride(src1RepeatStrideIn) {}
  uint8_t src0BlockStride = 1;
  uint16_t repeatTimes = 0;
  uint16_t src0RepeatStride = 0;
  uint8_t src1RepeatStride = 0;
};

namespace cannbot_detail {

// Elements per repeat: 256 bytes, or in counter mode (reduceMode) the mask.
template <typename T>
inline uint64_t GatherMaskRepeatLength(bool reduce_mode, uint32_t mask) {
  if (!reduce_mode) return kLanes<T>;
  if (mask == 0) {
    cannbot_ascendc::Violation("bad-argument",
                               "GatherMask in counter mode (reduceMode = true) has mask 0; the "
                               "mask is the number of elements each repeat takes, at least 1");
  }
  // A repeat longer than the UB holds reaches past any operand; said before the lanes are walked.
  if (mask > cannbot_ascendc::kUbBytes / sizeof(T)) {
    cannbot_ascendc::Violation("ub-out-of-bounds",
                               "GatherMask in counter mode (reduceMode = true) takes mask = %u "
                               "elements a repeat, more than the %u bytes of UB hold",
                               mask, cannbot_ascendc::kUbBytes);
  }
  return mask;
}

// Packs the selected elements of src0 into dst; `selected(r, j)` is lane j of repeat r's bit.
template <typename T, typename Selected>
inline void GatherSelected(const LocalTensor<T>& dst, const LocalTensor<T>& src0,
                           const GatherMaskParams& gp, uint64_t lanes, Selected selected,
                           uint64_t& rsvdCnt) {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4, "GatherMask takes 16- or 32-bit elements");
  constexpr uint64_t e = cannbot_ascendc::kBlockBytes / sizeof(T);
  const char* api = "GatherMask";
  std::vector<uint64_t> from;  // the src0 elements picked, in order
  uint64_t reach = 0;
  for (uint64_t r = 0; r < gp.repeatTimes; ++r) {
    for (uint64_t j = 0; j < lanes; ++j) {
      if (!selected(r, j)) continue;
      from.push_back(r * gp.src0RepeatStride * e + (j / e) * gp.src0BlockStride * e + j % e);
      reach = from.back() + 1 > reach ? from.back() + 1 : reach;
    }
  }
  if (reach > 0x7fffffffu || from.size() > 0x7fffffffu) {
    cannbot_ascendc::Violation("ub-out-of-bounds", "GatherMask reaches element %llu of src0",
                               static_cast<unsigned long long>(reach));
  }
  Operand(src0, static_cast<int64_t>(reach), api, Access::kRead);
  Operand(dst, static_cast<int64_t>(from.size()), api, Access::kWrite);
  // Every source element is read before dst is written: dst may overlap src0.
  std::vector<T> out;
  out.reserve(from.size());
  for (uint64_t i : from) out.push_back(src0.cb_data_[i]);
  for (size_t i = 0; i < out.size(); ++i) dst.cb_data_[i] = out[i];
  rsvdCnt = out.size();
  cannbot_ascendc::R().vector_mask().counter = false;  // documented: normal mode afterwards
  cannbot_ascendc::CountVector(gp.repeatTimes * lanes * sizeof(T), false);
}

}  // namespace cannbot_detail

// The built-in patterns, the same bits for every repeat.
template <typename T, GatherMaskMode mode = defaultGatherMaskMode>
inline void GatherMask(const LocalTensor<T>& dst, const LocalTensor<T>& src0,
                       const uint8_t src1Pattern, const bool reduceMode, const uint32_t mask,
                       const GatherMaskParams& gatherMaskParams, uint64_t& rsvdCnt) {
  if (src1Pattern < 1 || src1Pattern > 7) {
    cannbot_ascendc::Violation("bad-argument",
                               "GatherMask has built-in pattern %u; the built-in patterns are "
                               "1..7 (1 even elements, 2 odd, 3..6 one of every four, 7 all)",
                               static_cast<unsigned>(src1Pattern));
  }
  const uint64_t lanes = cannbot_detail::GatherMaskRepeatLength<T>(reduceMode, mask);
  cannbot_detail::GatherSelected(
      dst, src0, gatherMaskParams, lanes,
      [src1Pattern](uint64_t, uint64_t j) {
        if (src1Pattern == 7) return true;
        if (src1Pattern <= 2) return j % 2 == static_cast<uint64_t>(src1Pattern - 1);
        return j % 4 == static_cast<uint64_t>(src1Pattern - 3);
      },
      rsvdCnt);
}

// A pattern tensor: uint16_t bits for 16-bit elements, uint32_t for 32-bit ones.
template <typename T, typename U, GatherMaskMode mode = defaultGatherMaskMode>
inline void GatherMask(const LocalTensor<T>& dst, const LocalTensor<T>& src0,
                       const LocalTensor<U>& src1Pattern, const bool reduceMode,
                       const uint32_t mask, const GatherMaskParams& gatherMaskParams,
                       uint64_t& rsvdCnt) {
  static_assert(std::is_same<U, uint16_t>::value || std::is_same<U, uint32_t>::value,
                "GatherMask's pattern tensor is uint16_t or uint32_t");
  static_assert(sizeof(U) == sizeof(T),
                "GatherMask's pattern is uint16_t for 16-bit elements, uint32_t for 32-bit ones");
  const GatherMaskParams& gp = gatherMaskParams;
  const uint64_t lanes = cannbot_detail::GatherMaskRepeatLength<T>(reduceMode, mask);
  const uint64_t repeat_bits = 8u * cannbot_ascendc::kBlockBytes * gp.src1RepeatStride;
  const uint64_t bits = gp.repeatTimes == 0 ? 0 : (gp.repeatTimes - 1) * repeat_bits + lanes;
  cannbot_detail::Operand(src1Pattern, cannbot_detail::MaskElements<U>(bits), "GatherMask",
                          cannbot_detail::Access::kRead);
  cannbot_detail::GatherSelected(
      dst, src0, gatherMaskParams, lanes,
      [&](uint64_t r, uint64_t j) {
        return cannbot_detail::GetBit(src1Pattern, r * repeat_bits + j);
      },
      rsvdCnt);
}

}  // namespace AscendC

#endif  // CANNBOT_ASCENDC_SELECT_H
