// Reference sub with a broadcast row: y[r][j] = a[r][j] - b[j] for a, y [rows, cols] and b [cols].
#ifndef CANNBOT_REF_SUB_H
#define CANNBOT_REF_SUB_H
#include <cstdint>

namespace cannbot_ref {

// The difference of two floats taken in double and rounded once to float is the correctly
// rounded fp32 difference (double has more than 2*24+2 bits), overflow to +-inf included.
inline void sub(const float* a, const float* b, float* y, int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t j = 0; j < cols; ++j) {
      const int64_t i = r * cols + j;
      y[i] = static_cast<float>(static_cast<double>(a[i]) - static_cast<double>(b[j]));
    }
  }
}

}  // namespace cannbot_ref
#endif
