// Reference reduce_mean over the last axis: y[r] = (1/cols) * sum_j x[r][j] for x [rows, cols].
#ifndef CANNBOT_REF_REDUCE_MEAN_H
#define CANNBOT_REF_REDUCE_MEAN_H
#include <cstdint>

namespace cannbot_ref {

// The sum is kept in double, so rows whose fp32 sum would overflow still have a finite mean.
inline void reduce_mean(const float* x, float* y, int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    double sum = 0.0;
    for (int64_t j = 0; j < cols; ++j) sum += xr[j];
    y[r] = static_cast<float>(sum / static_cast<double>(cols));
  }
}

}  // namespace cannbot_ref
#endif
