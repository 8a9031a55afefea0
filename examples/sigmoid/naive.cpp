// Naive sigmoid: y = 1 / (1 + exp(-x)), one scalar std::exp per element in fp32.
// This is the straightforward first version a kernel developer writes. It is correct at the
// extremes without special cases: for very negative x, exp(-x) overflows to +inf and
// 1 / inf = 0; for very positive x, exp(-x) underflows to 0 and the result is 1.
#include <cmath>
#include <cstdint>

extern "C" void sigmoid(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    y[i] = 1.0f / (1.0f + std::exp(-x[i]));
  }
}
