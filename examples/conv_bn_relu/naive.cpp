// Naive conv2d + inference batch norm + ReLU, NCHW, weights [k,c,kh,kw], zero padding.
// Written the way the three layers read in a model: the convolution (7-deep loop, padding
// check in the innermost loop, float accumulator started at the bias), then the batch
// norm of that value with a square root per element, then the ReLU. Nothing is folded:
// the BN parameters and sqrt(var + eps) are recomputed for every output element.
#include <cmath>
#include <cstdint>

extern "C" void conv_bn_relu(const float* x, const float* w, const float* bias,
                             const float* gamma, const float* beta, const float* mean,
                             const float* var, float* y, int64_t n, int64_t c, int64_t h,
                             int64_t w_, int64_t k, int64_t kh, int64_t kw, int64_t stride,
                             int64_t pad, float eps) {
  const int64_t oh = (h + 2 * pad - kh) / stride + 1;
  const int64_t ow = (w_ + 2 * pad - kw) / stride + 1;
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t o = 0; o < k; ++o) {
      for (int64_t i = 0; i < oh; ++i) {
        for (int64_t j = 0; j < ow; ++j) {
          // 1. convolution
          float acc = bias[o];
          for (int64_t ci = 0; ci < c; ++ci) {
            for (int64_t ki = 0; ki < kh; ++ki) {
              for (int64_t kj = 0; kj < kw; ++kj) {
                const int64_t ih = i * stride - pad + ki;
                const int64_t iw = j * stride - pad + kj;
                if (ih >= 0 && ih < h && iw >= 0 && iw < w_) {
                  acc += x[((b * c + ci) * h + ih) * w_ + iw] *
                         w[((o * c + ci) * kh + ki) * kw + kj];
                }
              }
            }
          }
          // 2. batch norm (inference statistics)
          const float bn = gamma[o] * (acc - mean[o]) / std::sqrt(var[o] + eps) + beta[o];
          // 3. ReLU
          y[((b * k + o) * oh + i) * ow + j] = bn > 0.0f ? bn : 0.0f;
        }
      }
    }
  }
}
