// Naive split along the last axis: for each row of x, copy the first ca values to y0 and the
// remaining cb values to y1, one element at a time.
#include <cstdint>

extern "C" void split(const float* x, float* y0, float* y1, int64_t rows, int64_t ca, int64_t cb) {
  const int64_t cols = ca + cb;
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t j = 0; j < ca; ++j) {
      y0[r * ca + j] = x[r * cols + j];
    }
    for (int64_t j = 0; j < cb; ++j) {
      y1[r * cb + j] = x[r * cols + ca + j];
    }
  }
}
