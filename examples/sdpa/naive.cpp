// Naive scaled dot-product attention: for each query row, the scaled dot products with every
// visible key (j <= i when causal), a max-subtracted softmax over them, then the weighted sum
// of the value rows. One row of scores at a time is kept in a std::vector.
#include <cmath>
#include <cstdint>
#include <vector>

extern "C" void sdpa(const float* q, const float* k, const float* v, float* y, int64_t bh,
                     int64_t s, int64_t d, int64_t causal) {
  const float scale = 1.0f / std::sqrt(static_cast<float>(d));
  std::vector<float> p(static_cast<size_t>(s));
  for (int64_t b = 0; b < bh; ++b) {
    const float* qb = q + b * s * d;
    const float* kb = k + b * s * d;
    const float* vb = v + b * s * d;
    float* yb = y + b * s * d;
    for (int64_t i = 0; i < s; ++i) {
      const int64_t keys = causal ? i + 1 : s;
      float mx = -INFINITY;
      for (int64_t j = 0; j < keys; ++j) {
        float dot = 0.0f;
        for (int64_t c = 0; c < d; ++c) dot += qb[i * d + c] * kb[j * d + c];
        p[j] = dot * scale;
        if (p[j] > mx) mx = p[j];
      }
      float sum = 0.0f;
      for (int64_t j = 0; j < keys; ++j) {
        p[j] = std::exp(p[j] - mx);
        sum += p[j];
      }
      for (int64_t c = 0; c < d; ++c) yb[i * d + c] = 0.0f;
      for (int64_t j = 0; j < keys; ++j) {
        const float w = p[j] / sum;
        for (int64_t c = 0; c < d; ++c) yb[i * d + c] += w * vb[j * d + c];
      }
    }
  }
}
