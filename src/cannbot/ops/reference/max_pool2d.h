// Reference 2-D max pooling, NCHW: y[b][ch][oy][ox] is the maximum of
// x[b][ch][oy*stride - pad + i][ox*stride - pad + j] over the taps i < kh, j < kw that lie
// inside the image (padding is ignored, as if it held -inf); x is [n,c,h,w_], y is
// [n,c,oh,ow], oh = (h + 2*pad - kh) / stride + 1, ow = (w_ + 2*pad - kw) / stride + 1.
// With pad < kh and pad < kw every window holds an image element; a window with none (never
// checked) gets 0.
#ifndef CANNBOT_REF_MAX_POOL2D_H
#define CANNBOT_REF_MAX_POOL2D_H
#include <cstdint>

namespace cannbot_ref {

inline void max_pool2d(const float* x, float* y, int64_t n, int64_t c, int64_t h, int64_t w_,
                       int64_t kh, int64_t kw, int64_t stride, int64_t pad) {
  const int64_t oh = (h + 2 * pad - kh) / stride + 1;
  const int64_t ow = (w_ + 2 * pad - kw) / stride + 1;
  for (int64_t plane = 0; plane < n * c; ++plane) {
    const float* xp = x + plane * h * w_;
    float* yp = y + plane * oh * ow;
    for (int64_t oy = 0; oy < oh; ++oy) {
      for (int64_t ox = 0; ox < ow; ++ox) {
        bool any = false;
        float best = 0.0f;
        for (int64_t i = 0; i < kh; ++i) {
          const int64_t iy = oy * stride - pad + i;
          if (iy < 0 || iy >= h) continue;  // padding takes no part in the maximum
          for (int64_t j = 0; j < kw; ++j) {
            const int64_t ix = ox * stride - pad + j;
            if (ix < 0 || ix >= w_) continue;
            const float v = xp[iy * w_ + ix];
            if (!any || v > best) best = v;
            any = true;
          }
        }
        yp[oy * ow + ox] = best;
      }
    }
  }
}

}  // namespace cannbot_ref
#endif
