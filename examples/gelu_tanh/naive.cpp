// Naive gelu_tanh: y = 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))), one scalar
// std::tanh per element in fp32.
// This is the straightforward first version a kernel developer writes. It is right at the
// extremes without special cases: once x^3 overflows to +-inf, tanh gives +-1 and y is x or
// -0 (0.5 * x is formed first, so x * 2 never overflows); 1 + tanh cancels for negative x,
// but only by ~1e-7 absolute.
#include <cmath>
#include <cstdint>

extern "C" void gelu_tanh(const float* x, float* y, int64_t n) {
  const float k = 0.7978845608028654f;  // sqrt(2 / pi)
  for (int64_t i = 0; i < n; ++i) {
    const float v = x[i];
    y[i] = 0.5f * v * (1.0f + std::tanh(k * (v + 0.044715f * v * v * v)));
  }
}
