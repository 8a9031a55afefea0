// Naive mul by a per-channel factor: a and y are [n, c, h, w] (NCHW), b is [c], and every
// element of channel ch is multiplied by b[ch]. This is the straightforward first version a
// kernel developer writes: one scalar loop per dimension, one fp32 multiply per element.
#include <cstdint>

extern "C" void mul(const float* a, const float* b, float* y, int64_t n, int64_t c, int64_t h,
                    int64_t w) {
  const int64_t hw = h * w;
  for (int64_t batch = 0; batch < n; ++batch) {
    for (int64_t ch = 0; ch < c; ++ch) {
      const int64_t base = (batch * c + ch) * hw;
      for (int64_t i = 0; i < hw; ++i) y[base + i] = a[base + i] * b[ch];
    }
  }
}
