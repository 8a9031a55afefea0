// Reference rotary position embedding, rotate-half (GPT-NeoX) form: x and y are
// [tokens, heads, 2*half], cos and sin are [tokens, half]; for j < half,
// y[t][h][j] = x[t][h][j] * cos[t][j] - x[t][h][j+half] * sin[t][j] and
// y[t][h][j+half] = x[t][h][j+half] * cos[t][j] + x[t][h][j] * sin[t][j], in double.
#ifndef CANNBOT_REF_ROPE_H
#define CANNBOT_REF_ROPE_H
#include <cstdint>

namespace cannbot_ref {

inline void rope(const float* x, const float* cos, const float* sin, float* y, int64_t tokens,
                 int64_t heads, int64_t half) {
  const int64_t dim = 2 * half;
  for (int64_t t = 0; t < tokens; ++t) {
    const float* c = cos + t * half;
    const float* s = sin + t * half;
    for (int64_t h = 0; h < heads; ++h) {
      const float* xv = x + (t * heads + h) * dim;
      float* yv = y + (t * heads + h) * dim;
      for (int64_t j = 0; j < half; ++j) {
        const double lo = xv[j], hi = xv[j + half], cj = c[j], sj = s[j];
        yv[j] = static_cast<float>(lo * cj - hi * sj);
        yv[j + half] = static_cast<float>(hi * cj + lo * sj);
      }
    }
  }
}

}  // namespace cannbot_ref
#endif
