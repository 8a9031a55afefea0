// Naive hardswish: y = x * relu6(x + 3) / 6, one element per iteration in fp32.
// This is the straightforward first version a kernel developer writes. relu6(x + 3) is
// divided by 6 before the multiply by x: x * 6 would overflow fp32 beyond 5.7e37, while
// 6 / 6 = 1 exactly, so large x come out as x.
#include <algorithm>
#include <cstdint>

extern "C" void hardswish(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const float relu6 = std::min(std::max(x[i] + 3.0f, 0.0f), 6.0f);
    y[i] = x[i] * (relu6 / 6.0f);
  }
}
