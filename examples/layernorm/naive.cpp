// Naive layernorm over the last axis: for each row, sum for the mean, then sum the squared
// deviations from the mean for the (biased) variance, then normalise, scale and shift.
// This is the straightforward first version a kernel developer writes, in fp32 with one
// running sum per pass. The variance is taken around the mean (two passes), never as
// E[x^2] - E[x]^2, which cancels when the rows have a large mean.
#include <cmath>
#include <cstdint>

extern "C" void layernorm(const float* x, const float* gamma, const float* beta, float* y,
                          int64_t rows, int64_t cols, float eps) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    float* yr = y + r * cols;
    float sum = 0.0f;
    for (int64_t j = 0; j < cols; ++j) sum += xr[j];
    const float mean = sum / static_cast<float>(cols);
    float sq = 0.0f;
    for (int64_t j = 0; j < cols; ++j) sq += (xr[j] - mean) * (xr[j] - mean);
    const float var = sq / static_cast<float>(cols);
    const float rstd = 1.0f / std::sqrt(var + eps);
    for (int64_t j = 0; j < cols; ++j) {
      yr[j] = (xr[j] - mean) * rstd * gamma[j] + beta[j];
    }
  }
}
