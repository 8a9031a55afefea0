// Naive transpose: read x row by row and scatter each element to y[j][i]. The reads are
// contiguous, the writes stride by `rows` floats, so large matrices miss the cache on
// nearly every store.
#include <cstdint>

extern "C" void transpose(const float* x, float* y, int64_t rows, int64_t cols) {
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) {
      y[j * rows + i] = x[i * cols + j];
    }
  }
}
