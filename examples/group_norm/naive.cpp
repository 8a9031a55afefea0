// Naive group_norm on [n, c, hw]: each sample's channels form `groups` groups of c/groups
// consecutive channels; per group, sum for the mean, sum squared deviations for the (biased)
// variance, then normalise and apply the channel's gamma and beta. fp32, two passes.
#include <cmath>
#include <cstdint>

extern "C" void group_norm(const float* x, const float* gamma, const float* beta, float* y,
                           int64_t n, int64_t c, int64_t hw, int64_t groups, float eps) {
  const int64_t per_group = c / groups;
  const int64_t block = per_group * hw;
  for (int64_t batch = 0; batch < n; ++batch) {
    for (int64_t g = 0; g < groups; ++g) {
      const int64_t base = (batch * c + g * per_group) * hw;
      float sum = 0.0f;
      for (int64_t i = 0; i < block; ++i) sum += x[base + i];
      const float mean = sum / static_cast<float>(block);
      float sq = 0.0f;
      for (int64_t i = 0; i < block; ++i) sq += (x[base + i] - mean) * (x[base + i] - mean);
      const float rstd = 1.0f / std::sqrt(sq / static_cast<float>(block) + eps);
      for (int64_t k = 0; k < per_group; ++k) {
        const int64_t ch = g * per_group + k;
        for (int64_t i = 0; i < hw; ++i) {
          const int64_t e = base + k * hw + i;
          y[e] = (x[e] - mean) * rstd * gamma[ch] + beta[ch];
        }
      }
    }
  }
}
