// Reference leaky_relu: y = x > 0 ? x : alpha * x (one rounding, so exact in fp32).
#ifndef CANNBOT_REF_LEAKY_RELU_H
#define CANNBOT_REF_LEAKY_RELU_H
#include <cstdint>

namespace cannbot_ref {

inline void leaky_relu(const float* x, float* y, int64_t n, float alpha) {
  const double a = alpha;
  for (int64_t i = 0; i < n; ++i) {
    const double v = x[i];
    // The product of two floats is exact in double, so the cast is the only rounding.
    y[i] = static_cast<float>(v > 0.0 ? v : a * v);
  }
}

}  // namespace cannbot_ref
#endif
