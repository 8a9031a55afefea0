// Reference mul with a per-channel factor: a and y are [n, c, h, w] (NCHW), b is [c], and
// y[b_][ch][i][j] = a[b_][ch][i][j] * b[ch], i.e. element e uses b[(e / (h*w)) % c].
#ifndef CANNBOT_REF_MUL_H
#define CANNBOT_REF_MUL_H
#include <cstdint>

namespace cannbot_ref {

// The product of two floats is exact in double, so one rounding to float gives the correctly
// rounded fp32 product, overflow to +-inf and subnormal products included.
inline void mul(const float* a, const float* b, float* y, int64_t n, int64_t c, int64_t h,
                int64_t w) {
  const int64_t hw = h * w;
  for (int64_t batch = 0; batch < n; ++batch) {
    for (int64_t ch = 0; ch < c; ++ch) {
      const double factor = b[ch];
      const int64_t base = (batch * c + ch) * hw;
      for (int64_t i = 0; i < hw; ++i) {
        y[base + i] = static_cast<float>(static_cast<double>(a[base + i]) * factor);
      }
    }
  }
}

}  // namespace cannbot_ref
#endif
