// Naive clamp: y = min(max(x, lo), hi), one element per iteration.
// This is the straightforward first version a kernel developer writes: comparisons only, so
// the result is exact.
#include <cstdint>

extern "C" void clamp(const float* x, float* y, int64_t n, float lo, float hi) {
  for (int64_t i = 0; i < n; ++i) {
    const float v = x[i] < lo ? lo : x[i];
    y[i] = v > hi ? hi : v;
  }
}
