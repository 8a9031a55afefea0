// Reference rms_norm over the last axis of a [rows, cols] matrix, with a per-column gamma:
// y[r][j] = x[r][j] / sqrt(mean_j' x[r][j']^2 + eps) * gamma[j].
#ifndef CANNBOT_REF_RMS_NORM_H
#define CANNBOT_REF_RMS_NORM_H
#include <cmath>
#include <cstdint>

namespace cannbot_ref {

// Squares are summed in double, where no fp32 value can overflow or underflow them.
inline void rms_norm(const float* x, const float* gamma, float* y, int64_t rows, int64_t cols,
                     float eps) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    float* yr = y + r * cols;
    double sq = 0.0;
    for (int64_t j = 0; j < cols; ++j) sq += static_cast<double>(xr[j]) * xr[j];
    const double rstd = 1.0 / std::sqrt(sq / static_cast<double>(cols) + static_cast<double>(eps));
    for (int64_t j = 0; j < cols; ++j) {
      yr[j] = static_cast<float>(static_cast<double>(xr[j]) * rstd * gamma[j]);
    }
  }
}

}  // namespace cannbot_ref
#endif
