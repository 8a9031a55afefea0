// Naive elu: y = x > 0 ? x : alpha * (exp(x) - 1), with one scalar std::expm1 per negative
// element in fp32.
// This is the straightforward first version a kernel developer writes: expm1 keeps small
// negative x accurate, and for very negative x it saturates to -1, so y = -alpha.
#include <cmath>
#include <cstdint>

extern "C" void elu(const float* x, float* y, int64_t n, float alpha) {
  for (int64_t i = 0; i < n; ++i) {
    y[i] = x[i] > 0.0f ? x[i] : alpha * std::expm1(x[i]);
  }
}
