// Naive softmax over the last dimension: for each row, find the max, exponentiate the
// shifted values with std::exp while summing them, then divide by the sum.
// Subtracting the row max keeps exp() from overflowing (inputs reach +-1000).
#include <cmath>
#include <cstdint>

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    float* yr = y + r * cols;
    float mx = xr[0];
    for (int64_t j = 1; j < cols; ++j) {
      if (xr[j] > mx) mx = xr[j];
    }
    float sum = 0.0f;
    for (int64_t j = 0; j < cols; ++j) {
      yr[j] = std::exp(xr[j] - mx);
      sum += yr[j];
    }
    for (int64_t j = 0; j < cols; ++j) {
      yr[j] = yr[j] / sum;
    }
  }
}
