// Reference concat along the last axis: y[r] = [a[r] (ca values), b[r] (cb values)], copied bit for bit.
#ifndef CANNBOT_REF_CONCAT_H
#define CANNBOT_REF_CONCAT_H
#include <cstdint>

namespace cannbot_ref {

inline void concat(const float* a, const float* b, float* y, int64_t rows, int64_t ca, int64_t cb) {
  const int64_t cols = ca + cb;
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t j = 0; j < ca; ++j) y[r * cols + j] = a[r * ca + j];
    for (int64_t j = 0; j < cb; ++j) y[r * cols + ca + j] = b[r * cb + j];
  }
}

}  // namespace cannbot_ref
#endif
