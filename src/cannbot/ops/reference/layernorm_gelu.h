// Reference fused layernorm + gelu over the last axis of a [rows, cols] matrix:
// t = (x[r][j] - mean_r) / sqrt(var_r + eps) * gamma[j] + beta[j] (biased variance),
// y[r][j] = 0.5 * t * (1 + erf(t / sqrt(2))). Everything in double; t is never rounded to
// float, so this is the exact composition the fused kernel approximates.
#ifndef CANNBOT_REF_LAYERNORM_GELU_H
#define CANNBOT_REF_LAYERNORM_GELU_H
#include <cmath>
#include <cstdint>

namespace cannbot_ref {

inline void layernorm_gelu(const float* x, const float* gamma, const float* beta, float* y,
                           int64_t rows, int64_t cols, float eps) {
  const double inv_sqrt2 = 0.70710678118654752440;
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    float* yr = y + r * cols;
    double sum = 0.0;
    for (int64_t j = 0; j < cols; ++j) sum += xr[j];
    const double mean = sum / static_cast<double>(cols);
    double sq = 0.0;
    for (int64_t j = 0; j < cols; ++j) sq += (xr[j] - mean) * (xr[j] - mean);
    const double var = sq / static_cast<double>(cols);
    const double rstd = 1.0 / std::sqrt(var + static_cast<double>(eps));
    for (int64_t j = 0; j < cols; ++j) {
      const double t = (xr[j] - mean) * rstd * gamma[j] + beta[j];
      // 1 + erf(u) == erfc(-u), without the cancellation for negative t.
      yr[j] = static_cast<float>(0.5 * t * std::erfc(-t * inv_sqrt2));
    }
  }
}

}  // namespace cannbot_ref
#endif
