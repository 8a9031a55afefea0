// Naive sub with a broadcast row: y[r][j] = a[r][j] - b[j], b being one value per column.
// This is the straightforward first version a kernel developer writes: two scalar loops,
// one fp32 subtraction per element, which is already the correctly rounded result.
#include <cstdint>

extern "C" void sub(const float* a, const float* b, float* y, int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t j = 0; j < cols; ++j) {
      y[r * cols + j] = a[r * cols + j] - b[j];
    }
  }
}
