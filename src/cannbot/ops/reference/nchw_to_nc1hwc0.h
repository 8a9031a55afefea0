// Reference NCHW -> NC1HWC0 (C0 = 16) layout change: y[n][c1][h][w][c0] = x[n][c1*16 + c0][h][w],
// and +0 for the padding channels c1*16 + c0 >= c.
#ifndef CANNBOT_REF_NCHW_TO_NC1HWC0_H
#define CANNBOT_REF_NCHW_TO_NC1HWC0_H
#include <cstdint>

namespace cannbot_ref {

inline void nchw_to_nc1hwc0(const float* x, float* y, int64_t n, int64_t c, int64_t h, int64_t w) {
  const int64_t c0n = 16;
  const int64_t c1n = (c + c0n - 1) / c0n;
  const int64_t hw = h * w;
  for (int64_t ni = 0; ni < n; ++ni) {
    for (int64_t c1 = 0; c1 < c1n; ++c1) {
      for (int64_t p = 0; p < hw; ++p) {
        float* dst = y + ((ni * c1n + c1) * hw + p) * c0n;
        for (int64_t c0 = 0; c0 < c0n; ++c0) {
          const int64_t ch = c1 * c0n + c0;
          dst[c0] = ch < c ? x[(ni * c + ch) * hw + p] : 0.0f;
        }
      }
    }
  }
}

}  // namespace cannbot_ref
#endif
