// Naive sqrt: y = sqrt(x), one scalar std::sqrt per element in fp32.
// This is the straightforward first version a kernel developer writes: IEEE sqrt is
// correctly rounded, gives +-0 for +-0 and a normal number for a subnormal input.
#include <cmath>
#include <cstdint>

extern "C" void sqrt_op(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    y[i] = std::sqrt(x[i]);
  }
}
