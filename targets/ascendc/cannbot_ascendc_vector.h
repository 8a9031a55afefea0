// cannbot_ascendc_vector.h: the count forms of the vector instructions (Cast:
// cannbot_ascendc_cast.h; reductions: cannbot_ascendc_reduce.h; mask and repeat forms:
// cannbot_ascendc_repeat.h).
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
#include <limits>
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
  CAST_ODD,
  CAST_HYBRID,  // named by the register functions' cast traits; not taken by Cast here
  UNKNOWN       // a cast trait's "no rounding given": as CAST_NONE
};
enum class ReduceOrder { ORDER_VALUE_INDEX, ORDER_INDEX_VALUE, ORDER_ONLY_VALUE, ORDER_ONLY_INDEX };

namespace cannbot_detail {

template <typename T>
struct NonDeduced {
  using type = T;
};
template <typename T>
constexpr bool kVectorFloat = std::is_same<T, float>::value || std::is_same<T, half>::value;
template <typename T>
constexpr bool kVectorInteger = std::is_integral<T>::value && (sizeof(T) == 2 || sizeof(T) == 4);
// What an elementwise instruction computes in: float for half and float (one rounding to T per
// instruction), int64_t for the 16- and 32-bit integers (the result wraps to T, as two's
// complement hardware does).
template <typename T>
using Compute = typename std::conditional<std::is_integral<T>::value, int64_t, float>::type;

template <typename T>
constexpr const char* ElementName() {
  if constexpr (std::is_same<T, float>::value) return "float";
  if constexpr (std::is_same<T, half>::value) return "half";
  if constexpr (std::is_same<T, bfloat16_t>::value) return "bfloat16_t";
  if constexpr (std::is_same<T, int8_t>::value) return "int8_t";
  if constexpr (std::is_same<T, uint8_t>::value) return "uint8_t";
  if constexpr (std::is_same<T, int16_t>::value) return "int16_t";
  if constexpr (std::is_same<T, uint16_t>::value) return "uint16_t";
  if constexpr (std::is_same<T, int32_t>::value) return "int32_t";
  if constexpr (std::is_same<T, uint32_t>::value) return "uint32_t";
  if constexpr (std::is_same<T, int64_t>::value) return "int64_t";
  if constexpr (std::is_same<T, uint64_t>::value) return "uint64_t";
  return "these";
}

// Vector math on an element type the emulation does not compute (integers; bfloat16_t, which
// the device's vector unit does not compute either). Not a compile error: a kernel compiled
// once per dtype instantiates every dtype's branch, as the device compiler does, and only a
// launch that reaches this one stops here, naming the instruction and the type.
template <typename T>
inline void RequireVectorFloat(const char* api) {
  if constexpr (!kVectorFloat<T>) {
    cannbot_ascendc::Violation(
        "not-emulated",
        "%s on %s tensors: cannbot's emulation computes this instruction on half and float "
        "only%s",
        api, ElementName<T>(),
        std::is_same<T, bfloat16_t>::value ? " (bfloat16_t: Cast to float first, as on the device)"
                                           : "");
  }
}
// The same for an instruction that also takes 16- and 32-bit integers when `integers` (Add,
// Sub, Mul, Max, Min, their scalar forms and Relu; docs/ascendc.md says where the device's
// list is narrower).
template <typename T>
inline void RequireVectorMath(const char* api, bool integers) {
  if constexpr (kVectorInteger<T>) {
    if (integers) return;
  }
  RequireVectorFloat<T>(api);
}

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

// dst[i] = g(src[i]) on the elements themselves (g: T -> T).
template <typename T, typename G>
inline void UnaryElements(const LocalTensor<T>& dst, const LocalTensor<T>& src, int32_t count,
                          const char* api, bool complex, bool integers, G g) {
  RequireVectorMath<T>(api, integers);
  CheckCount(count, api);
  Operand(src, count, api, Access::kRead);
  Operand(dst, count, api, Access::kWrite);
  T* d = dst.cb_data_;
  const T* s = src.cb_data_;
  for (int32_t i = 0; i < count; ++i) d[i] = g(s[i]);
  cannbot_ascendc::CountVector(static_cast<uint64_t>(count) * sizeof(T), complex);
}

// dst[i] = f(src[i]) computed in float (f: float -> float).
template <typename T, typename F>
inline void Unary(const LocalTensor<T>& dst, const LocalTensor<T>& src, int32_t count,
                  const char* api, bool complex, F f) {
  UnaryElements(dst, src, count, api, complex, false,
                [&f](T v) { return static_cast<T>(f(static_cast<float>(v))); });
}

// |v| as the device computes it: the sign bit cleared, every other bit kept. Through float a
// signalling NaN would come back quiet, and kernels do run Abs on bf16 data viewed as half
// (where large bf16 values are NaN patterns), so Abs works on the bits.
template <typename T>
inline T ClearSign(T v) {
  if constexpr (sizeof(T) == 2 || sizeof(T) == 4) {
    using Bits = typename std::conditional<sizeof(T) == 2, uint16_t, uint32_t>::type;
    Bits bits;
    std::memcpy(&bits, &v, sizeof(bits));
    bits = static_cast<Bits>(bits & ~(Bits{1} << (sizeof(T) * 8 - 1)));
    std::memcpy(&v, &bits, sizeof(bits));
    return v;
  } else {
    return v;  // not reached: other types stop as not-emulated first
  }
}

// dst[i] = f(src0[i], src1[i]) computed in Compute<T>.
template <typename T, typename F>
inline void Binary(const LocalTensor<T>& dst, const LocalTensor<T>& src0,
                   const LocalTensor<T>& src1, int32_t count, const char* api, bool complex,
                   bool integers, F f) {
  RequireVectorMath<T>(api, integers);
  CheckCount(count, api);
  Operand(src0, count, api, Access::kRead);
  Operand(src1, count, api, Access::kRead);
  Operand(dst, count, api, Access::kWrite);
  T* d = dst.cb_data_;
  const T* a = src0.cb_data_;
  const T* b = src1.cb_data_;
  for (int32_t i = 0; i < count; ++i) {
    d[i] = static_cast<T>(f(static_cast<Compute<T>>(a[i]), static_cast<Compute<T>>(b[i])));
  }
  cannbot_ascendc::CountVector(static_cast<uint64_t>(count) * sizeof(T), complex);
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
}  // namespace cannbot_detail

// The elementwise instructions, each named once with whether it is complex (several cycles
// per repeat), whether it takes 16- and 32-bit integers too, and its value per element in
// Compute<T> (`a`, `b`: the sources; `s`: the scalar, already converted to T; a unary one may
// use the element itself, `v`, instead of `a`). The count forms below and the mask/repeat
// forms (cannbot_ascendc_repeat.h) are generated from these lists: a new instruction is one line.
#define CANNBOT_ASCENDC_BINARY_OPS(X)  \
  X(Add, false, true, a + b)           \
  X(Sub, false, true, a - b)           \
  X(Mul, false, true, a * b)           \
  X(Div, true, false, a / b)           \
  X(Max, false, true, std::fmax(a, b)) \
  X(Min, false, true, std::fmin(a, b))
#define CANNBOT_ASCENDC_SCALAR_OPS(X) \
  X(Adds, true, a + s)                \
  X(Muls, true, a * s)                \
  X(Maxs, true, std::fmax(a, s))      \
  X(Mins, true, std::fmin(a, s))      \
  X(LeakyRelu, false, a >= 0 ? a : a * s)
#define CANNBOT_ASCENDC_UNARY_OPS(X)                 \
  X(Exp, true, false, std::exp(a))                   \
  X(Ln, true, false, std::log(a))                    \
  X(Abs, false, false, cannbot_detail::ClearSign(v)) \
  X(Sqrt, true, false, std::sqrt(a))                 \
  X(Rsqrt, true, false, 1.0f / std::sqrt(a))         \
  X(Reciprocal, true, false, 1.0f / a)               \
  X(Relu, false, true, std::fmax(a, decltype(a)(0)))

// ---- count forms: `count` elements from the start of each operand ----
#define CANNBOT_ASCENDC_BINARY_COUNT_FORM(Name, complex, integers, expr)                       \
  template <typename T>                                                                        \
  inline void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src0,                      \
                   const LocalTensor<T>& src1, const int32_t& count) {                         \
    cannbot_detail::Binary(dst, src0, src1, count, #Name, complex, integers,                   \
                           [](auto a, auto b) { return expr; });                               \
  }
#define CANNBOT_ASCENDC_SCALAR_COUNT_FORM(Name, integers, expr)                                \
  template <typename T>                                                                        \
  inline void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src,                       \
                   const typename cannbot_detail::NonDeduced<T>::type& scalar,                 \
                   const int32_t& count) {                                                     \
    using C = cannbot_detail::Compute<T>;                                                      \
    const C s = static_cast<C>(static_cast<T>(scalar));                                        \
    cannbot_detail::UnaryElements(dst, src, count, #Name, false, integers, [s](T v) {          \
      const C a = static_cast<C>(v);                                                           \
      return static_cast<T>(expr);                                                             \
    });                                                                                        \
  }
#define CANNBOT_ASCENDC_UNARY_COUNT_FORM(Name, complex, integers, expr)                        \
  template <typename T>                                                                        \
  inline void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count) { \
    cannbot_detail::UnaryElements(dst, src, count, #Name, complex, integers, [](T v) {           \
      [[maybe_unused]] const auto a = static_cast<cannbot_detail::Compute<T>>(v);              \
      return static_cast<T>(expr);                                                              \
    });                                                                                         \
  }
CANNBOT_ASCENDC_BINARY_OPS(CANNBOT_ASCENDC_BINARY_COUNT_FORM)
CANNBOT_ASCENDC_SCALAR_OPS(CANNBOT_ASCENDC_SCALAR_COUNT_FORM)
CANNBOT_ASCENDC_UNARY_OPS(CANNBOT_ASCENDC_UNARY_COUNT_FORM)
#undef CANNBOT_ASCENDC_BINARY_COUNT_FORM
#undef CANNBOT_ASCENDC_SCALAR_COUNT_FORM
#undef CANNBOT_ASCENDC_UNARY_COUNT_FORM

// ---- the operator form, "the whole tensor takes part": dst = src0 + src1 (-, *, /) ----
namespace cannbot_detail {
enum class WholeOp { kAdd, kSub, kMul, kDiv };

// What `src0 * src1` returns; assigning it to a LocalTensor runs the instruction over the
// tensors' elements (the fewest of the three, so no operand is read or written past its end).
template <typename T, WholeOp kOp>
struct WholeTensor {
  LocalTensor<T> src0, src1;
  void AssignTo(const LocalTensor<T>& dst) const {
    uint32_t n = dst.GetSize();
    if (src0.GetSize() < n) n = src0.GetSize();
    if (src1.GetSize() < n) n = src1.GetSize();
    const int32_t count = static_cast<int32_t>(n);
    if constexpr (kOp == WholeOp::kAdd) AscendC::Add(dst, src0, src1, count);
    if constexpr (kOp == WholeOp::kSub) AscendC::Sub(dst, src0, src1, count);
    if constexpr (kOp == WholeOp::kMul) AscendC::Mul(dst, src0, src1, count);
    if constexpr (kOp == WholeOp::kDiv) AscendC::Div(dst, src0, src1, count);
  }
};
}  // namespace cannbot_detail

template <typename T>
cannbot_detail::WholeTensor<T, cannbot_detail::WholeOp::kAdd> operator+(const LocalTensor<T>& a,
                                                                       const LocalTensor<T>& b) {
  return {a, b};
}
template <typename T>
cannbot_detail::WholeTensor<T, cannbot_detail::WholeOp::kSub> operator-(const LocalTensor<T>& a,
                                                                       const LocalTensor<T>& b) {
  return {a, b};
}
template <typename T>
cannbot_detail::WholeTensor<T, cannbot_detail::WholeOp::kMul> operator*(const LocalTensor<T>& a,
                                                                       const LocalTensor<T>& b) {
  return {a, b};
}
template <typename T>
cannbot_detail::WholeTensor<T, cannbot_detail::WholeOp::kDiv> operator/(const LocalTensor<T>& a,
                                                                       const LocalTensor<T>& b) {
  return {a, b};
}

// dst[i] = src[i] * scalar + dst[i]
template <typename T>
inline void Axpy(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                 const typename cannbot_detail::NonDeduced<T>::type& scalar, const int32_t& count) {
  cannbot_detail::RequireVectorFloat<T>("Axpy");
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
// The Ascend 950 form (Duplicate's page): src[0] in every element, src and dst may be one.
template <typename T>
inline void Duplicate(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count) {
  cannbot_detail::CheckCount(count, "Duplicate");
  cannbot_detail::Operand(src, 1, "Duplicate", cannbot_detail::Access::kRead);
  const T v = src.cb_data_[0];
  Duplicate(dst, v, count);
}

}  // namespace AscendC

#endif  // CANNBOT_ASCENDC_VECTOR_H
