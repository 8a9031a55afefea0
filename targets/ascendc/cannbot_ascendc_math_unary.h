// cannbot_ascendc_math_unary.h: more elementwise functions of the Ascend C high-level math
// library, each from its public API page (高阶API/数学计算): the rounding functions Ceil,
// Floor, Round (half away from zero: Round(3.5) = 4), Trunc, Rint (half to even) and Frac
// (x - Trunc(x), so Frac(-258.41888) = -0.41888); Sign (-1, 0 or 1); the trigonometric and
// hyperbolic functions and their inverses; Erf and Erfc. Each in its four forms: (dst, src,
// sharedTmpBuffer, count), (dst, src, count), (dst, src, sharedTmpBuffer) and (dst, src), the
// last two over src's whole size.
//
// Each is evaluated per element in float and rounded to T once (cannbot_ascendc_math.h's
// Composite). The pages do not say which basic instructions the library composes them from:
// the counts below are estimates (a rounding function as two casts, a transcendental one as a
// polynomial of eight instructions, two of them complex), so the cost model sees them as more
// than one instruction, not as measured.
//
// Written from the public Ascend C documentation; not vendor code. Thread-safety: none.
#ifndef CANNBOT_ASCENDC_MATH_UNARY_H
#define CANNBOT_ASCENDC_MATH_UNARY_H

#include <cmath>
#include <cstdint>

#include "cannbot_ascendc_math.h"

namespace AscendC {
namespace cannbot_detail {
inline float SignOf(float x) { return x > 0.0f ? 1.0f : x < 0.0f ? -1.0f : 0.0f; }
inline float FracOf(float x) { return x - std::trunc(x); }
}  // namespace cannbot_detail

// Name(dst, src[, sharedTmpBuffer][, count]) = f(x) per element, `simple` + `complex` counted.
#define CANNBOT_ASCENDC_UNARY_FUNCTION(Name, simple, complex, f)                              \
  template <typename T, bool... kOptions>                                                    \
  inline void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint32_t count) {    \
    cannbot_detail::Composite(dst, src, count, #Name, simple, complex,                       \
                              [](float x) { return static_cast<float>(f(x)); });             \
  }                                                                                          \
  template <typename T, bool... kOptions>                                                    \
  inline void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src,                     \
                   const LocalTensor<uint8_t>&, uint32_t count) {                            \
    Name<T>(dst, src, count);                                                                \
  }                                                                                          \
  CANNBOT_ASCENDC_WHOLE_TENSOR(Name)
CANNBOT_ASCENDC_UNARY_FUNCTION(Ceil, 2, 0, std::ceil)
CANNBOT_ASCENDC_UNARY_FUNCTION(Floor, 2, 0, std::floor)
CANNBOT_ASCENDC_UNARY_FUNCTION(Round, 2, 0, std::round)
CANNBOT_ASCENDC_UNARY_FUNCTION(Trunc, 2, 0, std::trunc)
CANNBOT_ASCENDC_UNARY_FUNCTION(Frac, 3, 0, cannbot_detail::FracOf)
CANNBOT_ASCENDC_UNARY_FUNCTION(Sign, 3, 0, cannbot_detail::SignOf)
CANNBOT_ASCENDC_UNARY_FUNCTION(Sin, 6, 2, std::sin)
CANNBOT_ASCENDC_UNARY_FUNCTION(Cos, 6, 2, std::cos)
CANNBOT_ASCENDC_UNARY_FUNCTION(Tan, 6, 2, std::tan)
CANNBOT_ASCENDC_UNARY_FUNCTION(Asin, 6, 2, std::asin)
CANNBOT_ASCENDC_UNARY_FUNCTION(Acos, 6, 2, std::acos)
CANNBOT_ASCENDC_UNARY_FUNCTION(Atan, 6, 2, std::atan)
CANNBOT_ASCENDC_UNARY_FUNCTION(Sinh, 6, 2, std::sinh)
CANNBOT_ASCENDC_UNARY_FUNCTION(Cosh, 6, 2, std::cosh)
CANNBOT_ASCENDC_UNARY_FUNCTION(Asinh, 6, 2, std::asinh)
CANNBOT_ASCENDC_UNARY_FUNCTION(Acosh, 6, 2, std::acosh)
CANNBOT_ASCENDC_UNARY_FUNCTION(Atanh, 6, 2, std::atanh)
CANNBOT_ASCENDC_UNARY_FUNCTION(Erf, 6, 2, std::erf)
CANNBOT_ASCENDC_UNARY_FUNCTION(Erfc, 6, 2, std::erfc)
#undef CANNBOT_ASCENDC_UNARY_FUNCTION

// Rint takes its config first (its page): RintConfig{isReuseSource}, reserved.
struct RintConfig {
  bool isReuseSource;
};
constexpr RintConfig DEFAULT_RINT_CONFIG = {false};
template <const RintConfig& config = DEFAULT_RINT_CONFIG, typename T>
inline void Rint(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t count) {
  cannbot_detail::Composite(dst, src, count, "Rint", 2, 0,
                            [](float x) { return std::nearbyint(x); });  // half to even
}
template <const RintConfig& config = DEFAULT_RINT_CONFIG, typename T>
inline void Rint(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                 const LocalTensor<uint8_t>&, const uint32_t count) {
  Rint<config>(dst, src, count);
}

}  // namespace AscendC

#endif  // CANNBOT_ASCENDC_MATH_UNARY_H
