// Naive rms_norm over the last axis: for each row, sum the squares, rstd = 1 / sqrt(sum / cols
// + eps), then y = x * rstd * gamma. This is the straightforward first version a kernel
// developer writes, in fp32 with one running sum per row.
#include <cmath>
#include <cstdint>

extern "C" void rms_norm(const float* x, const float* gamma, float* y, int64_t rows,
                         int64_t cols, float eps) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    float* yr = y + r * cols;
    float sq = 0.0f;
    for (int64_t j = 0; j < cols; ++j) sq += xr[j] * xr[j];
    const float rstd = 1.0f / std::sqrt(sq / static_cast<float>(cols) + eps);
    for (int64_t j = 0; j < cols; ++j) yr[j] = xr[j] * rstd * gamma[j];
  }
}
