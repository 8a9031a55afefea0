// Reference 2-D average pooling, NCHW, count_include_pad = false: y[b][ch][oy][ox] is the
// mean of x[b][ch][oy*stride - pad + i][ox*stride - pad + j] over the taps i < kh, j < kw that
// lie inside the image (the divisor counts only those); x is [n,c,h,w_], y is [n,c,oh,ow],
// oh = (h + 2*pad - kh) / stride + 1, ow = (w_ + 2*pad - kw) / stride + 1. Sums in double.
// With pad < kh and pad < kw every window holds an image element; a window with none (never
// checked) gets 0.
#ifndef CANNBOT_REF_AVG_POOL2D_H
#define CANNBOT_REF_AVG_POOL2D_H
#include <cstdint>

namespace cannbot_ref {

inline void avg_pool2d(const float* x, float* y, int64_t n, int64_t c, int64_t h, int64_t w_,
                       int64_t kh, int64_t kw, int64_t stride, int64_t pad) {
  const int64_t oh = (h + 2 * pad - kh) / stride + 1;
  const int64_t ow = (w_ + 2 * pad - kw) / stride + 1;
  for (int64_t plane = 0; plane < n * c; ++plane) {
    const float* xp = x + plane * h * w_;
    float* yp = y + plane * oh * ow;
    for (int64_t oy = 0; oy < oh; ++oy) {
      for (int64_t ox = 0; ox < ow; ++ox) {
        double sum = 0.0;
        int64_t count = 0;
        for (int64_t i = 0; i < kh; ++i) {
          const int64_t iy = oy * stride - pad + i;
          if (iy < 0 || iy >= h) continue;  // padding is neither summed nor counted
          for (int64_t j = 0; j < kw; ++j) {
            const int64_t ix = ox * stride - pad + j;
            if (ix < 0 || ix >= w_) continue;
            sum += xp[iy * w_ + ix];
            ++count;
          }
        }
        yp[oy * ow + ox] = count > 0 ? static_cast<float>(sum / static_cast<double>(count)) : 0.0f;
      }
    }
  }
}

}  // namespace cannbot_ref
#endif
