// Naive softplus: y = log(1 + exp(x)) as max(x, 0) + log1p(exp(-|x|)), one scalar std::exp
// and std::log1p per element in fp32.
// This is the straightforward first version a kernel developer writes once they know that
// exp(x) overflows beyond x = 88.7: exp(-|x|) <= 1 never does, and log1p keeps tiny outputs
// (very negative x) accurate.
#include <algorithm>
#include <cmath>
#include <cstdint>

extern "C" void softplus(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    y[i] = std::max(x[i], 0.0f) + std::log1p(std::exp(-std::fabs(x[i])));
  }
}
