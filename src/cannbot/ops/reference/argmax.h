// Reference argmax over the last axis: y[r] = the smallest j with x[r][j] == max_j' x[r][j'],
// for x [rows, cols] and the int32 index output y [rows].
#ifndef CANNBOT_REF_ARGMAX_H
#define CANNBOT_REF_ARGMAX_H
#include <cstdint>

namespace cannbot_ref {

// Only a strictly greater value moves the index, so ties (and -0 against +0, which compare
// equal) keep the first position.
inline void argmax(const float* x, int32_t* y, int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    int64_t best = 0;
    for (int64_t j = 1; j < cols; ++j) {
      if (xr[j] > xr[best]) best = j;
    }
    y[r] = static_cast<int32_t>(best);
  }
}

}  // namespace cannbot_ref
#endif
