// Reference depthwise-separable block (MobileNet style), inference, NCHW:
//   d  = depthwise_conv2d(x, dw_w)        dw_w [c,1,kh,kw], zero padding, no bias -> [n,c,oh,ow]
//   m  = relu(bn1_gamma[ch] * (d - bn1_mean[ch]) / sqrt(bn1_var[ch] + eps) + bn1_beta[ch])
//   p  = sum_ch pw_w[o][ch] * m[b][ch][oy][ox]   1x1 pointwise conv, pw_w [k,c], no bias
//   y  = relu(bn2_gamma[o] * (p - bn2_mean[o]) / sqrt(bn2_var[o] + eps) + bn2_beta[o])
// y is [n,k,oh,ow], oh = (h + 2*pad - kh) / stride + 1, ow likewise. Every step in double;
// intermediates are never rounded to float.
#ifndef CANNBOT_REF_DWSEP_BLOCK_H
#define CANNBOT_REF_DWSEP_BLOCK_H
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace cannbot_ref {

inline void dwsep_block(const float* x, const float* dw_w, const float* bn1_gamma,
                        const float* bn1_beta, const float* bn1_mean, const float* bn1_var,
                        const float* pw_w, const float* bn2_gamma, const float* bn2_beta,
                        const float* bn2_mean, const float* bn2_var, float* y, int64_t n,
                        int64_t c, int64_t h, int64_t w_, int64_t k, int64_t kh, int64_t kw,
                        int64_t stride, int64_t pad, float eps) {
  const int64_t oh = (h + 2 * pad - kh) / stride + 1;
  const int64_t ow = (w_ + 2 * pad - kw) / stride + 1;
  const int64_t pixels = oh * ow;
  std::vector<double> mid_buffer(static_cast<std::size_t>(c * pixels));
  std::vector<double> acc_buffer(static_cast<std::size_t>(pixels));
  double* mid = mid_buffer.data();  // m for one image
  double* acc = acc_buffer.data();  // p for one output channel
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t ch = 0; ch < c; ++ch) {
      const float* plane = x + (b * c + ch) * h * w_;
      const float* filter = dw_w + ch * kh * kw;
      const double scale = bn1_gamma[ch] / std::sqrt(static_cast<double>(bn1_var[ch]) + eps);
      for (int64_t oy = 0; oy < oh; ++oy) {
        for (int64_t ox = 0; ox < ow; ++ox) {
          double d = 0.0;
          for (int64_t i = 0; i < kh; ++i) {
            const int64_t iy = oy * stride - pad + i;
            if (iy < 0 || iy >= h) continue;  // zero padding contributes nothing
            for (int64_t j = 0; j < kw; ++j) {
              const int64_t ix = ox * stride - pad + j;
              if (ix < 0 || ix >= w_) continue;
              d += static_cast<double>(plane[iy * w_ + ix]) * filter[i * kw + j];
            }
          }
          const double t = (d - bn1_mean[ch]) * scale + bn1_beta[ch];
          mid[ch * pixels + oy * ow + ox] = t > 0.0 ? t : 0.0;
        }
      }
    }
    for (int64_t o = 0; o < k; ++o) {
      for (int64_t p = 0; p < pixels; ++p) acc[p] = 0.0;
      for (int64_t ch = 0; ch < c; ++ch) {
        const double wv = pw_w[o * c + ch];
        for (int64_t p = 0; p < pixels; ++p) acc[p] += wv * mid[ch * pixels + p];
      }
      const double scale = bn2_gamma[o] / std::sqrt(static_cast<double>(bn2_var[o]) + eps);
      for (int64_t p = 0; p < pixels; ++p) {
        const double t = (acc[p] - bn2_mean[o]) * scale + bn2_beta[o];
        y[(b * k + o) * pixels + p] = static_cast<float>(t > 0.0 ? t : 0.0);
      }
    }
  }
}

}  // namespace cannbot_ref
#endif
