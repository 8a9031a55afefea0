// Naive reciprocal: y = 1 / x, one divide per element in fp32.
// This is the straightforward first version a kernel developer writes: IEEE division is
// correctly rounded, including subnormal results for the largest |x|.
#include <cstdint>

extern "C" void reciprocal(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    y[i] = 1.0f / x[i];
  }
}
