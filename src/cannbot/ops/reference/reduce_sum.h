// Reference reduce_sum over the last axis: y[r] = sum_j x[r][j] for x [rows, cols], y [rows].
#ifndef CANNBOT_REF_REDUCE_SUM_H
#define CANNBOT_REF_REDUCE_SUM_H
#include <cstdint>

namespace cannbot_ref {

// Accumulates in double (a float row of any realistic length sums to within a few double
// ulps, far below fp32's rounding) and rounds once; a sum beyond fp32's range becomes +-inf.
inline void reduce_sum(const float* x, float* y, int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    double sum = 0.0;
    for (int64_t j = 0; j < cols; ++j) sum += xr[j];
    y[r] = static_cast<float>(sum);
  }
}

}  // namespace cannbot_ref
#endif
