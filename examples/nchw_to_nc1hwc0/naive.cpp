// Naive NCHW -> NC1HWC0 (C0 = 16): loop over the output in order and gather each element from
// its channel plane, writing +0 for padding channels past c. The gathers stride by h*w floats,
// so every element of a 16-channel block comes from a different plane.
#include <cstdint>

extern "C" void nchw_to_nc1hwc0(const float* x, float* y, int64_t n, int64_t c, int64_t h, int64_t w) {
  const int64_t c1n = (c + 15) / 16;
  for (int64_t ni = 0; ni < n; ++ni) {
    for (int64_t c1 = 0; c1 < c1n; ++c1) {
      for (int64_t hi = 0; hi < h; ++hi) {
        for (int64_t wi = 0; wi < w; ++wi) {
          for (int64_t c0 = 0; c0 < 16; ++c0) {
            const int64_t ch = c1 * 16 + c0;
            const int64_t out = (((ni * c1n + c1) * h + hi) * w + wi) * 16 + c0;
            y[out] = ch < c ? x[((ni * c + ch) * h + hi) * w + wi] : 0.0f;
          }
        }
      }
    }
  }
}
