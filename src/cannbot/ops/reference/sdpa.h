// Reference scaled dot-product attention per (batch*head) slice bh: q, k, v and y are
// [bh, s, d]; score[i][j] = (q[i] . k[j]) / sqrt(d) over the keys j (j <= i when causal),
// p = softmax_j(score[i]) (max-subtracted), y[i] = sum_j p[i][j] * v[j]. All in double.
#ifndef CANNBOT_REF_SDPA_H
#define CANNBOT_REF_SDPA_H
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace cannbot_ref {

inline void sdpa(const float* q, const float* k, const float* v, float* y, int64_t bh, int64_t s,
                 int64_t d, int64_t causal) {
  const double scale = 1.0 / std::sqrt(static_cast<double>(d));
  std::vector<double> score(static_cast<std::size_t>(s));
  std::vector<double> acc(static_cast<std::size_t>(d));
  for (int64_t b = 0; b < bh; ++b) {
    const float* qb = q + b * s * d;
    const float* kb = k + b * s * d;
    const float* vb = v + b * s * d;
    for (int64_t i = 0; i < s; ++i) {
      const int64_t keys = causal != 0 ? i + 1 : s;  // key j is visible when j < keys
      double max = -HUGE_VAL;
      for (int64_t j = 0; j < keys; ++j) {
        double dot = 0.0;
        for (int64_t c = 0; c < d; ++c) {
          dot += static_cast<double>(qb[i * d + c]) * kb[j * d + c];
        }
        score[j] = dot * scale;
        max = score[j] > max ? score[j] : max;
      }
      double sum = 0.0;
      for (int64_t j = 0; j < keys; ++j) {
        score[j] = std::exp(score[j] - max);
        sum += score[j];
      }
      for (int64_t c = 0; c < d; ++c) acc[c] = 0.0;
      for (int64_t j = 0; j < keys; ++j) {
        const double p = score[j] / sum;
        for (int64_t c = 0; c < d; ++c) acc[c] += p * vb[j * d + c];
      }
      for (int64_t c = 0; c < d; ++c) y[(b * s + i) * d + c] = static_cast<float>(acc[c]);
    }
  }
}

}  // namespace cannbot_ref
#endif
