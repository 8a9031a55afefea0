// Naive reduce_max over the last axis: y[r] = the largest element of row r of x [rows, cols].
// This is the straightforward first version a kernel developer writes: a scalar scan per row
// that starts from the row's first element, so rows of negative numbers come out right.
#include <cstdint>

extern "C" void reduce_max(const float* x, float* y, int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    float best = xr[0];
    for (int64_t j = 1; j < cols; ++j) {
      if (xr[j] > best) best = xr[j];
    }
    y[r] = best;
  }
}
