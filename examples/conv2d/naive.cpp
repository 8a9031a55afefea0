// Naive 2-D convolution with bias, NCHW, weights [k,c,kh,kw], zero padding.
// The 7-deep loop (batch, output channel, out row, out col, input channel, kernel row,
// kernel col) with the padding bounds check inside the innermost loop and a float
// accumulator started at the bias: simple and obviously correct. Every output pixel
// re-reads its kh x kw window from each of the c input planes and every weight is
// re-read for every pixel; nothing is kept in registers across pixels.
#include <cstdint>

extern "C" void conv2d(const float* x, const float* w, const float* bias, float* y,
                       int64_t n, int64_t c, int64_t h, int64_t w_, int64_t k, int64_t kh,
                       int64_t kw, int64_t stride, int64_t pad) {
  const int64_t oh = (h + 2 * pad - kh) / stride + 1;
  const int64_t ow = (w_ + 2 * pad - kw) / stride + 1;
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t o = 0; o < k; ++o) {
      for (int64_t i = 0; i < oh; ++i) {
        for (int64_t j = 0; j < ow; ++j) {
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
          y[((b * k + o) * oh + i) * ow + j] = acc;
        }
      }
    }
  }
}
