// Naive hardsigmoid: y = relu6(x + 3) / 6, one element per iteration in fp32.
// This is the straightforward first version a kernel developer writes: the clamp keeps every
// finite input in [0, 6], so the result lies in [0, 1].
#include <algorithm>
#include <cstdint>

extern "C" void hardsigmoid(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    y[i] = std::min(std::max(x[i] + 3.0f, 0.0f), 6.0f) / 6.0f;
  }
}
