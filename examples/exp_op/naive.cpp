// Naive exp: y = e^x, one scalar std::exp per element in fp32.
// This is the straightforward first version a kernel developer writes: the C library's exp
// overflows to +inf and underflows through the subnormals to 0 exactly as IEEE rounding of
// the true value does.
#include <cmath>
#include <cstdint>

extern "C" void exp_op(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    y[i] = std::exp(x[i]);
  }
}
