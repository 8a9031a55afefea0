// Reference prelu with one slope per channel: x and y are [n, c, hw] (NCHW with H*W
// flattened), y = x > 0 ? x : alpha[channel] * x.
#ifndef CANNBOT_REF_PRELU_H
#define CANNBOT_REF_PRELU_H
#include <cstdint>

namespace cannbot_ref {

inline void prelu(const float* x, const float* alpha, float* y, int64_t n, int64_t c,
                  int64_t hw) {
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t ch = 0; ch < c; ++ch) {
      const float a = alpha[ch];
      const int64_t base = (b * c + ch) * hw;
      for (int64_t i = 0; i < hw; ++i) {
        const float v = x[base + i];
        y[base + i] = v > 0.0f ? v : a * v;
      }
    }
  }
}

}  // namespace cannbot_ref
#endif
