// Naive concat along the last axis: for each row, copy a's ca values then b's cb values, one
// element at a time. Both reads and the write are contiguous; nothing is vectorised on purpose.
#include <cstdint>

extern "C" void concat(const float* a, const float* b, float* y, int64_t rows, int64_t ca, int64_t cb) {
  const int64_t cols = ca + cb;
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t j = 0; j < ca; ++j) {
      y[r * cols + j] = a[r * ca + j];
    }
    for (int64_t j = 0; j < cb; ++j) {
      y[r * cols + ca + j] = b[r * cb + j];
    }
  }
}
