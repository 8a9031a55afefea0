// Naive fused layernorm + gelu over the last axis: layernorm a row in fp32 (two passes,
// variance around the mean), then apply the exact erf GELU to each normalised value with
// one scalar std::erf per element.
// This is the straightforward first version a kernel developer writes: the normalised value
// never goes back to memory, but every element costs a libm call.
#include <cmath>
#include <cstdint>

extern "C" void layernorm_gelu(const float* x, const float* gamma, const float* beta, float* y,
                               int64_t rows, int64_t cols, float eps) {
  const float inv_sqrt2 = 1.0f / std::sqrt(2.0f);
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
      const float t = (xr[j] - mean) * rstd * gamma[j] + beta[j];
      yr[j] = 0.5f * t * (1.0f + std::erf(t * inv_sqrt2));
    }
  }
}
