// Naive pow_scalar: y = x^exponent, one scalar std::pow per element in fp32.
// This is the straightforward first version a kernel developer writes: the C library's powf
// is within an ulp and overflows to +inf or underflows to 0 as IEEE rounding does.
#include <cmath>
#include <cstdint>

extern "C" void pow_scalar(const float* x, float* y, int64_t n, float exponent) {
  for (int64_t i = 0; i < n; ++i) {
    y[i] = std::pow(x[i], exponent);
  }
}
