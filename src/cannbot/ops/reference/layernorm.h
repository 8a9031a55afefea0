// Reference layernorm over the last axis of a [rows, cols] matrix, biased variance:
// y[r][j] = (x[r][j] - mean_r) / sqrt(var_r + eps) * gamma[j] + beta[j].
// Two passes in double: the variance is taken around the mean, never as E[x^2] - E[x]^2,
// which cancels catastrophically when |mean| >> stddev.
#ifndef CANNBOT_REF_LAYERNORM_H
#define CANNBOT_REF_LAYERNORM_H
#include <cmath>
#include <cstdint>

namespace cannbot_ref {

inline void layernorm(const float* x, const float* gamma, const float* beta, float* y,
                      int64_t rows, int64_t cols, float eps) {
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
      yr[j] = static_cast<float>((xr[j] - mean) * rstd * gamma[j] + beta[j]);
    }
  }
}

}  // namespace cannbot_ref
#endif
