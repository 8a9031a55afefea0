// Reference batch_norm in inference mode: x and y are [n, c, hw] (NCHW with H*W flattened),
// y = (x - mean[ch]) / sqrt(var[ch] + eps) * gamma[ch] + beta[ch] with the stored statistics.
#ifndef CANNBOT_REF_BATCH_NORM_H
#define CANNBOT_REF_BATCH_NORM_H
#include <cmath>
#include <cstdint>

namespace cannbot_ref {

// In double, in the order the formula gives: x - mean first, so x near a large mean loses
// nothing, and no intermediate can overflow.
inline void batch_norm(const float* x, const float* mean, const float* var, const float* gamma,
                       const float* beta, float* y, int64_t n, int64_t c, int64_t hw,
                       float eps) {
  for (int64_t ch = 0; ch < c; ++ch) {
    const double rstd = 1.0 / std::sqrt(static_cast<double>(var[ch]) + static_cast<double>(eps));
    const double m = mean[ch], g = gamma[ch], b = beta[ch];
    for (int64_t batch = 0; batch < n; ++batch) {
      const int64_t base = (batch * c + ch) * hw;
      for (int64_t i = 0; i < hw; ++i) {
        y[base + i] = static_cast<float>((x[base + i] - m) * rstd * g + b);
      }
    }
  }
}

}  // namespace cannbot_ref
#endif
