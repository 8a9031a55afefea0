// Naive 2-D max pooling, NCHW: for every output element, scan its kh x kw window and keep the
// largest element inside the image; taps in the padding are skipped (they are not zeros).
// pad < kh and pad < kw, so every window holds at least one image element.
#include <cmath>
#include <cstdint>

extern "C" void max_pool2d(const float* x, float* y, int64_t n, int64_t c, int64_t h, int64_t w_,
                           int64_t kh, int64_t kw, int64_t stride, int64_t pad) {
  const int64_t oh = (h + 2 * pad - kh) / stride + 1;
  const int64_t ow = (w_ + 2 * pad - kw) / stride + 1;
  for (int64_t plane = 0; plane < n * c; ++plane) {
    const float* xp = x + plane * h * w_;
    float* yp = y + plane * oh * ow;
    for (int64_t oy = 0; oy < oh; ++oy) {
      for (int64_t ox = 0; ox < ow; ++ox) {
        float best = -INFINITY;
        for (int64_t i = 0; i < kh; ++i) {
          const int64_t iy = oy * stride - pad + i;
          if (iy < 0 || iy >= h) continue;
          for (int64_t j = 0; j < kw; ++j) {
            const int64_t ix = ox * stride - pad + j;
            if (ix < 0 || ix >= w_) continue;
            if (xp[iy * w_ + ix] > best) best = xp[iy * w_ + ix];
          }
        }
        yp[oy * ow + ox] = best;
      }
    }
  }
}
