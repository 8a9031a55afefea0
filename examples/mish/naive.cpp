// Naive mish: y = x * tanh(log1p(exp(x))), one std::exp, std::log1p and std::tanh per element
// in fp32.
// This is the straightforward first version a kernel developer writes. It is right at the
// extremes without special cases: for large x, exp overflows to +inf, log1p(inf) = inf and
// tanh(inf) = 1, so y = x; for very negative x, exp underflows to 0 and y = -0.
#include <cmath>
#include <cstdint>

extern "C" void mish(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    y[i] = x[i] * std::tanh(std::log1p(std::exp(x[i])));
  }
}
