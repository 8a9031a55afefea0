// Naive add: y[i] = a[i] + b[i], one element per iteration.
// This is the straightforward first version a kernel developer writes. Each fp32 sum is
// correctly rounded, so it matches the reference exactly.
#include <cstdint>

extern "C" void add(const float* a, const float* b, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    y[i] = a[i] + b[i];
  }
}
