// cannbot_ascendc_vector.h: the count forms of the vector instructions, Cast and reductions.
//
// Semantics follow the Ascend C documentation for Atlas A2: `count` elements from the start
// of each operand; operands start 32-byte aligned (`vector-misaligned`, except reduction
// destinations, which need element alignment only) and hold at least `count` elements
// (`ub-out-of-bounds`). half instructions compute in half: each element is evaluated in float
// and rounded to half once per instruction, which is what one hardware instruction does.
// Reductions add pairwise (a binary tree) inside each 256-byte repeat; the count forms then add
// the repeat results in order, and half partial sums saturate at +-65504.
// Each instruction is counted with its 256-byte repeats; Exp, Ln, Sqrt, Rsqrt, Div and
// Reciprocal also count as complex repeats (they take several cycles per repeat).
//
// Thread-safety: none (see cannbot_ascendc_runtime.h).
#ifndef CANNBOT_ASCENDC_VECTOR_H
#define CANNBOT_ASCENDC_VECTOR_H

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "cannbot_ascendc_tensor.h"

namespace AscendC {

enum class RoundMode {
  CAST_NONE = 0,
  CAST_RINT,
  CAST_FLOOR,
  CAST_CEIL,
  CAST_ROUND,
  CAST_TRUNC,
  CAST_ODD
};
enum class ReduceOrder { ORDER_VALUE_INDEX, ORDER_INDEX_VALUE, ORDER_ONLY_VALUE, ORDER_ONLY_INDEX };

namespace cannbot_detail {

template <typename T>
struct NonDeduced {
  using type = T;
};
template <typename T>
constexpr bool kVectorFloat = std::is_same<T, float>::value || std::is_same<T, half>::value;

inline void CheckCount(int64_t count, const char* api) {
  if (count < 0) cannbot_ascendc::Violation("bad-argument", "%s has a negative count", api);
}

// A vector operand: valid, large enough, 32-byte aligned (unless `element_aligned`).
template <typename T>
inline void Operand(const LocalTensor<T>& t, int64_t count, const char* api, Access access,
                    bool element_aligned = false) {
  CheckLocal(t, static_cast<uint64_t>(count), api, access);
  if (!element_aligned && t.cb_ub_offset_ % cannbot_ascendc::kBlockBytes != 0) {
    cannbot_ascendc::Violation(
        "vector-misaligned",
        "%s uses an operand that starts %u bytes into a 32-byte block; vector operands must "
        "start 32-byte aligned (take sub-tensors at multiples of %u elements)",
        api, t.cb_ub_offset_ % cannbot_ascendc::kBlockBytes,
        static_cast<unsigned>(cannbot_ascendc::kBlockBytes / sizeof(T)));
  }
}

template <typename T, typename F>
inline void Unary(const LocalTensor<T>& dst, const LocalTensor<T>& src, int32_t count,
                  const char* api, bool complex, F f) {
  static_assert(kVectorFloat<T>, "cannbot ascendc emulation: vector math supports half and float "
                                 "(bfloat16_t: Cast to float first, as on the device)");
  CheckCount(count, api);
  Operand(src, count, api, Access::kRead);
  Operand(dst, count, api, Access::kWrite);
  T* d = dst.cb_data_;
  const T* s = src.cb_data_;
  for (int32_t i = 0; i < count; ++i) d[i] = static_cast<T>(f(static_cast<float>(s[i])));
  cannbot_ascendc::CountVector(static_cast<uint64_t>(count) * sizeof(T), complex);
}

template <typename T, typename F>
inline void Binary(const LocalTensor<T>& dst, const LocalTensor<T>& src0,
                   const LocalTensor<T>& src1, int32_t count, const char* api, bool complex, F f) {
  static_assert(kVectorFloat<T>, "cannbot ascendc emulation: vector math supports half and float "
                                 "(bfloat16_t: Cast to float first, as on the device)");
  CheckCount(count, api);
  Operand(src0, count, api, Access::kRead);
  Operand(src1, count, api, Access::kRead);
  Operand(dst, count, api, Access::kWrite);
  T* d = dst.cb_data_;
  const T* a = src0.cb_data_;
  const T* b = src1.cb_data_;
  for (int32_t i = 0; i < count; ++i) {
    d[i] = static_cast<T>(f(static_cast<float>(a[i]), static_cast<float>(b[i])));
  }
  cannbot_ascendc::CountVector(static_cast<uint64_t>(count) * sizeof(T), complex);
}

// a + b in T; half sums that overflow saturate to +-65504, as the reductions document.
template <typename T>
inline T ReduceAdd(T a, T b) {
  const float s = static_cast<float>(a) + static_cast<float>(b);
  T r = static_cast<T>(s);
  if (std::is_same<T, half>::value && std::isinf(static_cast<float>(r)) &&
      std::isfinite(static_cast<float>(a)) && std::isfinite(static_cast<float>(b))) {
    r = static_cast<T>(s > 0 ? 65504.0f : -65504.0f);
  }
  return r;
}

// Pairwise sum of v[0..n): adjacent pairs, level by level (the hardware's binary tree).
template <typename T>
inline T TreeSum(T* v, uint32_t n) {
  if (n == 0) return T(0);
  while (n > 1) {
    const uint32_t half_n = n / 2;
    for (uint32_t i = 0; i < half_n; ++i) v[i] = ReduceAdd(v[2 * i], v[2 * i + 1]);
    if (n % 2 == 1) v[half_n] = v[n - 1];
    n = half_n + n % 2;
  }
  return v[0];
}

inline uint16_t HalfBits(half h) {
  uint16_t b;
  std::memcpy(&b, &h, sizeof(b));
  return b;
}
inline half HalfFromBits(uint16_t b) {
  half h;
  std::memcpy(&h, &b, sizeof(h));
  return h;
}
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

// ---- binary: dst[i] = src0[i] op src1[i] ----
template <typename T>
inline void Add(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                const int32_t& count) {
  cannbot_detail::Binary(dst, src0, src1, count, "Add", false,
                         [](float a, float b) { return a + b; });
}
template <typename T>
inline void Sub(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                const int32_t& count) {
  cannbot_detail::Binary(dst, src0, src1, count, "Sub", false,
                         [](float a, float b) { return a - b; });
}
template <typename T>
inline void Mul(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                const int32_t& count) {
  cannbot_detail::Binary(dst, src0, src1, count, "Mul", false,
                         [](float a, float b) { return a * b; });
}
template <typename T>
inline void Div(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                const int32_t& count) {
  cannbot_detail::Binary(dst, src0, src1, count, "Div", true,
                         [](float a, float b) { return a / b; });
}
template <typename T>
inline void Max(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                const int32_t& count) {
  cannbot_detail::Binary(dst, src0, src1, count, "Max", false,
                         [](float a, float b) { return std::fmax(a, b); });
}
template <typename T>
inline void Min(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                const int32_t& count) {
  cannbot_detail::Binary(dst, src0, src1, count, "Min", false,
                         [](float a, float b) { return std::fmin(a, b); });
}

// ---- with a scalar: the scalar is converted to T first, as the instruction takes a T ----
template <typename T>
inline void Adds(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                 const typename cannbot_detail::NonDeduced<T>::type& scalar, const int32_t& count) {
  const float s = static_cast<float>(static_cast<T>(scalar));
  cannbot_detail::Unary(dst, src, count, "Adds", false, [s](float a) { return a + s; });
}
template <typename T>
inline void Muls(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                 const typename cannbot_detail::NonDeduced<T>::type& scalar, const int32_t& count) {
  const float s = static_cast<float>(static_cast<T>(scalar));
  cannbot_detail::Unary(dst, src, count, "Muls", false, [s](float a) { return a * s; });
}
template <typename T>
inline void Maxs(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                 const typename cannbot_detail::NonDeduced<T>::type& scalar, const int32_t& count) {
  const float s = static_cast<float>(static_cast<T>(scalar));
  cannbot_detail::Unary(dst, src, count, "Maxs", false, [s](float a) { return std::fmax(a, s); });
}
template <typename T>
inline void Mins(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                 const typename cannbot_detail::NonDeduced<T>::type& scalar, const int32_t& count) {
  const float s = static_cast<float>(static_cast<T>(scalar));
  cannbot_detail::Unary(dst, src, count, "Mins", false, [s](float a) { return std::fmin(a, s); });
}
template <typename T>
inline void LeakyRelu(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                      const typename cannbot_detail::NonDeduced<T>::type& scalar,
                      const int32_t& count) {
  const float s = static_cast<float>(static_cast<T>(scalar));
  cannbot_detail::Unary(dst, src, count, "LeakyRelu", false,
                        [s](float a) { return a >= 0 ? a : a * s; });
}
// dst[i] = src[i] * scalar + dst[i]
template <typename T>
inline void Axpy(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                 const typename cannbot_detail::NonDeduced<T>::type& scalar, const int32_t& count) {
  static_assert(cannbot_detail::kVectorFloat<T>,
                "cannbot ascendc emulation: Axpy needs half or float");
  cannbot_detail::CheckCount(count, "Axpy");
  cannbot_detail::Operand(src, count, "Axpy", cannbot_detail::Access::kRead);
  cannbot_detail::Operand(dst, count, "Axpy", cannbot_detail::Access::kReadWrite);
  const float s = static_cast<float>(static_cast<T>(scalar));
  for (int32_t i = 0; i < count; ++i) {
    dst.cb_data_[i] = static_cast<T>(static_cast<float>(src.cb_data_[i]) * s +
                                     static_cast<float>(dst.cb_data_[i]));
  }
  cannbot_ascendc::CountVector(static_cast<uint64_t>(count) * sizeof(T), false);
}
template <typename T>
inline void Duplicate(const LocalTensor<T>& dst,
                      const typename cannbot_detail::NonDeduced<T>::type& scalar,
                      const int32_t& count) {
  cannbot_detail::CheckCount(count, "Duplicate");
  cannbot_detail::Operand(dst, count, "Duplicate", cannbot_detail::Access::kWrite);
  const T v = static_cast<T>(scalar);
  for (int32_t i = 0; i < count; ++i) dst.cb_data_[i] = v;
  cannbot_ascendc::CountVector(static_cast<uint64_t>(count) * sizeof(T), false);
}

// ---- unary ----
template <typename T>
inline void Exp(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count) {
  cannbot_detail::Unary(dst, src, count, "Exp", true, [](float a) { return std::exp(a); });
}
template <typename T>
inline void Ln(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count) {
  cannbot_detail::Unary(dst, src, count, "Ln", true, [](float a) { return std::log(a); });
}
template <typename T>
inline void Abs(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count) {
  cannbot_detail::Unary(dst, src, count, "Abs", false, [](float a) { return std::fabs(a); });
}
template <typename T>
inline void Sqrt(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count) {
  cannbot_detail::Unary(dst, src, count, "Sqrt", true, [](float a) { return std::sqrt(a); });
}
template <typename T>
inline void Rsqrt(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count) {
  cannbot_detail::Unary(dst, src, count, "Rsqrt", true,
                        [](float a) { return 1.0f / std::sqrt(a); });
}
template <typename T>
inline void Reciprocal(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count) {
  cannbot_detail::Unary(dst, src, count, "Reciprocal", true, [](float a) { return 1.0f / a; });
}
template <typename T>
inline void Relu(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count) {
  cannbot_detail::Unary(dst, src, count, "Relu", false, [](float a) { return std::fmax(a, 0.0f); });
}

// ---- Cast: half/bfloat16_t->float (CAST_NONE), float->half and float->bfloat16_t (any mode),
// float->float (integral modes) ----
template <typename D, typename S>
inline void Cast(const LocalTensor<D>& dst, const LocalTensor<S>& src, const RoundMode& mode,
                 const uint32_t& count) {
  constexpr bool kToHalf = std::is_same<D, half>::value && std::is_same<S, float>::value;
  constexpr bool kToBf16 = std::is_same<D, bfloat16_t>::value && std::is_same<S, float>::value;
  constexpr bool kToFloat = std::is_same<D, float>::value &&
                            (std::is_same<S, half>::value || std::is_same<S, bfloat16_t>::value);
  constexpr bool kFloatRound = std::is_same<D, float>::value && std::is_same<S, float>::value;
  static_assert(kToHalf || kToBf16 || kToFloat || kFloatRound,
                "cannbot ascendc emulation: Cast supports float->half, float->bfloat16_t, "
                "half->float, bfloat16_t->float and float->float");
  cannbot_detail::Operand(src, count, "Cast", cannbot_detail::Access::kRead);
  cannbot_detail::Operand(dst, count, "Cast", cannbot_detail::Access::kWrite);
  if (kToFloat && mode != RoundMode::CAST_NONE) {
    cannbot_ascendc::Violation("bad-argument",
                               "Cast to float from a 16-bit type is exact and takes "
                               "RoundMode::CAST_NONE only");
  }
  for (uint32_t i = 0; i < count; ++i) {
    const float v = static_cast<float>(src.cb_data_[i]);
    if constexpr (kToHalf) {
      dst.cb_data_[i] = cannbot_detail::RoundToHalf(v, mode);
    } else if constexpr (kToBf16) {
      dst.cb_data_[i] = cannbot_detail::RoundToBf16(v, mode);
    } else if constexpr (kToFloat) {
      dst.cb_data_[i] = v;
    } else {
      dst.cb_data_[i] = cannbot_detail::RoundFloat(v, mode);
    }
  }
  cannbot_ascendc::CountVector(static_cast<uint64_t>(count) * 4u, false);
}

// ---- reductions over the first `count` elements: the result lands in dst[0] ----
namespace cannbot_detail {
template <typename T>
inline void ReduceOperands(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                           const LocalTensor<T>& work, int32_t count, uint32_t dst_elems,
                           const char* api) {
  static_assert(kVectorFloat<T>, "cannbot ascendc emulation: reductions support half and float");
  CheckCount(count, api);
  if (count == 0) cannbot_ascendc::Violation("bad-argument", "%s with count 0", api);
  Operand(src, count, api, Access::kRead);
  Operand(work, 0, api, Access::kReadWrite);
  Operand(dst, dst_elems, api, Access::kWrite, /*element_aligned=*/true);
  const uint64_t epr = cannbot_ascendc::kRepeatBytes / sizeof(T);
  const uint64_t first = static_cast<uint64_t>(count) < epr ? 1 : (count + epr - 1) / epr;
  // First pass over the data, second pass over the per-repeat results.
  cannbot_ascendc::CountVector(static_cast<uint64_t>(count) * sizeof(T), false);
  cannbot_ascendc::CountVector(first * sizeof(T), false);
}

template <typename T, typename Better>
inline void ReduceBest(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                       const LocalTensor<T>& work, int32_t count, bool cal_index, const char* api,
                       Better better) {
  ReduceOperands(dst, src, work, count, cal_index ? 2 : 1, api);
  int32_t best = 0;
  for (int32_t i = 1; i < count; ++i) {
    if (better(static_cast<float>(src.cb_data_[i]), static_cast<float>(src.cb_data_[best])))
      best = i;
  }
  const T value = src.cb_data_[best];
  dst.cb_data_[0] = value;
  if (cal_index) {
    // The index is stored as an integer bit pattern in the second element.
    if constexpr (sizeof(T) == 4) {
      const uint32_t bits = static_cast<uint32_t>(best);
      std::memcpy(&dst.cb_data_[1], &bits, sizeof(bits));
    } else {
      const uint16_t bits = static_cast<uint16_t>(best);
      std::memcpy(&dst.cb_data_[1], &bits, sizeof(bits));
    }
  }
}
}  // namespace cannbot_detail

template <typename T>
inline void ReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                      const LocalTensor<T>& sharedTmpBuffer, const int32_t count) {
  cannbot_detail::ReduceOperands(dst, src, sharedTmpBuffer, count, 1, "ReduceSum");
  const uint32_t epr = cannbot_ascendc::kRepeatBytes / sizeof(T);
  T scratch[cannbot_ascendc::kRepeatBytes / sizeof(T)];
  T total = T(0);
  for (int32_t start = 0; start < count; start += static_cast<int32_t>(epr)) {
    const uint32_t n =
        static_cast<uint32_t>(count - start) < epr ? static_cast<uint32_t>(count - start) : epr;
    std::memcpy(scratch, src.cb_data_ + start, n * sizeof(T));
    const T partial = cannbot_detail::TreeSum(scratch, n);
    total = start == 0 ? partial : cannbot_detail::ReduceAdd(total, partial);
  }
  dst.cb_data_[0] = total;
}
template <typename T>
inline void ReduceMax(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                      const LocalTensor<T>& sharedTmpBuffer, const int32_t count,
                      bool calIndex = false) {
  cannbot_detail::ReduceBest(dst, src, sharedTmpBuffer, count, calIndex, "ReduceMax",
                             [](float a, float b) { return a > b; });
}
template <typename T>
inline void ReduceMin(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                      const LocalTensor<T>& sharedTmpBuffer, const int32_t count,
                      bool calIndex = false) {
  cannbot_detail::ReduceBest(dst, src, sharedTmpBuffer, count, calIndex, "ReduceMin",
                             [](float a, float b) { return a < b; });
}

// ---- per-repeat reductions (mask-continuous form): one result per repeat ----
namespace cannbot_detail {
// Gathers the `mask` elements of repeat r into `out`; returns how many.
template <typename T>
inline uint32_t GatherRepeat(const LocalTensor<T>& src, int32_t mask, int32_t r,
                             int32_t src_blk_stride, int32_t src_rep_stride, T* out,
                             const char* api) {
  const int64_t epb = cannbot_ascendc::kBlockBytes / sizeof(T);
  for (int32_t j = 0; j < mask; ++j) {
    const int64_t index =
        static_cast<int64_t>(r) * src_rep_stride * epb + (j / epb) * src_blk_stride * epb + j % epb;
    if (index < 0 || index >= static_cast<int64_t>(src.cb_size_)) {
      cannbot_ascendc::Violation("ub-out-of-bounds",
                                 "%s reads element %lld of a source that holds %u", api,
                                 static_cast<long long>(index), src.cb_size_);
    }
    out[j] = src.cb_data_[index];
  }
  return static_cast<uint32_t>(mask);
}

template <typename T>
inline void WholeChecks(const LocalTensor<T>& dst, const LocalTensor<T>& src, int32_t mask,
                        int32_t repeat, int32_t dst_elems, const char* api) {
  static_assert(kVectorFloat<T>, "cannbot ascendc emulation: reductions support half and float");
  const int32_t epr = static_cast<int32_t>(cannbot_ascendc::kRepeatBytes / sizeof(T));
  if (mask < 1 || mask > epr || repeat < 0 || repeat > 255) {
    cannbot_ascendc::Violation("bad-argument", "%s has mask %d (1..%d) and repeatTime %d (0..255)",
                               api, mask, epr, repeat);
  }
  Operand(src, 0, api, Access::kRead);
  Operand(dst, dst_elems, api, Access::kWrite, /*element_aligned=*/true);
  cannbot_ascendc::Counters& c = cannbot_ascendc::R().counters();
  c.vector_instructions += 1;
  c.vector_repeats += static_cast<uint64_t>(repeat);
  c.vector_bytes += static_cast<uint64_t>(repeat) * static_cast<uint64_t>(mask) * sizeof(T);
}

template <typename T, typename Better>
inline void WholeBest(const LocalTensor<T>& dst, const LocalTensor<T>& src, int32_t mask,
                      int32_t repeat, int32_t dst_rep_stride, int32_t src_blk_stride,
                      int32_t src_rep_stride, ReduceOrder order, const char* api, Better better) {
  const bool both =
      order == ReduceOrder::ORDER_VALUE_INDEX || order == ReduceOrder::ORDER_INDEX_VALUE;
  const int32_t width = both ? 2 : 1;
  const int32_t last = repeat > 0 ? (repeat - 1) * dst_rep_stride * width + width : 0;
  WholeChecks(dst, src, mask, repeat, last, api);
  T values[cannbot_ascendc::kRepeatBytes / sizeof(T)];
  for (int32_t r = 0; r < repeat; ++r) {
    const uint32_t n = GatherRepeat(src, mask, r, src_blk_stride, src_rep_stride, values, api);
    uint32_t best = 0;
    for (uint32_t i = 1; i < n; ++i) {
      if (better(static_cast<float>(values[i]), static_cast<float>(values[best]))) best = i;
    }
    T index_bits;
    if constexpr (sizeof(T) == 4) {
      const uint32_t b = best;
      std::memcpy(&index_bits, &b, sizeof(b));
    } else {
      const uint16_t b = static_cast<uint16_t>(best);
      std::memcpy(&index_bits, &b, sizeof(b));
    }
    T* out = dst.cb_data_ + static_cast<int64_t>(r) * dst_rep_stride * width;
    switch (order) {
      case ReduceOrder::ORDER_VALUE_INDEX:
        out[0] = values[best];
        out[1] = index_bits;
        break;
      case ReduceOrder::ORDER_INDEX_VALUE:
        out[0] = index_bits;
        out[1] = values[best];
        break;
      case ReduceOrder::ORDER_ONLY_VALUE:
        out[0] = values[best];
        break;
      case ReduceOrder::ORDER_ONLY_INDEX:
        out[0] = index_bits;
        break;
    }
  }
}
}  // namespace cannbot_detail

template <typename T, bool isSetMask = true>
inline void WholeReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t mask,
                           const int32_t repeatTime, const int32_t dstRepStride,
                           const int32_t srcBlkStride, const int32_t srcRepStride) {
  const char* api = "WholeReduceSum";
  const int32_t last = repeatTime > 0 ? (repeatTime - 1) * dstRepStride + 1 : 0;
  cannbot_detail::WholeChecks(dst, src, mask, repeatTime, last, api);
  T values[cannbot_ascendc::kRepeatBytes / sizeof(T)];
  for (int32_t r = 0; r < repeatTime; ++r) {
    const uint32_t n =
        cannbot_detail::GatherRepeat(src, mask, r, srcBlkStride, srcRepStride, values, api);
    dst.cb_data_[static_cast<int64_t>(r) * dstRepStride] = cannbot_detail::TreeSum(values, n);
  }
}
template <typename T, bool isSetMask = true>
inline void WholeReduceMax(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t mask,
                           const int32_t repeatTime, const int32_t dstRepStride,
                           const int32_t srcBlkStride, const int32_t srcRepStride,
                           ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX) {
  cannbot_detail::WholeBest(dst, src, mask, repeatTime, dstRepStride, srcBlkStride, srcRepStride,
                            order, "WholeReduceMax", [](float a, float b) { return a > b; });
}
template <typename T, bool isSetMask = true>
inline void WholeReduceMin(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t mask,
                           const int32_t repeatTime, const int32_t dstRepStride,
                           const int32_t srcBlkStride, const int32_t srcRepStride,
                           ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX) {
  cannbot_detail::WholeBest(dst, src, mask, repeatTime, dstRepStride, srcBlkStride, srcRepStride,
                            order, "WholeReduceMin", [](float a, float b) { return a < b; });
}

}  // namespace AscendC

#endif  // CANNBOT_ASCENDC_VECTOR_H
