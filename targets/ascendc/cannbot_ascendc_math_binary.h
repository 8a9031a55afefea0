// cannbot_ascendc_math_binary.h: the elementwise functions of the Ascend C high-level math
// library that take more than one operand, each from its public API page (高阶API/数学计算):
//   Clamp(dst, src, min, max, count)       min and max each a scalar or a tensor; dst =
//                                          min(max(src, min), max)
//   ClampMax / ClampMin(dst, src, [tmp,] scalar, count)   min(src, scalar) / max(src, scalar)
//   Fma(dst, src0, src1, src2, [tmp,] count)              src0 * src1 + src2, rounded once
//   Xor(dst, src0, src1[, tmp][, count])   bitwise, integer types
//   BitwiseAnd / BitwiseOr(dst, src0, src1, count)        bitwise, integer types
//   LogicalAnd / LogicalOr(dst, src0, src1, count)        dst (bool) = the operands' truth
// Floating types compute in float and round to T once; integers compute in their own type.
// The config structs (ClampConfig, FmaConfig, ...) hold the reserved isReuseSource flag. Each
// call counts as one vector instruction per operand beyond the first (the pages do not say how
// the library composes them: an estimate).
//
// Written from the public Ascend C documentation; not vendor code. Thread-safety: none.
#ifndef CANNBOT_ASCENDC_MATH_BINARY_H
#define CANNBOT_ASCENDC_MATH_BINARY_H

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "cannbot_ascendc_vector.h"

namespace AscendC {

#define CANNBOT_ASCENDC_CONFIG(Type, Default) \
  struct Type {                               \
    bool isReuseSource;                       \
  };                                          \
  constexpr Type Default = {false};
CANNBOT_ASCENDC_CONFIG(ClampConfig, DEFAULT_CLAMP_CONFIG)
CANNBOT_ASCENDC_CONFIG(FmaConfig, DEFAULT_FMA_CONFIG)
CANNBOT_ASCENDC_CONFIG(BitwiseAndConfig, DEFAULT_BITWISE_AND_CONFIG)
CANNBOT_ASCENDC_CONFIG(BitwiseOrConfig, DEFAULT_BITWISE_OR_CONFIG)
CANNBOT_ASCENDC_CONFIG(LogicalAndConfig, DEFAULT_LOGICAL_AND_CONFIG)
CANNBOT_ASCENDC_CONFIG(LogicalOrConfig, DEFAULT_LOGICAL_OR_CONFIG)
#undef CANNBOT_ASCENDC_CONFIG

namespace cannbot_detail {

// The type an element computes in: an integer's own, float for the floating types.
template <typename T>
using Computed = std::conditional_t<std::is_integral<T>::value, T, float>;

template <typename T>
struct IsLocalTensor : std::false_type {};
template <typename T>
struct IsLocalTensor<LocalTensor<T>> : std::true_type {};

// Element i of an operand that is a tensor (checked for `count` elements once) or a scalar.
template <typename T, typename U>
inline Computed<T> OperandAt(const U& u, int32_t i) {
  if constexpr (IsLocalTensor<U>::value) {
    return static_cast<Computed<T>>(u.cb_data_[i]);
  } else {
    return static_cast<Computed<T>>(static_cast<T>(u));
  }
}
template <typename U>
inline void CheckOperand(const U& u, int32_t count, const char* api) {
  if constexpr (IsLocalTensor<U>::value) Operand(u, count, api, Access::kRead);
}

// dst[i] = f(i) for i < count, after the operands' checks; `instructions` counted.
template <typename T, typename F>
inline void Elementwise(const LocalTensor<T>& dst, int32_t count, const char* api,
                        int instructions, F f) {
  CheckCount(count, api);
  Operand(dst, count, api, Access::kWrite);
  for (int32_t i = 0; i < count; ++i) dst.cb_data_[i] = static_cast<T>(f(i));
  for (int k = 0; k < instructions; ++k) {
    cannbot_ascendc::CountVector(static_cast<uint64_t>(count) * sizeof(T), false);
  }
}


}  // namespace cannbot_detail

template <const ClampConfig& config = DEFAULT_CLAMP_CONFIG, typename T, typename U, typename S>
inline void Clamp(const LocalTensor<T>& dst, const LocalTensor<T>& src, const U& min, const S& max,
                  const uint32_t count) {
  const int32_t n = static_cast<int32_t>(count);
  cannbot_detail::Operand(src, n, "Clamp", cannbot_detail::Access::kRead);
  cannbot_detail::CheckOperand(min, n, "Clamp");
  cannbot_detail::CheckOperand(max, n, "Clamp");
  cannbot_detail::Elementwise(dst, n, "Clamp", 2, [&](int32_t i) {
    auto v = static_cast<cannbot_detail::Computed<T>>(src.cb_data_[i]);
    const auto lo = cannbot_detail::OperandAt<T>(min, i);
    const auto hi = cannbot_detail::OperandAt<T>(max, i);
    v = v < lo ? lo : v;
    return v > hi ? hi : v;
  });
}

#define CANNBOT_ASCENDC_CLAMP_ONE_SIDE(Name, keep_below)                                       \
  template <typename T, bool isReuseSource = false>                                           \
  inline void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T scalar,       \
                   const uint32_t count) {                                                     \
    const int32_t n = static_cast<int32_t>(count);                                             \
    cannbot_detail::Operand(src, n, #Name, cannbot_detail::Access::kRead);                     \
    const auto s = static_cast<cannbot_detail::Computed<T>>(scalar);                           \
    cannbot_detail::Elementwise(dst, n, #Name, 1, [&](int32_t i) {                             \
      const auto v = static_cast<cannbot_detail::Computed<T>>(src.cb_data_[i]);                \
      return (keep_below) ? (v > s ? s : v) : (v < s ? s : v);                                 \
    });                                                                                        \
  }                                                                                            \
  template <typename T, bool isReuseSource = false>                                           \
  inline void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src,                       \
                   const LocalTensor<uint8_t>&, const T scalar, const uint32_t count) {        \
    Name<T, isReuseSource>(dst, src, scalar, count);                                           \
  }
CANNBOT_ASCENDC_CLAMP_ONE_SIDE(ClampMax, true)
CANNBOT_ASCENDC_CLAMP_ONE_SIDE(ClampMin, false)
#undef CANNBOT_ASCENDC_CLAMP_ONE_SIDE

template <const FmaConfig& config = DEFAULT_FMA_CONFIG, typename T>
inline void Fma(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                const LocalTensor<T>& src2, const uint32_t count) {
  static_assert(!std::is_integral<T>::value, "Fma takes half or float");
  const int32_t n = static_cast<int32_t>(count);
  for (const LocalTensor<T>* s : {&src0, &src1, &src2}) {
    cannbot_detail::Operand(*s, n, "Fma", cannbot_detail::Access::kRead);
  }
  cannbot_detail::Elementwise(dst, n, "Fma", 2, [&](int32_t i) {
    return std::fma(static_cast<float>(src0.cb_data_[i]), static_cast<float>(src1.cb_data_[i]),
                    static_cast<float>(src2.cb_data_[i]));
  });
}
template <const FmaConfig& config = DEFAULT_FMA_CONFIG, typename T>
inline void Fma(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                const LocalTensor<T>& src2, const LocalTensor<uint8_t>&, const uint32_t count) {
  Fma<config>(dst, src0, src1, src2, count);
}

// dst[i] = src0[i] op src1[i] over `count` elements (integers; Logical*: dst bool).
#define CANNBOT_ASCENDC_BITWISE(Name, Config, Default, expr)                                  \
  template <const Config& config = Default, typename T>                                      \
  inline void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src0,                    \
                   const LocalTensor<T>& src1, const uint32_t count) {                       \
    static_assert(std::is_integral<T>::value, #Name " takes integer types");                 \
    const int32_t n = static_cast<int32_t>(count);                                           \
    cannbot_detail::Operand(src0, n, #Name, cannbot_detail::Access::kRead);                  \
    cannbot_detail::Operand(src1, n, #Name, cannbot_detail::Access::kRead);                  \
    cannbot_detail::Elementwise(dst, n, #Name, 1, [&](int32_t i) {                           \
      const T a = src0.cb_data_[i], b = src1.cb_data_[i];                                    \
      return static_cast<T>(expr);                                                           \
    });                                                                                      \
  }
CANNBOT_ASCENDC_BITWISE(BitwiseAnd, BitwiseAndConfig, DEFAULT_BITWISE_AND_CONFIG, a & b)
CANNBOT_ASCENDC_BITWISE(BitwiseOr, BitwiseOrConfig, DEFAULT_BITWISE_OR_CONFIG, a | b)
#undef CANNBOT_ASCENDC_BITWISE

template <typename T, bool isReuseSource = false>
inline void Xor(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                const uint32_t count) {
  static_assert(std::is_integral<T>::value, "Xor takes integer types");
  const int32_t n = static_cast<int32_t>(count);
  cannbot_detail::Operand(src0, n, "Xor", cannbot_detail::Access::kRead);
  cannbot_detail::Operand(src1, n, "Xor", cannbot_detail::Access::kRead);
  cannbot_detail::Elementwise(dst, n, "Xor", 1, [&](int32_t i) {
    return static_cast<T>(src0.cb_data_[i] ^ src1.cb_data_[i]);
  });
}
template <typename T, bool isReuseSource = false>
inline void Xor(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                const LocalTensor<uint8_t>&, const uint32_t count) {
  Xor<T, isReuseSource>(dst, src0, src1, count);
}
template <typename T, bool isReuseSource = false>
inline void Xor(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1) {
  Xor<T, isReuseSource>(dst, src0, src1, static_cast<uint32_t>(src0.GetSize()));
}
template <typename T, bool isReuseSource = false>
inline void Xor(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                const LocalTensor<uint8_t>&) {
  Xor<T, isReuseSource>(dst, src0, src1, static_cast<uint32_t>(src0.GetSize()));
}

#define CANNBOT_ASCENDC_LOGICAL(Name, Config, Default, op)                                    \
  template <const Config& config = Default, typename T, typename U>                          \
  inline void Name(const LocalTensor<T>& dst, const LocalTensor<U>& src0,                    \
                   const LocalTensor<U>& src1, const uint32_t count) {                       \
    const int32_t n = static_cast<int32_t>(count);                                           \
    cannbot_detail::Operand(src0, n, #Name, cannbot_detail::Access::kRead);                  \
    cannbot_detail::Operand(src1, n, #Name, cannbot_detail::Access::kRead);                  \
    cannbot_detail::Elementwise(dst, n, #Name, 2, [&](int32_t i) {                           \
      const bool a = static_cast<float>(src0.cb_data_[i]) != 0.0f;                           \
      const bool b = static_cast<float>(src1.cb_data_[i]) != 0.0f;                           \
      return a op b;                                                                         \
    });                                                                                      \
  }
CANNBOT_ASCENDC_LOGICAL(LogicalAnd, LogicalAndConfig, DEFAULT_LOGICAL_AND_CONFIG, &&)
CANNBOT_ASCENDC_LOGICAL(LogicalOr, LogicalOrConfig, DEFAULT_LOGICAL_OR_CONFIG, ||)
#undef CANNBOT_ASCENDC_LOGICAL

}  // namespace AscendC

#endif  // CANNBOT_ASCENDC_MATH_BINARY_H
