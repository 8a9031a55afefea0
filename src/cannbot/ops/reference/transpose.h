// Reference transpose of a row-major [rows, cols] matrix: y[j][i] = x[i][j], y is [cols, rows].
#ifndef CANNBOT_REF_TRANSPOSE_H
#define CANNBOT_REF_TRANSPOSE_H
#include <cstdint>

namespace cannbot_ref {

inline void transpose(const float* x, float* y, int64_t rows, int64_t cols) {
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) y[j * rows + i] = x[i * cols + j];
  }
}

}  // namespace cannbot_ref
#endif
