// Naive gelu, exact erf form: y = 0.5 * x * (1 + erf(x / sqrt(2))), one scalar std::erf per
// element in fp32.
// This is the straightforward first version a kernel developer writes. It is accurate
// enough without special cases: for very negative x, 1 + erf(x/sqrt2) cancels, but the
// product with 0.5*x stays far below the tolerance; at +-3e38, erf saturates to +-1 and the
// result is x or -0.
#include <cmath>
#include <cstdint>

extern "C" void gelu(const float* x, float* y, int64_t n) {
  const float inv_sqrt2 = 1.0f / std::sqrt(2.0f);
  for (int64_t i = 0; i < n; ++i) {
    y[i] = 0.5f * x[i] * (1.0f + std::erf(x[i] * inv_sqrt2));
  }
}
