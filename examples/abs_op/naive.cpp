// Naive abs: y = |x|, one element per iteration.
// This is the straightforward first version a kernel developer writes: std::fabs clears the
// sign bit, so -0 becomes +0 and every other value is exact.
#include <cmath>
#include <cstdint>

extern "C" void abs_op(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    y[i] = std::fabs(x[i]);
  }
}
