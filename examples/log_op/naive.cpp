// Naive log: y = ln(x), one scalar std::log per element in fp32.
// This is the straightforward first version a kernel developer writes: the C library's log
// handles subnormal inputs (their true logarithm, not -inf) and is accurate next to x = 1.
#include <cmath>
#include <cstdint>

extern "C" void log_op(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    y[i] = std::log(x[i]);
  }
}
