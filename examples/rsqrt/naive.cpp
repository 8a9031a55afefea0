// Naive rsqrt: y = 1 / sqrt(x), one scalar std::sqrt and a divide per element in fp32.
// This is the straightforward first version a kernel developer writes: two correctly rounded
// steps, so it is within about an ulp, and subnormal inputs give large finite results.
#include <cmath>
#include <cstdint>

extern "C" void rsqrt(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    y[i] = 1.0f / std::sqrt(x[i]);
  }
}
