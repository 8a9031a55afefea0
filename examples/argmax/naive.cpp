// Naive argmax over the last axis: y[r] = the index of the first largest element of row r.
// This is the straightforward first version a kernel developer writes: a scalar scan per row
// that moves the index only on a strictly greater value, so ties keep the first position.
#include <cstdint>

extern "C" void argmax(const float* x, int32_t* y, int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    int64_t best = 0;
    for (int64_t j = 1; j < cols; ++j) {
      if (xr[j] > xr[best]) best = j;
    }
    y[r] = static_cast<int32_t>(best);
  }
}
