// Naive relu: y = max(x, 0), one element per iteration.
// This is the straightforward first version a kernel developer writes. The result is exact:
// positive values are copied, everything else (including -0 and negative huge values)
// becomes 0.
#include <cstdint>

extern "C" void relu(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    if (x[i] > 0.0f) {
      y[i] = x[i];
    } else {
      y[i] = 0.0f;
    }
  }
}
