// Reference pow_scalar: y = x^exponent for x > 0 (a float exponent), evaluated in double.
#ifndef CANNBOT_REF_POW_SCALAR_H
#define CANNBOT_REF_POW_SCALAR_H
#include <cmath>
#include <cstdint>

namespace cannbot_ref {

inline void pow_scalar(const float* x, float* y, int64_t n, float exponent) {
  const double p = exponent;
  for (int64_t i = 0; i < n; ++i) {
    // In double x^p over/underflows only far beyond float's range, so overflow to +inf and
    // underflow to 0 happen in the final rounding, as they must.
    y[i] = static_cast<float>(std::pow(static_cast<double>(x[i]), p));
  }
}

}  // namespace cannbot_ref
#endif
