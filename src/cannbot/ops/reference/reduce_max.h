// Reference reduce_max over the last axis: y[r] = max_j x[r][j] for x [rows, cols], y [rows].
#ifndef CANNBOT_REF_REDUCE_MAX_H
#define CANNBOT_REF_REDUCE_MAX_H
#include <cstdint>

namespace cannbot_ref {

// Starts from the row's first element (not 0 or -FLT_MAX), so all-negative rows and rows of
// the most negative float are right. The result is one of the row's values, exactly.
inline void reduce_max(const float* x, float* y, int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    float best = xr[0];
    for (int64_t j = 1; j < cols; ++j) best = xr[j] > best ? xr[j] : best;
    y[r] = best;
  }
}

}  // namespace cannbot_ref
#endif
