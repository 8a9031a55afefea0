// Naive tanh: y = tanh(x), one scalar std::tanh per element in fp32.
// This is the straightforward first version a kernel developer writes: the C library's tanh
// saturates to +-1 for large |x| and keeps tanh(x) ~ x near 0.
#include <cmath>
#include <cstdint>

extern "C" void tanh_op(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    y[i] = std::tanh(x[i]);
  }
}
