// Naive leaky_relu: y = x > 0 ? x : alpha * x, one element per iteration.
// This is the straightforward first version a kernel developer writes. The result is one
// rounding (alpha * x), the same as the reference's, so it matches bit for bit.
#include <cstdint>

extern "C" void leaky_relu(const float* x, float* y, int64_t n, float alpha) {
  for (int64_t i = 0; i < n; ++i) {
    y[i] = x[i] > 0.0f ? x[i] : alpha * x[i];
  }
}
