// Reference gelu, exact erf form: y = 0.5 * x * (1 + erf(x / sqrt(2))), evaluated in double.
#ifndef CANNBOT_REF_GELU_H
#define CANNBOT_REF_GELU_H
#include <cmath>
#include <cstdint>

namespace cannbot_ref {

inline void gelu(const float* x, float* y, int64_t n) {
  const double inv_sqrt2 = 0.70710678118654752440;
  for (int64_t i = 0; i < n; ++i) {
    const double v = x[i];
    // 1 + erf(t) == erfc(-t); erfc keeps full precision for negative x, where 1 + erf cancels.
    y[i] = static_cast<float>(0.5 * v * std::erfc(-v * inv_sqrt2));
  }
}

}  // namespace cannbot_ref
#endif
