// Naive add_rms_norm: for each row, h = x + residual (written out, as fused kernels return
// it), then rms_norm of h: rstd = 1 / sqrt(sum(h^2) / cols + eps), y = h * rstd * gamma.
// This is the straightforward first version a kernel developer writes, in fp32.
#include <cmath>
#include <cstdint>

extern "C" void add_rms_norm(const float* x, const float* residual, const float* gamma, float* y,
                             float* h, int64_t rows, int64_t cols, float eps) {
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t base = r * cols;
    float sq = 0.0f;
    for (int64_t j = 0; j < cols; ++j) {
      const float v = x[base + j] + residual[base + j];
      h[base + j] = v;
      sq += v * v;
    }
    const float rstd = 1.0f / std::sqrt(sq / static_cast<float>(cols) + eps);
    for (int64_t j = 0; j < cols; ++j) y[base + j] = h[base + j] * rstd * gamma[j];
  }
}
