// Reference minimum with a broadcast row: y[r][j] = min(a[r][j], b[j]) for a, y [rows, cols]
// and b [cols]; where the two compare equal (also -0 against +0) the result is a's element.
#ifndef CANNBOT_REF_MINIMUM_H
#define CANNBOT_REF_MINIMUM_H
#include <cstdint>

namespace cannbot_ref {

inline void minimum(const float* a, const float* b, float* y, int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t j = 0; j < cols; ++j) {
      const int64_t i = r * cols + j;
      y[i] = b[j] < a[i] ? b[j] : a[i];
    }
  }
}

}  // namespace cannbot_ref
#endif
