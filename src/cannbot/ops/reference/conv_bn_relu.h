// Reference conv2d + batch norm (inference) + relu, per output channel o:
// t = conv2d(x, w, bias)[b][o][oy][ox]   (NCHW, zero padding, w is [k,c,kh,kw], bias[k])
// y[b][o][oy][ox] = max(0, gamma[o] * (t - mean[o]) / sqrt(var[o] + eps) + beta[o]);
// y is [n,k,oh,ow], oh = (h + 2*pad - kh) / stride + 1, ow likewise. All in double; the
// convolution result is not rounded to float before the batch norm.
#ifndef CANNBOT_REF_CONV_BN_RELU_H
#define CANNBOT_REF_CONV_BN_RELU_H
#include <cmath>
#include <cstdint>

namespace cannbot_ref {

inline void conv_bn_relu(const float* x, const float* w, const float* bias, const float* gamma,
                         const float* beta, const float* mean, const float* var, float* y,
                         int64_t n, int64_t c, int64_t h, int64_t w_, int64_t k, int64_t kh,
                         int64_t kw, int64_t stride, int64_t pad, float eps) {
  const int64_t oh = (h + 2 * pad - kh) / stride + 1;
  const int64_t ow = (w_ + 2 * pad - kw) / stride + 1;
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t o = 0; o < k; ++o) {
      const double scale = gamma[o] / std::sqrt(static_cast<double>(var[o]) + eps);
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
          const double t = (acc - mean[o]) * scale + beta[o];
          y[((b * k + o) * oh + oy) * ow + ox] = static_cast<float>(t > 0.0 ? t : 0.0);
        }
      }
    }
  }
}

}  // namespace cannbot_ref
#endif
