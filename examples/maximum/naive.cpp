// Naive maximum with a broadcast row: y[r][j] = max(a[r][j], b[j]), b one value per column.
// This is the straightforward first version a kernel developer writes: two scalar loops and
// one comparison per element; on a tie (-0 against +0 too) it keeps a's element.
#include <cstdint>

extern "C" void maximum(const float* a, const float* b, float* y, int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t j = 0; j < cols; ++j) {
      const float av = a[r * cols + j];
      y[r * cols + j] = b[j] > av ? b[j] : av;
    }
  }
}
