// cannbot_ascendc_repeat.h: the mask and repeat forms of the vector instructions, the vector
// mask register, and the instructions that compare and select: Compare, CompareScalar, Select,
// Brcb and Gather.
//
// The data model (public Ascend C documentation, "Common Parameters" of the basic vector
// APIs): an instruction runs `repeatTimes` iterations; in each, every operand supplies eight
// 32-byte data blocks, i.e. 256 bytes of its widest operand's elements (the lanes). Lane j of
// repeat r of an operand with E elements per block lives at element
//   r * repStride * E + (j / E) * blkStride * E + j % E
// and takes part when the mask selects it:
// - continuous mode, `uint64_t mask`: lanes 0 .. mask-1 (1..128 for 16-bit, 1..64 for 32-bit);
// - bit mode, `uint64_t mask[2]`: lane j when bit j % 64 of mask[j / 64] is set (32-bit
//   elements use mask[0] only);
// - isSetMask = false: the argument is ignored and the mask register applies (SetVectorMask);
//   with isSetMask = true the instruction leaves its mask in the register, as on the device;
// - counter mode (SetMaskCount): the mask is a number of elements (the argument, or the
//   register's low word with isSetMask = false); repeats follow from it, full ones and then a
//   partial one, and repeatTimes is ignored.
// Within a repeat every source lane is read before any destination lane is written. Lanes the
// mask leaves out keep their destination values. Every operand is checked like a count-form
// operand over the extent its active lanes reach (alignment, bounds, pipe hand-offs), and each
// instruction counts its repeats whatever the mask: a partial repeat costs a whole one.
//
// Written from the public Ascend C documentation; not vendor code. Thread-safety: none.
#ifndef CANNBOT_ASCENDC_REPEAT_H
#define CANNBOT_ASCENDC_REPEAT_H

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "cannbot_ascendc_cast.h"
#include "cannbot_ascendc_vector.h"

namespace AscendC {

enum class MaskMode : uint8_t { NORMAL = 0, COUNTER };
enum class CMPMODE : uint8_t { LT = 0, GT, EQ, LE, GE, NE };
enum class SELMODE : uint8_t {
  VSEL_CMPMASK_SPR = 0,     // the same selMask bits (one repeat's worth) for every repeat
  VSEL_TENSOR_SCALAR_MODE,  // src1 is a scalar; selMask bits consumed continuously
  VSEL_TENSOR_TENSOR_MODE,  // two tensors; selMask bits consumed continuously
};
constexpr uint64_t MASK_PLACEHOLDER = 0;
constexpr uint64_t MASK_PLACEHOLDER_LIST[2] = {0, 0};

struct BinaryRepeatParams {
  BinaryRepeatParams() = default;
  BinaryRepeatParams(uint8_t dstBlkStrideIn, uint8_t src0BlkStrideIn, uint8_t src1BlkStrideIn,
                     uint8_t dstRepStrideIn, uint8_t src0RepStrideIn, uint8_t src1RepStrideIn)
      : dstBlkStride(dstBlkStrideIn), src0BlkStride(src0BlkStrideIn),
        src1BlkStride(src1BlkStrideIn), dstRepStride(dstRepStrideIn),
        src0RepStride(src0RepStrideIn), src1RepStride(src1RepStrideIn) {}
  uint32_t blockNumber = 8;
  uint8_t dstBlkStride = 1;
  uint8_t src0BlkStride = 1;
  uint8_t src1BlkStride = 1;
  uint8_t dstRepStride = 8;
  uint8_t src0RepStride = 8;
  uint8_t src1RepStride = 8;
  bool repeatStrideMode = false;
  bool strideSizeMode = false;
};

struct UnaryRepeatParams {
  UnaryRepeatParams() = default;
  UnaryRepeatParams(uint16_t dstBlkStrideIn, uint16_t srcBlkStrideIn, uint8_t dstRepStrideIn,
                    uint8_t srcRepStrideIn, bool halfBlockIn = false)
      : dstBlkStride(dstBlkStrideIn), srcBlkStride(srcBlkStrideIn), dstRepStride(dstRepStrideIn),
        srcRepStride(srcRepStrideIn), halfBlock(halfBlockIn) {}
  uint32_t blockNumber = 8;
  uint16_t dstBlkStride = 1;
  uint16_t srcBlkStride = 1;
  uint8_t dstRepStride = 8;
  uint8_t srcRepStride = 8;
  bool repeatStrideMode = false;
  bool strideSizeMode = false;
  bool halfBlock = false;
};

struct BrcbRepeatParams {
  BrcbRepeatParams() = default;
  BrcbRepeatParams(uint16_t dstBlkStrideIn, uint16_t dstRepStrideIn)
      : dstBlkStride(dstBlkStrideIn), dstRepStride(dstRepStrideIn) {}
  uint16_t dstBlkStride = 1;
  uint16_t dstRepStride = 8;
};

// ---- the mask register ----
inline void SetMaskCount() { cannbot_ascendc::R().vector_mask().counter = true; }
inline void SetMaskNorm() { cannbot_ascendc::R().vector_mask().counter = false; }
inline void ResetMask() {
  cannbot_ascendc::VectorMask& m = cannbot_ascendc::R().vector_mask();
  m.low = ~0ull;
  m.high = ~0ull;
}
template <typename T, MaskMode mode = MaskMode::NORMAL>
inline void SetVectorMask(const uint64_t maskHigh, const uint64_t maskLow) {
  cannbot_ascendc::VectorMask& m = cannbot_ascendc::R().vector_mask();
  m.high = maskHigh;
  m.low = maskLow;
}
// Normal mode: the first `len` lanes; counter mode: `len` elements.
template <typename T, MaskMode mode = MaskMode::NORMAL>
inline void SetVectorMask(int32_t len) {
  cannbot_ascendc::VectorMask& m = cannbot_ascendc::R().vector_mask();
  if (mode == MaskMode::COUNTER || m.counter) {
    m.high = 0;
    m.low = static_cast<uint64_t>(len);
    return;
  }
  const uint64_t n = len < 0 ? 0 : static_cast<uint64_t>(len);
  m.low = n >= 64 ? ~0ull : (1ull << n) - 1;
  m.high = n >= 128 ? ~0ull : n > 64 ? (1ull << (n - 64)) - 1 : 0;
}

// The older spelling of SetVectorMask (AscendCUtils::SetMask<T>(len) or (high, low)).
struct AscendCUtils {
  template <typename T>
  static void SetMask(int32_t len) {
    SetVectorMask<T>(len);
  }
  template <typename T>
  static void SetMask(const uint64_t maskHigh, const uint64_t maskLow) {
    SetVectorMask<T>(maskHigh, maskLow);
  }
};

namespace cannbot_detail {

// A mask argument as the instruction received it.
struct MaskArg {
  explicit MaskArg(uint64_t continuous) : bit_mode(false), low(continuous) {}
  explicit MaskArg(const uint64_t* bits) : bit_mode(true), low(bits[0]), high(bits[1]) {}
  bool bit_mode;
  uint64_t low;
  uint64_t high = 0;
};

// Which lanes of which repeats one instruction takes.
struct LanePlan {
  uint32_t lanes = 0;    // per repeat: 256 bytes of the widest operand
  uint64_t repeats = 0;
  bool counter = false;  // counter mode: the first `count` lanes, repeat after repeat
  uint64_t count = 0;
  uint64_t bits[2] = {0, 0};  // normal mode: lane j when bit j % 64 of bits[j / 64] is set

  bool On(uint64_t r, uint32_t j) const {
    if (counter) return r * lanes + j < count;
    return ((bits[j / 64] >> (j % 64)) & 1u) != 0;
  }
  uint64_t ActiveLanes() const {
    if (counter) return count;
    uint64_t per_repeat = 0;
    for (uint32_t j = 0; j < lanes; ++j) per_repeat += On(0, j) ? 1 : 0;
    return per_repeat * repeats;
  }
};

// The count forms' plan: `count` elements from the start, as counter mode takes them.
inline LanePlan CountPlan(uint64_t count, uint32_t lanes) {
  LanePlan p;
  p.lanes = lanes;
  p.counter = true;
  p.count = count;
  p.repeats = (count + lanes - 1) / lanes;
  return p;
}

template <bool kSetMask>
inline LanePlan MaskPlan(const MaskArg& mask, uint8_t repeat_times, uint32_t lanes,
                         const char* api) {
  using cannbot_ascendc::Violation;
  cannbot_ascendc::VectorMask& reg = cannbot_ascendc::R().vector_mask();
  if (reg.counter) return CountPlan(kSetMask ? mask.low : reg.low, lanes);
  LanePlan p;
  p.lanes = lanes;
  p.repeats = repeat_times;
  if (!kSetMask) {
    p.bits[0] = reg.low;
    p.bits[1] = lanes > 64 ? reg.high : 0;
    return p;
  }
  if (!mask.bit_mode) {
    if (mask.low < 1 || mask.low > lanes) {
      Violation("bad-argument",
                "%s has mask %llu; in continuous mode the mask is the number of elements each "
                "repeat takes, 1..%u for this element type",
                api, static_cast<unsigned long long>(mask.low), lanes);
    }
    p.bits[0] = mask.low >= 64 ? ~0ull : (1ull << mask.low) - 1;
    p.bits[1] = mask.low >= 128 ? ~0ull : mask.low > 64 ? (1ull << (mask.low - 64)) - 1 : 0;
  } else {
    if (lanes <= 64 && mask.high != 0) {
      Violation("bad-argument",
                "%s has a bit mask with mask[1] = 0x%llx; 32-bit elements use mask[0] only "
                "(64 lanes per repeat), mask[1] must be 0",
                api, static_cast<unsigned long long>(mask.high));
    }
    if (mask.low == 0 && mask.high == 0) {
      Violation("bad-argument", "%s has a bit mask with no bit set", api);
    }
    p.bits[0] = mask.low;
    p.bits[1] = mask.high;
  }
  reg.low = p.bits[0];  // the instruction leaves its mask in the register
  reg.high = p.bits[1];
  return p;
}

// Where one operand's lanes live.
struct Stride {
  uint32_t blk = 1;
  uint32_t rep = 8;
};

template <typename T>
inline uint64_t LaneIndex(uint64_t r, uint32_t j, Stride s) {
  constexpr uint32_t e = cannbot_ascendc::kBlockBytes / sizeof(T);
  return r * s.rep * e + static_cast<uint64_t>(j / e) * s.blk * e + j % e;
}

// One past the furthest element the plan's active lanes reach in an operand.
template <typename T>
inline uint64_t Extent(const LanePlan& p, Stride s) {
  uint64_t end = 0;
  for (uint64_t r = 0; r < p.repeats; ++r) {
    for (uint32_t j = 0; j < p.lanes; ++j) {
      if (!p.On(r, j)) continue;
      const uint64_t i = LaneIndex<T>(r, j, s) + 1;
      end = i > end ? i : end;
    }
  }
  return end;
}

template <typename T>
inline void StridedOperand(const LocalTensor<T>& t, const LanePlan& p, Stride s, const char* api,
                           Access access) {
  const uint64_t extent = Extent<T>(p, s);
  if (extent > 0x7fffffffu) {
    cannbot_ascendc::Violation("ub-out-of-bounds", "%s reaches element %llu of an operand", api,
                               static_cast<unsigned long long>(extent));
  }
  Operand(t, static_cast<int64_t>(extent), api, access);
}

inline void CountRepeats(const LanePlan& p, uint32_t widest_bytes, bool complex) {
  cannbot_ascendc::CountVectorInstruction(p.repeats, p.ActiveLanes() * widest_bytes, complex);
}

// dst lane = f(src lane) for every active lane, repeat by repeat.
template <typename D, typename S, typename F>
inline void MapLanes(const LocalTensor<D>& dst, Stride ds, const LocalTensor<S>& src, Stride ss,
                     const LanePlan& p, const char* api, bool complex, F f) {
  StridedOperand(src, p, ss, api, Access::kRead);
  StridedOperand(dst, p, ds, api, Access::kWrite);
  D out[cannbot_ascendc::kRepeatBytes];
  for (uint64_t r = 0; r < p.repeats; ++r) {
    for (uint32_t j = 0; j < p.lanes; ++j) {
      if (p.On(r, j)) out[j] = f(src.cb_data_[LaneIndex<S>(r, j, ss)]);
    }
    for (uint32_t j = 0; j < p.lanes; ++j) {
      if (p.On(r, j)) dst.cb_data_[LaneIndex<D>(r, j, ds)] = out[j];
    }
  }
  CountRepeats(p, static_cast<uint32_t>(sizeof(D) > sizeof(S) ? sizeof(D) : sizeof(S)), complex);
}

template <typename T, typename F>
inline void ZipLanes(const LocalTensor<T>& dst, const LocalTensor<T>& src0,
                     const LocalTensor<T>& src1, const BinaryRepeatParams& rp, const LanePlan& p,
                     const char* api, bool complex, bool integers, F f) {
  RequireVectorMath<T>(api, integers);
  const Stride ds{rp.dstBlkStride, rp.dstRepStride}, as{rp.src0BlkStride, rp.src0RepStride},
      bs{rp.src1BlkStride, rp.src1RepStride};
  StridedOperand(src0, p, as, api, Access::kRead);
  StridedOperand(src1, p, bs, api, Access::kRead);
  StridedOperand(dst, p, ds, api, Access::kWrite);
  T out[cannbot_ascendc::kRepeatBytes / 2];
  for (uint64_t r = 0; r < p.repeats; ++r) {
    for (uint32_t j = 0; j < p.lanes; ++j) {
      if (!p.On(r, j)) continue;
      out[j] = static_cast<T>(f(static_cast<Compute<T>>(src0.cb_data_[LaneIndex<T>(r, j, as)]),
                                static_cast<Compute<T>>(src1.cb_data_[LaneIndex<T>(r, j, bs)])));
    }
    for (uint32_t j = 0; j < p.lanes; ++j) {
      if (p.On(r, j)) dst.cb_data_[LaneIndex<T>(r, j, ds)] = out[j];
    }
  }
  CountRepeats(p, sizeof(T), complex);
}

template <typename T>
constexpr uint32_t kLanes = cannbot_ascendc::kRepeatBytes / sizeof(T);

}  // namespace cannbot_detail

// ---- mask/repeat forms of the elementwise instructions (lists in cannbot_ascendc_vector.h) ----
#define CANNBOT_ASCENDC_BINARY_REPEAT_FORM(Name, complex, integers, expr, MaskType)              \
  template <typename T, bool isSetMask = true>                                                  \
  inline void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src0,                       \
                   const LocalTensor<T>& src1, MaskType mask, const uint8_t repeatTimes,        \
                   const BinaryRepeatParams& repeatParams) {                                    \
    const auto plan = cannbot_detail::MaskPlan<isSetMask>(cannbot_detail::MaskArg(mask),         \
                                                          repeatTimes,                          \
                                                          cannbot_detail::kLanes<T>, #Name);    \
    cannbot_detail::ZipLanes(dst, src0, src1, repeatParams, plan, #Name, complex, integers,     \
                             [](auto a, auto b) { return expr; });                              \
  }
#define CANNBOT_ASCENDC_BINARY_REPEAT_FORMS(Name, complex, integers, expr)    \
  CANNBOT_ASCENDC_BINARY_REPEAT_FORM(Name, complex, integers, expr, uint64_t) \
  CANNBOT_ASCENDC_BINARY_REPEAT_FORM(Name, complex, integers, expr, const uint64_t*)

#define CANNBOT_ASCENDC_UNARY_MAP(Name, complex, integers, lambda, MaskType)                     \
  const auto plan = cannbot_detail::MaskPlan<isSetMask>(cannbot_detail::MaskArg(mask),           \
                                                        repeatTimes, cannbot_detail::kLanes<T>, \
                                                        #Name);                                 \
  cannbot_detail::RequireVectorMath<T>(#Name, integers);                                        \
  cannbot_detail::MapLanes(dst, {repeatParams.dstBlkStride, repeatParams.dstRepStride}, src,    \
                           {repeatParams.srcBlkStride, repeatParams.srcRepStride}, plan, #Name, \
                           complex, lambda);
#define CANNBOT_ASCENDC_UNARY_REPEAT_FORM(Name, complex, integers, expr, MaskType)               \
  template <typename T, bool isSetMask = true>                                                  \
  inline void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, MaskType mask,         \
                   const uint8_t repeatTimes, const UnaryRepeatParams& repeatParams) {          \
    CANNBOT_ASCENDC_UNARY_MAP(Name, complex, integers,                                          \
                              [](T v) {                                                         \
                                [[maybe_unused]] const auto a =                                 \
                                    static_cast<cannbot_detail::Compute<T>>(v);                 \
                                return static_cast<T>(expr);                                    \
                              },                                                                \
                              MaskType)                                                         \
  }
#define CANNBOT_ASCENDC_UNARY_REPEAT_FORMS(Name, complex, integers, expr)    \
  CANNBOT_ASCENDC_UNARY_REPEAT_FORM(Name, complex, integers, expr, uint64_t) \
  CANNBOT_ASCENDC_UNARY_REPEAT_FORM(Name, complex, integers, expr, const uint64_t*)

#define CANNBOT_ASCENDC_SCALAR_REPEAT_FORM(Name, integers, expr, MaskType)                       \
  template <typename T, bool isSetMask = true>                                                  \
  inline void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src,                        \
                   const typename cannbot_detail::NonDeduced<T>::type& scalar, MaskType mask,   \
                   const uint8_t repeatTimes, const UnaryRepeatParams& repeatParams) {          \
    using C = cannbot_detail::Compute<T>;                                                       \
    const C s = static_cast<C>(static_cast<T>(scalar));                                         \
    CANNBOT_ASCENDC_UNARY_MAP(Name, false, integers,                                            \
                              [s](T v) {                                                        \
                                const C a = static_cast<C>(v);                                  \
                                return static_cast<T>(expr);                                    \
                              },                                                                \
                              MaskType)                                                         \
  }
#define CANNBOT_ASCENDC_SCALAR_REPEAT_FORMS(Name, integers, expr)    \
  CANNBOT_ASCENDC_SCALAR_REPEAT_FORM(Name, integers, expr, uint64_t) \
  CANNBOT_ASCENDC_SCALAR_REPEAT_FORM(Name, integers, expr, const uint64_t*)

CANNBOT_ASCENDC_BINARY_OPS(CANNBOT_ASCENDC_BINARY_REPEAT_FORMS)
CANNBOT_ASCENDC_UNARY_OPS(CANNBOT_ASCENDC_UNARY_REPEAT_FORMS)
CANNBOT_ASCENDC_SCALAR_OPS(CANNBOT_ASCENDC_SCALAR_REPEAT_FORMS)
#undef CANNBOT_ASCENDC_BINARY_REPEAT_FORM
#undef CANNBOT_ASCENDC_BINARY_REPEAT_FORMS
#undef CANNBOT_ASCENDC_UNARY_MAP
#undef CANNBOT_ASCENDC_UNARY_REPEAT_FORM
#undef CANNBOT_ASCENDC_UNARY_REPEAT_FORMS
#undef CANNBOT_ASCENDC_SCALAR_REPEAT_FORM
#undef CANNBOT_ASCENDC_SCALAR_REPEAT_FORMS

// Duplicate: the scalar into every active lane of dst (any element type).
template <typename T, bool isSetMask = true, typename MaskType>
inline void Duplicate(const LocalTensor<T>& dst,
                      const typename cannbot_detail::NonDeduced<T>::type& scalar, MaskType mask,
                      const uint8_t repeatTimes, const uint16_t dstBlockStride,
                      const uint8_t dstRepeatStride) {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4,
                "cannbot ascendc emulation: Duplicate's mask form takes 16- or 32-bit elements");
  const auto plan = cannbot_detail::MaskPlan<isSetMask>(cannbot_detail::MaskArg(mask), repeatTimes,
                                                        cannbot_detail::kLanes<T>, "Duplicate");
  const T v = static_cast<T>(scalar);
  const cannbot_detail::Stride ds{dstBlockStride, dstRepeatStride};
  cannbot_detail::MapLanes(dst, ds, dst, ds, plan, "Duplicate", false, [v](T) { return v; });
}

// Cast with a mask: lanes are 256 bytes of the wider type; strides in each operand's blocks.
template <typename D, typename S, bool isSetMask = true, typename MaskType>
inline void Cast(const LocalTensor<D>& dst, const LocalTensor<S>& src, const RoundMode& mode,
                 MaskType mask, const uint8_t repeatTimes, const UnaryRepeatParams& repeatParams) {
  cannbot_detail::CheckCast<D, S>(mode);
  constexpr uint32_t kWide = sizeof(D) > sizeof(S) ? sizeof(D) : sizeof(S);
  const auto plan = cannbot_detail::MaskPlan<isSetMask>(
      cannbot_detail::MaskArg(mask), repeatTimes, cannbot_ascendc::kRepeatBytes / kWide, "Cast");
  const float deq_scale = cannbot_ascendc::R().deq_scale();
  cannbot_detail::MapLanes(
      dst, {repeatParams.dstBlkStride, repeatParams.dstRepStride}, src,
      {repeatParams.srcBlkStride, repeatParams.srcRepStride}, plan, "Cast", false,
      [mode, deq_scale](S v) { return cannbot_detail::CastElement<D>(v, mode, deq_scale); });
}

}  // namespace AscendC

#include "cannbot_ascendc_select.h"

#endif  // CANNBOT_ASCENDC_REPEAT_H
