// Naive log_softmax over the last dimension: for each row, find the max, sum exp(x - max)
// with std::exp, then y = (x - max) - log(sum). Working with x - max keeps exp() finite
// (inputs reach +-1000) and never takes the log of an underflowed softmax value.
#include <cmath>
#include <cstdint>

extern "C" void log_softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    float* yr = y + r * cols;
    float mx = xr[0];
    for (int64_t j = 1; j < cols; ++j) {
      if (xr[j] > mx) mx = xr[j];
    }
    float sum = 0.0f;
    for (int64_t j = 0; j < cols; ++j) sum += std::exp(xr[j] - mx);
    const float log_sum = std::log(sum);
    for (int64_t j = 0; j < cols; ++j) yr[j] = (xr[j] - mx) - log_sum;
  }
}
