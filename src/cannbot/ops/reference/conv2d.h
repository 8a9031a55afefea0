// Reference conv2d, NCHW, zero padding, with bias:
// y[b][o][oy][ox] = bias[o] + sum_{ci,i,j} x[b][ci][oy*stride - pad + i][ox*stride - pad + j]
//                                          * w[o][ci][i][j]
// where taps outside the image read 0; x is [n,c,h,w_], w is [k,c,kh,kw], y is [n,k,oh,ow],
// oh = (h + 2*pad - kh) / stride + 1, ow = (w_ + 2*pad - kw) / stride + 1. Sums in double.
#ifndef CANNBOT_REF_CONV2D_H
#define CANNBOT_REF_CONV2D_H
#include <cstdint>

namespace cannbot_ref {

inline void conv2d(const float* x, const float* w, const float* bias, float* y, int64_t n,
                   int64_t c, int64_t h, int64_t w_, int64_t k, int64_t kh, int64_t kw,
                   int64_t stride, int64_t pad) {
  const int64_t oh = (h + 2 * pad - kh) / stride + 1;
  const int64_t ow = (w_ + 2 * pad - kw) / stride + 1;
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t o = 0; o < k; ++o) {
      for (int64_t oy = 0; oy < oh; ++oy) {
        for (int64_t ox = 0; ox < ow; ++ox) {
          double acc = bias[o];
          for (int64_t ci = 0; ci < c; ++ci) {
            for (int64_t i = 0; i < kh; ++i) {
              const int64_t iy = oy * stride - pad + i;
              if (iy < 0 || iy >= h) continue;  // zero padding contributes nothing
              for (int64_t j = 0; j < kw; ++j) {
                const int64_t ix = ox * stride - pad + j;
                if (ix < 0 || ix >= w_) continue;
                acc += static_cast<double>(x[((b * c + ci) * h + iy) * w_ + ix]) *
                       w[((o * c + ci) * kh + i) * kw + j];
              }
            }
          }
          y[((b * k + o) * oh + oy) * ow + ox] = static_cast<float>(acc);
        }
      }
    }
  }
}

}  // namespace cannbot_ref
#endif
