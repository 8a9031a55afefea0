// cannbot_ascendc_cast.h: Cast, between float, half and bfloat16_t with the documented
// rounding modes, and to, from and between the integers (semantics and counting as in
// cannbot_ascendc_vector.h: `count` elements, 32-byte aligned operands, one instruction counted
// with its 256-byte repeats).
//
// Thread-safety: none (see cannbot_ascendc_runtime.h).
#ifndef CANNBOT_ASCENDC_CAST_H
#define CANNBOT_ASCENDC_CAST_H

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "cannbot_ascendc_vector.h"

namespace AscendC {

namespace cannbot_detail {

// The next representable half above (up) or below (!up) a finite or infinite h.
inline half HalfStep(half h, bool up) {
  uint16_t b = HalfBits(h);
  const bool negative = (b & 0x8000u) != 0;
  if ((b & 0x7FFFu) == 0) return HalfFromBits(up ? 0x0001u : 0x8001u);
  if (up != negative) return HalfFromBits(static_cast<uint16_t>(b + 1));
  return HalfFromBits(static_cast<uint16_t>(b - 1));
}

// float -> half with one of the documented rounding modes.
inline half RoundToHalf(float f, RoundMode mode) {
  const half nearest = static_cast<half>(f);  // IEEE round-half-to-even
  if (mode == RoundMode::CAST_NONE || mode == RoundMode::CAST_RINT || std::isnan(f) ||
      static_cast<float>(nearest) == f) {
    return nearest;
  }
  half lo = nearest, hi = nearest;
  if (static_cast<float>(nearest) < f) {
    hi = HalfStep(nearest, true);
  } else {
    lo = HalfStep(nearest, false);
  }
  switch (mode) {
    case RoundMode::CAST_FLOOR:
      return lo;
    case RoundMode::CAST_CEIL:
      return hi;
    case RoundMode::CAST_TRUNC:
      return f > 0 ? lo : hi;
    case RoundMode::CAST_ROUND: {
      const float below = f - static_cast<float>(lo), above = static_cast<float>(hi) - f;
      if (below == above) return f > 0 ? hi : lo;
      return nearest;
    }
    case RoundMode::CAST_ODD:
      return (HalfBits(lo) & 1u) != 0 ? lo : hi;
    default:
      return nearest;
  }
}

// float -> bfloat16_t with one of the documented rounding modes: the float's low 16 bits decide.
inline bfloat16_t RoundToBf16(float f, RoundMode mode) {
  if (std::isnan(f) || mode == RoundMode::CAST_NONE || mode == RoundMode::CAST_RINT) {
    return bfloat16_t(f);  // nearest even
  }
  uint32_t u;
  std::memcpy(&u, &f, 4);
  const uint32_t low = u & 0xffffu;
  bfloat16_t toward_zero;
  toward_zero.bits = static_cast<uint16_t>(u >> 16);
  if (low == 0 || std::isinf(f)) return toward_zero;
  bfloat16_t away = toward_zero;
  away.bits = static_cast<uint16_t>(away.bits + 1);  // one ulp further from zero
  const bool negative = (u >> 31) != 0;
  switch (mode) {
    case RoundMode::CAST_FLOOR: return negative ? away : toward_zero;
    case RoundMode::CAST_CEIL: return negative ? toward_zero : away;
    case RoundMode::CAST_TRUNC: return toward_zero;
    case RoundMode::CAST_ROUND: return low >= 0x8000u ? away : toward_zero;  // ties away
    case RoundMode::CAST_ODD: return (toward_zero.bits & 1u) ? toward_zero : away;
    default: return bfloat16_t(f);
  }
}

inline float RoundFloat(float f, RoundMode mode) {
  switch (mode) {
    case RoundMode::CAST_RINT:
      return std::nearbyint(f);
    case RoundMode::CAST_FLOOR:
      return std::floor(f);
    case RoundMode::CAST_CEIL:
      return std::ceil(f);
    case RoundMode::CAST_ROUND:
      return std::round(f);
    case RoundMode::CAST_TRUNC:
      return std::trunc(f);
    default:
      cannbot_ascendc::Violation("bad-argument",
                                 "Cast float->float needs CAST_RINT, CAST_FLOOR, CAST_CEIL, "
                                 "CAST_ROUND or CAST_TRUNC");
  }
}

}  // namespace cannbot_detail

// ---- Cast: between float, half and bfloat16_t (as below), from those to the integers (rounded
// by the mode; CAST_NONE is CAST_RINT, as documented for conversions that lose precision), from
// the integers to those, and between integers. A value the destination cannot hold (NaN, out
// of range) stops as not-emulated: the device's overflow behaviour is not modelled. ----
namespace cannbot_detail {
template <typename T>
constexpr bool kCastFloat = std::is_same<T, float>::value || std::is_same<T, half>::value ||
                            std::is_same<T, bfloat16_t>::value;
template <typename T>
constexpr bool kCastInteger = std::is_integral<T>::value && !std::is_same<T, bool>::value;

// Refuses conversions the emulation does not have at compile time, and a rounding mode the
// conversion does not take at run time.
template <typename D, typename S>
inline void CheckCast(RoundMode mode) {
  constexpr bool kToHalf = std::is_same<D, half>::value && std::is_same<S, float>::value;
  constexpr bool kToBf16 = std::is_same<D, bfloat16_t>::value && std::is_same<S, float>::value;
  constexpr bool kToFloat = std::is_same<D, float>::value &&
                            (std::is_same<S, half>::value || std::is_same<S, bfloat16_t>::value);
  constexpr bool kFloatRound = std::is_same<D, float>::value && std::is_same<S, float>::value;
  constexpr bool kWithIntegers = (kCastInteger<D> && (kCastFloat<S> || kCastInteger<S>)) ||
                                 (kCastInteger<S> && kCastFloat<D>);
  static_assert(kToHalf || kToBf16 || kToFloat || kFloatRound || kWithIntegers,
                "cannbot ascendc emulation: Cast supports float->half, float->bfloat16_t, "
                "half->float, bfloat16_t->float, float->float and conversions to and from the "
                "integer types");
  if (kToFloat && mode != RoundMode::CAST_NONE) {
    cannbot_ascendc::Violation("bad-argument",
                               "Cast to float from a 16-bit type is exact and takes "
                               "RoundMode::CAST_NONE only");
  }
  if (kCastInteger<D> && kCastFloat<S> && mode == RoundMode::CAST_ODD) {
    cannbot_ascendc::Violation("bad-argument", "Cast from %s to %s takes no CAST_ODD",
                               ElementName<S>(), ElementName<D>());
  }
}

// v (integral, or NaN) as D, where D can hold it.
template <typename D, typename S>
inline D FittingInteger(double v) {
  if (!(v >= static_cast<double>(std::numeric_limits<D>::lowest()) &&
        v <= static_cast<double>(std::numeric_limits<D>::max()))) {
    cannbot_ascendc::Violation("not-emulated",
                               "Cast from %s to %s of %g, which %s cannot hold: the device's "
                               "overflow behaviour is not emulated",
                               ElementName<S>(), ElementName<D>(), v, ElementName<D>());
  }
  return static_cast<D>(v);
}

// One element converted as Cast converts it.
// `deq_scale`: the DEQSCALE register (SetDeqScale), read once per instruction by the caller.
template <typename D, typename S>
inline D CastElement(S value, RoundMode mode, float deq_scale) {
  if constexpr (kCastInteger<D> && kCastInteger<S>) {
    return FittingInteger<D, S>(static_cast<double>(value));
  } else if constexpr (kCastInteger<D>) {
    const RoundMode m = mode == RoundMode::CAST_NONE ? RoundMode::CAST_RINT : mode;
    return FittingInteger<D, S>(RoundFloat(static_cast<float>(value), m));
  } else {
    float v = static_cast<float>(value);  // exact from 16-bit types and small integers
    if constexpr (std::is_same<D, half>::value) {
      // s32 -> f16 is a dequantisation on the device: it scales by DEQSCALE (SetDeqScale).
      if constexpr (std::is_same<S, int32_t>::value) v *= deq_scale;
      return RoundToHalf(v, mode);
    } else if constexpr (std::is_same<D, bfloat16_t>::value) {
      return RoundToBf16(v, mode);
    } else if constexpr (!std::is_same<S, float>::value) {
      return v;
    } else {
      return RoundFloat(v, mode);
    }
  }
}
}  // namespace cannbot_detail

// SetDeqScale(half): the scale Cast int32 -> half applies (1 until set, in every block).
inline void SetDeqScale(half scale) {
  cannbot_ascendc::R().RequireBlock("SetDeqScale");
  cannbot_ascendc::R().set_deq_scale(static_cast<float>(scale));
}

template <typename D, typename S>
inline void Cast(const LocalTensor<D>& dst, const LocalTensor<S>& src, const RoundMode& mode,
                 const uint32_t& count) {
  cannbot_detail::CheckCast<D, S>(mode);
  cannbot_detail::Operand(src, count, "Cast", cannbot_detail::Access::kRead);
  cannbot_detail::Operand(dst, count, "Cast", cannbot_detail::Access::kWrite);
  const float deq_scale = cannbot_ascendc::R().deq_scale();
  for (uint32_t i = 0; i < count; ++i) {
    dst.cb_data_[i] = cannbot_detail::CastElement<D>(src.cb_data_[i], mode, deq_scale);
  }
  cannbot_ascendc::CountVector(static_cast<uint64_t>(count) * 4u, false);
}

}  // namespace AscendC

#endif  // CANNBOT_ASCENDC_CAST_H
