// Naive 2-D average pooling, NCHW, count_include_pad = false: for every output element, sum
// the window's taps that lie inside the image in a float and divide by how many there were
// (a corner window of a padded 3x3 pool divides by 4, not 9).
#include <cstdint>

extern "C" void avg_pool2d(const float* x, float* y, int64_t n, int64_t c, int64_t h, int64_t w_,
                           int64_t kh, int64_t kw, int64_t stride, int64_t pad) {
  const int64_t oh = (h + 2 * pad - kh) / stride + 1;
  const int64_t ow = (w_ + 2 * pad - kw) / stride + 1;
  for (int64_t plane = 0; plane < n * c; ++plane) {
    const float* xp = x + plane * h * w_;
    float* yp = y + plane * oh * ow;
    for (int64_t oy = 0; oy < oh; ++oy) {
      for (int64_t ox = 0; ox < ow; ++ox) {
        float sum = 0.0f;
        int64_t count = 0;
        for (int64_t i = 0; i < kh; ++i) {
          const int64_t iy = oy * stride - pad + i;
          if (iy < 0 || iy >= h) continue;
          for (int64_t j = 0; j < kw; ++j) {
            const int64_t ix = ox * stride - pad + j;
            if (ix < 0 || ix >= w_) continue;
            sum += xp[iy * w_ + ix];
            ++count;
          }
        }
        yp[oy * ow + ox] = sum / static_cast<float>(count);
      }
    }
  }
}
