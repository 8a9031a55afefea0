// Reference log_softmax over the last axis of a [rows, cols] matrix:
// y[r][j] = (x[r][j] - m_r) - log(sum_j' exp(x[r][j'] - m_r)) with m_r the row maximum.
#ifndef CANNBOT_REF_LOG_SOFTMAX_H
#define CANNBOT_REF_LOG_SOFTMAX_H
#include <cmath>
#include <cstdint>

namespace cannbot_ref {

// In double: every shifted exponent is <= 0 and the row maximum contributes exp(0) = 1, so
// the sum lies in [1, cols] and its log is finite for any finite input; an element far below
// the maximum gets a large negative y, never -inf.
inline void log_softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    float* yr = y + r * cols;
    double max = xr[0];
    for (int64_t j = 1; j < cols; ++j) max = xr[j] > max ? xr[j] : max;
    double sum = 0.0;
    for (int64_t j = 0; j < cols; ++j) sum += std::exp(xr[j] - max);
    const double log_sum = std::log(sum);
    for (int64_t j = 0; j < cols; ++j) yr[j] = static_cast<float>((xr[j] - max) - log_sum);
  }
}

}  // namespace cannbot_ref
#endif
