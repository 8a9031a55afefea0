// Reference softmax over the last axis of a [rows, cols] matrix:
// y[r][j] = exp(x[r][j] - max_r) / sum_j' exp(x[r][j'] - max_r), evaluated in double.
// Subtracting the row maximum keeps exp finite for any finite input.
#ifndef CANNBOT_REF_SOFTMAX_H
#define CANNBOT_REF_SOFTMAX_H
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace cannbot_ref {

inline void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  // Keeps each row's exponentials in double so exp runs once per element.
  std::vector<double> buffer(static_cast<std::size_t>(cols));
  double* e = buffer.data();
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    float* yr = y + r * cols;
    double max = xr[0];
    for (int64_t j = 1; j < cols; ++j) max = xr[j] > max ? xr[j] : max;
    double sum = 0.0;
    for (int64_t j = 0; j < cols; ++j) {
      e[j] = std::exp(xr[j] - max);
      sum += e[j];
    }
    for (int64_t j = 0; j < cols; ++j) yr[j] = static_cast<float>(e[j] / sum);
  }
}

}  // namespace cannbot_ref
#endif
