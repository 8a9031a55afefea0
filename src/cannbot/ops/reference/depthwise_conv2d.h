// Reference depthwise conv2d, NCHW, zero padding, no bias: each channel is convolved with
// its own kh x kw filter,
// y[b][ch][oy][ox] = sum_{i,j} x[b][ch][oy*stride - pad + i][ox*stride - pad + j] * w[ch][0][i][j]
// where taps outside the image read 0; x is [n,c,h,w_], w is [c,1,kh,kw], y is [n,c,oh,ow],
// oh = (h + 2*pad - kh) / stride + 1, ow = (w_ + 2*pad - kw) / stride + 1. Sums in double.
#ifndef CANNBOT_REF_DEPTHWISE_CONV2D_H
#define CANNBOT_REF_DEPTHWISE_CONV2D_H
#include <cstdint>

namespace cannbot_ref {

inline void depthwise_conv2d(const float* x, const float* w, float* y, int64_t n, int64_t c,
                             int64_t h, int64_t w_, int64_t kh, int64_t kw, int64_t stride,
                             int64_t pad) {
  const int64_t oh = (h + 2 * pad - kh) / stride + 1;
  const int64_t ow = (w_ + 2 * pad - kw) / stride + 1;
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t ch = 0; ch < c; ++ch) {
      const float* plane = x + (b * c + ch) * h * w_;
      const float* filter = w + ch * kh * kw;
      for (int64_t oy = 0; oy < oh; ++oy) {
        for (int64_t ox = 0; ox < ow; ++ox) {
          double acc = 0.0;
          for (int64_t i = 0; i < kh; ++i) {
            const int64_t iy = oy * stride - pad + i;
            if (iy < 0 || iy >= h) continue;  // zero padding contributes nothing
            for (int64_t j = 0; j < kw; ++j) {
              const int64_t ix = ox * stride - pad + j;
              if (ix < 0 || ix >= w_) continue;
              acc += static_cast<double>(plane[iy * w_ + ix]) * filter[i * kw + j];
            }
          }
          y[((b * c + ch) * oh + oy) * ow + ox] = static_cast<float>(acc);
        }
      }
    }
  }
}

}  // namespace cannbot_ref
#endif
