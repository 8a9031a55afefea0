// Reference gelu_tanh (the tanh approximation of GELU):
// y = 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))), evaluated in double.
#ifndef CANNBOT_REF_GELU_TANH_H
#define CANNBOT_REF_GELU_TANH_H
#include <cmath>
#include <cstdint>

namespace cannbot_ref {

inline void gelu_tanh(const float* x, float* y, int64_t n) {
  // 0.5 * (1 + tanh(u)) == 1 / (1 + exp(-2u)): no cancellation for negative x, and the
  // limits come out right: exp(-2u) -> 0 gives y = x, exp(-2u) -> inf gives y = -0.
  const double two_k = 2.0 * 0.79788456080286535587989211986876;  // 2 * sqrt(2 / pi)
  for (int64_t i = 0; i < n; ++i) {
    const double v = x[i];
    // v^3 stays finite in double for every float v (|v|^3 < 4e115).
    const double two_u = two_k * (v + 0.044715 * v * v * v);
    y[i] = static_cast<float>(v / (1.0 + std::exp(-two_u)));
  }
}

}  // namespace cannbot_ref
#endif
