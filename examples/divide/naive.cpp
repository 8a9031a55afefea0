// Naive divide with a broadcast row: y[r][j] = a[r][j] / b[j], b being one value per column.
// This is the straightforward first version a kernel developer writes: two scalar loops and
// one IEEE fp32 division per element (not a * (1/b)), so each quotient is correctly rounded.
#include <cstdint>

extern "C" void divide(const float* a, const float* b, float* y, int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t j = 0; j < cols; ++j) {
      y[r * cols + j] = a[r * cols + j] / b[j];
    }
  }
}
