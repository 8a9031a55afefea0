// Naive reduce_sum over the last axis: y[r] = sum of row r of the [rows, cols] matrix x.
// This is the straightforward first version a kernel developer writes: one fp32 running sum
// per row, added in order; its rounding error grows with cols, which the tolerance allows.
#include <cstdint>

extern "C" void reduce_sum(const float* x, float* y, int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; ++r) {
    float sum = 0.0f;
    for (int64_t j = 0; j < cols; ++j) sum += x[r * cols + j];
    y[r] = sum;
  }
}
