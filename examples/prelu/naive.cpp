// Naive prelu: y = x > 0 ? x : alpha[channel] * x over an [n, c, hw] tensor (NCHW with
// H*W flattened), one element per iteration.
// This is the straightforward first version a kernel developer writes: loop over batch,
// channel and position, with the channel's slope loaded once per run of hw elements.
#include <cstdint>

extern "C" void prelu(const float* x, const float* alpha, float* y, int64_t n, int64_t c,
                      int64_t hw) {
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t ch = 0; ch < c; ++ch) {
      const float a = alpha[ch];
      const float* xp = x + (b * c + ch) * hw;
      float* yp = y + (b * c + ch) * hw;
      for (int64_t i = 0; i < hw; ++i) {
        if (xp[i] > 0.0f) {
          yp[i] = xp[i];
        } else {
          yp[i] = a * xp[i];
        }
      }
    }
  }
}
