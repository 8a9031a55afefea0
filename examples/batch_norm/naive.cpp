// Naive inference batch_norm on [n, c, hw]: per channel, rstd = 1 / sqrt(var + eps), then
// y = (x - mean) * rstd * gamma + beta for every element of that channel. This is the
// straightforward first version a kernel developer writes, in fp32, subtracting the mean first.
#include <cmath>
#include <cstdint>

extern "C" void batch_norm(const float* x, const float* mean, const float* var,
                           const float* gamma, const float* beta, float* y, int64_t n, int64_t c,
                           int64_t hw, float eps) {
  for (int64_t batch = 0; batch < n; ++batch) {
    for (int64_t ch = 0; ch < c; ++ch) {
      const float rstd = 1.0f / std::sqrt(var[ch] + eps);
      const int64_t base = (batch * c + ch) * hw;
      for (int64_t i = 0; i < hw; ++i) {
        y[base + i] = (x[base + i] - mean[ch]) * rstd * gamma[ch] + beta[ch];
      }
    }
  }
}
