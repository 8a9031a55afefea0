// Reference add_rms_norm (the residual add fused into rms_norm) over [rows, cols]:
// h = x + residual, y[r][j] = h[r][j] / sqrt(mean_j' h[r][j']^2 + eps) * gamma[j]; both outputs.
#ifndef CANNBOT_REF_ADD_RMS_NORM_H
#define CANNBOT_REF_ADD_RMS_NORM_H
#include <cmath>
#include <cstdint>

namespace cannbot_ref {

// The sum of two floats is exact in double: h is rounded once to float, and y is computed
// from the exact sum (a kernel that normalises its rounded h differs by an ulp of h).
inline void add_rms_norm(const float* x, const float* residual, const float* gamma, float* y,
                         float* h, int64_t rows, int64_t cols, float eps) {
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t base = r * cols;
    double sq = 0.0;
    for (int64_t j = 0; j < cols; ++j) {
      const double v = static_cast<double>(x[base + j]) + static_cast<double>(residual[base + j]);
      sq += v * v;
    }
    const double rstd = 1.0 / std::sqrt(sq / static_cast<double>(cols) + static_cast<double>(eps));
    for (int64_t j = 0; j < cols; ++j) {
      const double v = static_cast<double>(x[base + j]) + static_cast<double>(residual[base + j]);
      h[base + j] = static_cast<float>(v);
      y[base + j] = static_cast<float>(v * rstd * gamma[j]);
    }
  }
}

}  // namespace cannbot_ref
#endif
