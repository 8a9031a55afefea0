// Naive swish (SiLU): y = x / (1 + exp(-x)), one scalar std::exp per element.
// This is the straightforward first version a kernel developer writes. It is correct at
// the extremes without special cases: for very negative x, exp(-x) overflows to +inf and
// x / inf = -0; for very positive x, exp(-x) underflows to 0 and the result is x.
#include <cmath>
#include <cstdint>

extern "C" void swish(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    y[i] = x[i] / (1.0f + std::exp(-x[i]));
  }
}
