// Reference split along the last axis: x[r] (ca + cb values) -> y0[r] = its first ca, y1[r] = its last cb.
#ifndef CANNBOT_REF_SPLIT_H
#define CANNBOT_REF_SPLIT_H
#include <cstdint>

namespace cannbot_ref {

inline void split(const float* x, float* y0, float* y1, int64_t rows, int64_t ca, int64_t cb) {
  const int64_t cols = ca + cb;
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t j = 0; j < ca; ++j) y0[r * ca + j] = x[r * cols + j];
    for (int64_t j = 0; j < cb; ++j) y1[r * cb + j] = x[r * cols + ca + j];
  }
}

}  // namespace cannbot_ref
#endif
