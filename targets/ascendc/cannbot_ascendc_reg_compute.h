// cannbot_ascendc_reg_compute.h: the instructions of the register-based vector functions
// (cannbot_ascendc_reg.h): arithmetic, Duplicate, reductions, Compare/Select and Cast on
// RegTensor values, each written from its public API page.
//
// An instruction computes the lanes its mask selects; the others are zeroed (MaskMergeMode::
// ZEROING, every instruction's default) or keep the destination's value (MERGING). half and
// bfloat16_t compute in float and round once per instruction; integers compute in 64 bits and
// wrap to their width. Div with a DivSpecificMode whose algorithm flushes to zero (the FTZ_TRUE
// ones) returns 0 for a subnormal quotient, as its page says; every other result keeps
// subnormals. Reduce writes its result to lane 0 (and, for MAX and MIN, the first index of it
// to lane 1) and zeroes the rest. Cast follows the RegLayout page's lane placement; rounding
// is cannbot_ascendc_cast.h's.
//
// Thread-safety: none (see cannbot_ascendc_runtime.h).
#ifndef CANNBOT_ASCENDC_REG_COMPUTE_H
#define CANNBOT_ASCENDC_REG_COMPUTE_H

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "cannbot_ascendc_cast.h"
#include "cannbot_ascendc_reg.h"
#include "cannbot_ascendc_select.h"

namespace AscendC {
namespace Reg {
namespace cannbot_detail {

using ::AscendC::cannbot_detail::Compute;

// The merge mode an instruction's `mode` template argument names: a MaskMergeMode, or a
// pointer to a specific-mode struct (DivSpecificMode) that carries one.
template <auto mode>
constexpr MaskMergeMode MergeOf() {
  if constexpr (std::is_same<decltype(mode), MaskMergeMode>::value) {
    return mode;
  } else {
    return mode->mrgMode;
  }
}
template <auto mode>
constexpr bool FlushesToZero() {
  if constexpr (std::is_same<decltype(mode), MaskMergeMode>::value) {
    return false;
  } else {
    return mode->algo == DivAlgo::PRECISION_1ULP_FTZ_TRUE ||
           mode->algo == DivAlgo::PRECISION_0ULP_FTZ_TRUE;
  }
}

// dst lane i = value(i) where the mask selects it (mask read as E's elements), else zero or
// kept. Every value is computed before any lane is written, so dst may be a source.
template <MaskMergeMode merge, typename R, typename F>
inline void ForLanes(R& dst, const MaskReg& mask, F&& value, bool complex = false) {
  using T = typename R::ElementType;
  T out[R::kLanes];
  for (uint32_t i = 0; i < R::kLanes; ++i) {
    out[i] = mask.Active<T>(i) ? static_cast<T>(value(i))
             : merge == MaskMergeMode::MERGING ? dst.Lane(i)
                                               : T{};
  }
  for (uint32_t i = 0; i < R::kLanes; ++i) dst.SetLane(i, out[i]);
  CountRegInstruction(complex);
}

template <typename R>
inline Compute<typename R::ElementType> In(const R& reg, uint32_t i) {
  return static_cast<Compute<typename R::ElementType>>(reg.Lane(i));
}

}  // namespace cannbot_detail

// ---- two registers ----
#define CANNBOT_REG_BINARY(Name, expression, complex)                                        \
  template <typename T = DefaultType, auto mode = MaskMergeMode::ZEROING, typename U>        \
  inline void Name(U& dstReg, U& srcReg0, U& srcReg1, MaskReg& mask) {                       \
    using C = cannbot_detail::Compute<typename U::ElementType>;                              \
    cannbot_detail::ForLanes<cannbot_detail::MergeOf<mode>()>(                               \
        dstReg, mask,                                                                        \
        [&](uint32_t i) -> C {                                                               \
          const C a = cannbot_detail::In(srcReg0, i), b = cannbot_detail::In(srcReg1, i);    \
          (void)a;                                                                           \
          (void)b;                                                                           \
          return expression;                                                                 \
        },                                                                                   \
        complex);                                                                            \
  }
CANNBOT_REG_BINARY(Add, a + b, false)
CANNBOT_REG_BINARY(Sub, a - b, false)
CANNBOT_REG_BINARY(Mul, a * b, false)
CANNBOT_REG_BINARY(Max, a > b ? a : b, false)
CANNBOT_REG_BINARY(Min, a < b ? a : b, false)
#undef CANNBOT_REG_BINARY

template <typename T = DefaultType, auto mode = MaskMergeMode::ZEROING, typename U>
inline void Div(U& dstReg, U& srcReg0, U& srcReg1, MaskReg& mask) {
  using E = typename U::ElementType;
  using C = cannbot_detail::Compute<E>;
  cannbot_detail::ForLanes<cannbot_detail::MergeOf<mode>()>(
      dstReg, mask,
      [&](uint32_t i) -> C {
        const C b = cannbot_detail::In(srcReg1, i);
        if constexpr (std::is_integral<E>::value) {
          if (b == 0) {
            cannbot_ascendc::Violation("not-emulated",
                                       "Reg::Div of an integer by 0 (lane %u): the device's "
                                       "result is not emulated",
                                       i);
          }
        }
        C q = cannbot_detail::In(srcReg0, i) / b;
        if constexpr (cannbot_detail::FlushesToZero<mode>()) {
          if (std::fpclassify(static_cast<float>(static_cast<E>(q))) == FP_SUBNORMAL) q = 0;
        }
        return q;
      },
      true);
}

// ---- one register ----
#define CANNBOT_REG_UNARY(Name, expression, complex)                                   \
  template <typename T = DefaultType, auto mode = MaskMergeMode::ZEROING, typename U>  \
  inline void Name(U& dstReg, U& srcReg, MaskReg& mask) {                              \
    using C = cannbot_detail::Compute<typename U::ElementType>;                        \
    cannbot_detail::ForLanes<cannbot_detail::MergeOf<mode>()>(                         \
        dstReg, mask,                                                                  \
        [&](uint32_t i) -> C {                                                         \
          const C a = cannbot_detail::In(srcReg, i);                                   \
          return expression;                                                           \
        },                                                                             \
        complex);                                                                      \
  }
CANNBOT_REG_UNARY(Abs, a < 0 ? -a : a, false)
CANNBOT_REG_UNARY(Neg, -a, false)
CANNBOT_REG_UNARY(Relu, a > 0 ? a : C(0), false)
CANNBOT_REG_UNARY(Exp, static_cast<C>(std::exp(static_cast<float>(a))), true)
CANNBOT_REG_UNARY(Ln, static_cast<C>(std::log(static_cast<float>(a))), true)
CANNBOT_REG_UNARY(Log, static_cast<C>(std::log(static_cast<float>(a))), true)
CANNBOT_REG_UNARY(Sqrt, static_cast<C>(std::sqrt(static_cast<float>(a))), true)
#undef CANNBOT_REG_UNARY

// ---- a register and a scalar ----
#define CANNBOT_REG_SCALAR(Name, expression)                                                  \
  template <typename T = DefaultType, typename U = DefaultType,                               \
            MaskMergeMode mode = MaskMergeMode::ZEROING, typename S, typename V>              \
  inline void Name(S& dstReg, S& srcReg, V scalarValue, MaskReg& mask) {                      \
    using C = cannbot_detail::Compute<typename S::ElementType>;                               \
    const C s = static_cast<C>(static_cast<typename S::ElementType>(scalarValue));            \
    cannbot_detail::ForLanes<mode>(dstReg, mask, [&](uint32_t i) -> C {                       \
      const C a = cannbot_detail::In(srcReg, i);                                              \
      return expression;                                                                      \
    });                                                                                       \
  }
CANNBOT_REG_SCALAR(Adds, a + s)
CANNBOT_REG_SCALAR(Muls, a * s)
CANNBOT_REG_SCALAR(Maxs, a > s ? a : s)
CANNBOT_REG_SCALAR(Mins, a < s ? a : s)
CANNBOT_REG_SCALAR(LeakyRelu, a > 0 ? a : a * s)
#undef CANNBOT_REG_SCALAR

// dst = scalar * src + dst.
template <typename T = DefaultType, typename U = DefaultType,
          MaskMergeMode mode = MaskMergeMode::ZEROING, typename S, typename V>
inline void Axpy(S& dstReg, S& srcReg, const V scalarValue, MaskReg& mask) {
  using C = cannbot_detail::Compute<typename S::ElementType>;
  const C s = static_cast<C>(scalarValue);
  cannbot_detail::ForLanes<mode>(dstReg, mask, [&](uint32_t i) -> C {
    return s * cannbot_detail::In(srcReg, i) + cannbot_detail::In(dstReg, i);
  });
}

// exp(src0 - src1) in float; half sources are read from the lanes `layout` picks.
template <typename T = DefaultType, typename U = DefaultType, RegLayout layout = RegLayout::ZERO,
          MaskMergeMode mode = MaskMergeMode::ZEROING, typename S, typename V>
inline void ExpSub(S& dstReg, V& srcReg0, V& srcReg1, MaskReg& mask) {
  using Src = typename V::ElementType;
  static_assert(std::is_same<typename S::ElementType, float>::value,
                "Reg::ExpSub writes float (from float or half sources)");
  constexpr uint32_t kStep = sizeof(float) / sizeof(Src);
  const uint32_t pick = sizeof(Src) == 2 && layout == RegLayout::ONE ? 1 : 0;
  float out[S::kLanes];
  for (uint32_t i = 0; i < S::kLanes; ++i) {
    const uint32_t from = i * kStep + pick;
    out[i] = mask.Active<Src>(from)
                 ? std::exp(static_cast<float>(srcReg0.Lane(from)) -
                            static_cast<float>(srcReg1.Lane(from)))
                 : 0.0f;
  }
  for (uint32_t i = 0; i < S::kLanes; ++i) dstReg.SetLane(i, out[i]);
  cannbot_detail::CountRegInstruction(true);
}

// ---- Duplicate ----
template <typename T = DefaultType, typename U, typename S>
inline void Duplicate(S& dstReg, U scalarValue) {
  const auto v = static_cast<typename S::ElementType>(scalarValue);
  for (uint32_t i = 0; i < S::kLanes; ++i) dstReg.SetLane(i, v);
  cannbot_detail::CountRegInstruction(false);
}
template <typename T = DefaultType, MaskMergeMode mode = MaskMergeMode::ZEROING, typename U,
          typename S, typename = std::enable_if_t<!std::is_class<U>::value>>
inline void Duplicate(S& dstReg, U scalarValue, MaskReg& mask) {
  const auto v = static_cast<typename S::ElementType>(scalarValue);
  cannbot_detail::ForLanes<mode>(dstReg, mask, [&](uint32_t) { return v; });
}
// Lane 0 of srcReg to the lanes the mask selects.
template <typename T = DefaultType, HighLowPart pos = HighLowPart::LOWEST,
          MaskMergeMode mode = MaskMergeMode::ZEROING, typename S>
inline void Duplicate(S& dstReg, S& srcReg, MaskReg& mask) {
  static_assert(pos == HighLowPart::LOWEST, "Reg::Duplicate broadcasts the lowest lane only");
  const auto v = srcReg.Lane(0);
  cannbot_detail::ForLanes<mode>(dstReg, mask, [&](uint32_t) { return v; });
}

// ---- Reduce: lane 0 = the sum, maximum or minimum of the selected lanes ----
template <ReduceType type = ReduceType::SUM, typename T = DefaultType, typename U = DefaultType,
          MaskMergeMode mode = MaskMergeMode::ZEROING, typename S, typename V>
inline void Reduce(S& dstReg, V srcReg, MaskReg mask) {
  using Src = typename V::ElementType;
  using Dst = typename S::ElementType;
  using C = cannbot_detail::Compute<Src>;
  C acc = 0;
  uint32_t index = 0;
  bool first = true;
  for (uint32_t i = 0; i < V::kLanes; ++i) {
    if (!mask.Active<Src>(i)) continue;
    const C v = cannbot_detail::In(srcReg, i);
    if (type == ReduceType::SUM) {
      acc += v;
    } else if (first || (type == ReduceType::MAX ? v > acc : v < acc)) {
      acc = v;
      index = i;
    }
    first = false;
  }
  if (first && type != ReduceType::SUM) {
    acc = type == ReduceType::MAX ? std::numeric_limits<C>::lowest() : std::numeric_limits<C>::max();
  }
  for (uint32_t i = 0; i < S::kLanes; ++i) dstReg.SetLane(i, Dst{});
  dstReg.SetLane(0, static_cast<Dst>(acc));
  if (type != ReduceType::SUM) {
    if constexpr (sizeof(Dst) == 4) dstReg.template SetLane<uint32_t>(1, index);
    if constexpr (sizeof(Dst) == 2) dstReg.template SetLane<uint16_t>(1, static_cast<uint16_t>(index));
  }
  cannbot_detail::CountRegInstruction(false);
}
template <typename T = DefaultType, typename S, typename V>
inline void ReduceSum(S& dstReg, V& srcReg, MaskReg mask) {
  Reduce<ReduceType::SUM>(dstReg, srcReg, mask);
}
template <typename T = DefaultType, typename S, typename V>
inline void ReduceMax(S& dstReg, V& srcReg, MaskReg mask) {
  Reduce<ReduceType::MAX>(dstReg, srcReg, mask);
}
template <typename T = DefaultType, typename S, typename V>
inline void ReduceMin(S& dstReg, V& srcReg, MaskReg mask) {
  Reduce<ReduceType::MIN>(dstReg, srcReg, mask);
}

// Each 32-byte block's selected elements reduced to one value, in lanes 0..7; the rest zero.
template <ReduceType type = ReduceType::SUM, typename T = DefaultType,
          MaskMergeMode mode = MaskMergeMode::ZEROING, typename U>
inline void ReduceDataBlock(U& dstReg, U srcReg, MaskReg mask) {
  using E = typename U::ElementType;
  using C = cannbot_detail::Compute<E>;
  constexpr uint32_t kPerBlock = 32 / sizeof(E);
  E out[U::kLanes] = {};
  for (uint32_t b = 0; b < kVl / 32; ++b) {
    C acc = 0;
    bool first = true;
    for (uint32_t i = b * kPerBlock; i < (b + 1) * kPerBlock; ++i) {
      if (!mask.Active<E>(i)) continue;
      const C v = cannbot_detail::In(srcReg, i);
      acc = first ? v
            : type == ReduceType::SUM ? acc + v
            : type == ReduceType::MAX ? (v > acc ? v : acc)
                                      : (v < acc ? v : acc);
      first = false;
    }
    out[b] = static_cast<E>(acc);
  }
  for (uint32_t i = 0; i < U::kLanes; ++i) dstReg.SetLane(i, out[i]);
  cannbot_detail::CountRegInstruction(false);
}

// Indexes from scalarValue up (the decreasing order is not emulated).
template <typename T = DefaultType, IndexOrder order = IndexOrder::INCREASE_ORDER, typename U,
          typename S>
inline void Arange(S& dstReg, U scalarValue) {
  using E = typename S::ElementType;
  if (order != IndexOrder::INCREASE_ORDER) {
    cannbot_ascendc::Violation("not-emulated", "Reg::Arange in DECREASE_ORDER is not emulated");
  }
  using C = cannbot_detail::Compute<E>;
  for (uint32_t i = 0; i < S::kLanes; ++i) {
    dstReg.SetLane(i, static_cast<E>(static_cast<C>(scalarValue) + static_cast<C>(i)));
  }
  cannbot_detail::CountRegInstruction(false);
}

// Floating-point values rounded to whole numbers in their own type.
template <typename T = DefaultType, RoundMode roundMode = RoundMode::CAST_NONE,
          MaskMergeMode mode = MaskMergeMode::ZEROING, typename S>
inline void Truncate(S& dstReg, S& srcReg, MaskReg& mask) {
  using E = typename S::ElementType;
  static_assert(!std::is_integral<E>::value, "Reg::Truncate takes half, bfloat16_t or float");
  const RoundMode round = roundMode == RoundMode::CAST_NONE ? RoundMode::CAST_RINT : roundMode;
  cannbot_detail::ForLanes<mode>(dstReg, mask, [&](uint32_t i) {
    return ::AscendC::cannbot_detail::RoundFloat(static_cast<float>(srcReg.Lane(i)), round);
  });
}

// ---- Compare and Select ----
namespace cannbot_detail {
template <typename E, typename F>
inline void CompareLanes(MaskReg& dst, const MaskReg& mask, F&& holds) {
  MaskReg out;
  for (uint32_t i = 0; i < kVl / sizeof(E); ++i) out.Set<E>(i, mask.Active<E>(i) && holds(i));
  dst = out;
  CountRegInstruction(false);
}
}  // namespace cannbot_detail

template <typename T = DefaultType, CMPMODE cmp = CMPMODE::EQ, typename U>
inline void Compare(MaskReg& dst, U& srcReg0, U& srcReg1, MaskReg& mask) {
  using E = typename U::ElementType;
  cannbot_detail::CompareLanes<E>(dst, mask, [&](uint32_t i) {
    return ::AscendC::cannbot_detail::Holds(cannbot_detail::In(srcReg0, i),
                                            cannbot_detail::In(srcReg1, i), cmp);
  });
}
template <typename T = DefaultType, CMPMODE cmp = CMPMODE::EQ, typename U, typename S>
inline void Compares(MaskReg& dst, U& srcReg, S scalarValue, MaskReg& mask) {
  using E = typename U::ElementType;
  const auto s = static_cast<cannbot_detail::Compute<E>>(static_cast<E>(scalarValue));
  cannbot_detail::CompareLanes<E>(dst, mask, [&](uint32_t i) {
    return ::AscendC::cannbot_detail::Holds(cannbot_detail::In(srcReg, i), s, cmp);
  });
}
// dst lane = src0's where the mask selects it, else src1's.
template <typename T = DefaultType, typename U>
inline void Select(U& dstReg, U& srcReg0, U& srcReg1, MaskReg& mask) {
  using E = typename U::ElementType;
  E out[U::kLanes];
  for (uint32_t i = 0; i < U::kLanes; ++i) {
    out[i] = mask.Active<E>(i) ? srcReg0.Lane(i) : srcReg1.Lane(i);
  }
  for (uint32_t i = 0; i < U::kLanes; ++i) dstReg.SetLane(i, out[i]);
  cannbot_detail::CountRegInstruction(false);
}

// ---- Cast: lanes placed as the RegLayout page describes ----
inline constexpr CastTrait castTrait{};
template <typename T = DefaultType, typename U = DefaultType, const CastTrait& trait = castTrait,
          typename S, typename V>
inline void Cast(S& dstReg, V& srcReg, MaskReg& mask) {
  using D = typename S::ElementType;
  using Src = typename V::ElementType;
  const RoundMode round = trait.roundMode == RoundMode::UNKNOWN ? RoundMode::CAST_NONE
                                                                : trait.roundMode;
  ::AscendC::cannbot_detail::CheckCast<D, Src>(round);
  constexpr uint32_t kRatio = sizeof(D) > sizeof(Src) ? sizeof(D) / sizeof(Src)
                                                      : sizeof(Src) / sizeof(D);
  const uint32_t layout = trait.layoutMode == RegLayout::UNKNOWN || kRatio == 1
                              ? 0u
                              : static_cast<uint32_t>(trait.layoutMode);
  if (layout >= kRatio) {
    cannbot_ascendc::Violation("bad-argument",
                               "Reg::Cast from %s to %s with RegLayout %u: a ratio of %u "
                               "element widths has layouts 0 to %u",
                               ::AscendC::cannbot_detail::ElementName<Src>(),
                               ::AscendC::cannbot_detail::ElementName<D>(), layout, kRatio,
                               kRatio - 1);
  }
  const bool merging = trait.mrgMode == MaskMergeMode::MERGING;
  S out = dstReg;
  if constexpr (sizeof(D) > sizeof(Src)) {
    // Widening: dst element i from src element ratio * i + layout.
    for (uint32_t i = 0; i < S::kLanes; ++i) {
      const uint32_t from = kRatio * i + layout;
      if (mask.Active<Src>(from)) {
        out.SetLane(i, ::AscendC::cannbot_detail::CastElement<D, Src>(srcReg.Lane(from), round, 1.0f));
      } else if (!merging) {
        out.SetLane(i, D{});
      }
    }
  } else {
    // Narrowing (or the same width): src element i to dst element ratio * i + layout; the
    // other lanes are zero.
    if (kRatio > 1 || !merging) out = S{};
    for (uint32_t i = 0; i < V::kLanes; ++i) {
      if (mask.Active<Src>(i)) {
        out.SetLane(kRatio * i + layout,
                    ::AscendC::cannbot_detail::CastElement<D, Src>(srcReg.Lane(i), round, 1.0f));
      }
    }
  }
  dstReg = out;
  cannbot_detail::CountRegInstruction(false);
}

}  // namespace Reg

// The cast traits the library predefines (layout, saturation, merge, rounding).
constexpr Reg::CastTrait layoutZMrgZ = {Reg::RegLayout::ZERO, Reg::SatMode::UNKNOWN,
                                        Reg::MaskMergeMode::ZEROING, RoundMode::UNKNOWN};
constexpr Reg::CastTrait layoutZMrgZRndR = {Reg::RegLayout::ZERO, Reg::SatMode::UNKNOWN,
                                            Reg::MaskMergeMode::ZEROING, RoundMode::CAST_RINT};
constexpr Reg::CastTrait layoutZMrgZRndF = {Reg::RegLayout::ZERO, Reg::SatMode::UNKNOWN,
                                            Reg::MaskMergeMode::ZEROING, RoundMode::CAST_FLOOR};
constexpr Reg::CastTrait layoutZMrgZRndC = {Reg::RegLayout::ZERO, Reg::SatMode::UNKNOWN,
                                            Reg::MaskMergeMode::ZEROING, RoundMode::CAST_CEIL};
constexpr Reg::CastTrait layoutZMrgZRndZ = {Reg::RegLayout::ZERO, Reg::SatMode::UNKNOWN,
                                            Reg::MaskMergeMode::ZEROING, RoundMode::CAST_TRUNC};
constexpr Reg::CastTrait layoutZMrgZRndA = {Reg::RegLayout::ZERO, Reg::SatMode::UNKNOWN,
                                            Reg::MaskMergeMode::ZEROING, RoundMode::CAST_ROUND};
constexpr Reg::CastTrait LayoutZMrgZRndRSatNS = {Reg::RegLayout::ZERO, Reg::SatMode::NO_SAT,
                                                 Reg::MaskMergeMode::ZEROING, RoundMode::CAST_RINT};
constexpr Reg::CastTrait LayoutZMrgZRndRSatS = {Reg::RegLayout::ZERO, Reg::SatMode::SAT,
                                                Reg::MaskMergeMode::ZEROING, RoundMode::CAST_RINT};

}  // namespace AscendC

#endif  // CANNBOT_ASCENDC_REG_COMPUTE_H
