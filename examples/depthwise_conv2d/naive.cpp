// Naive depthwise 2-D convolution, NCHW, weights [c,1,kh,kw], zero padding, no bias.
// The 6-deep loop (batch, channel, out row, out col, kernel row, kernel col) with the
// padding bounds check inside the innermost loop: simple and obviously correct.
#include <cstdint>

extern "C" void depthwise_conv2d(const float* x, const float* w, float* y, int64_t n,
                                 int64_t c, int64_t h, int64_t w_, int64_t kh, int64_t kw,
                                 int64_t stride, int64_t pad) {
  const int64_t oh = (h + 2 * pad - kh) / stride + 1;
  const int64_t ow = (w_ + 2 * pad - kw) / stride + 1;
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t ch = 0; ch < c; ++ch) {
      const float* xp = x + (b * c + ch) * h * w_;
      const float* wp = w + ch * kh * kw;
      float* yp = y + (b * c + ch) * oh * ow;
      for (int64_t i = 0; i < oh; ++i) {
        for (int64_t j = 0; j < ow; ++j) {
          float acc = 0.0f;
          for (int64_t ki = 0; ki < kh; ++ki) {
            for (int64_t kj = 0; kj < kw; ++kj) {
              const int64_t ih = i * stride - pad + ki;
              const int64_t iw = j * stride - pad + kj;
              if (ih >= 0 && ih < h && iw >= 0 && iw < w_) {
                acc += xp[ih * w_ + iw] * wp[ki * kw + kj];
              }
            }
          }
          yp[i * ow + j] = acc;
        }
      }
    }
  }
}
