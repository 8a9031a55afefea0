// Reference group_norm: x and y are [n, c, hw]; the c channels form `groups` groups of
// c/groups consecutive channels, and each (sample, group) block of (c/groups)*hw elements is
// normalised by its own mean and biased variance, then scaled and shifted per channel.
#ifndef CANNBOT_REF_GROUP_NORM_H
#define CANNBOT_REF_GROUP_NORM_H
#include <cmath>
#include <cstdint>

namespace cannbot_ref {

// Two passes in double: the variance is taken around the mean, never as E[x^2] - E[x]^2.
// Requires c % groups == 0 (the spec's shapes guarantee it).
inline void group_norm(const float* x, const float* gamma, const float* beta, float* y,
                       int64_t n, int64_t c, int64_t hw, int64_t groups, float eps) {
  const int64_t per_group = c / groups;
  const int64_t block = per_group * hw;
  for (int64_t batch = 0; batch < n; ++batch) {
    for (int64_t g = 0; g < groups; ++g) {
      const int64_t base = (batch * c + g * per_group) * hw;
      double sum = 0.0;
      for (int64_t i = 0; i < block; ++i) sum += x[base + i];
      const double mean = sum / static_cast<double>(block);
      double sq = 0.0;
      for (int64_t i = 0; i < block; ++i) sq += (x[base + i] - mean) * (x[base + i] - mean);
      const double rstd =
          1.0 / std::sqrt(sq / static_cast<double>(block) + static_cast<double>(eps));
      for (int64_t k = 0; k < per_group; ++k) {
        const int64_t ch = g * per_group + k;
        const double gm = gamma[ch], bt = beta[ch];
        for (int64_t i = 0; i < hw; ++i) {
          const int64_t e = base + k * hw + i;
          y[e] = static_cast<float>((x[e] - mean) * rstd * gm + bt);
        }
      }
    }
  }
}

}  // namespace cannbot_ref
#endif
