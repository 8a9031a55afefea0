// Reference axis permutation (0, 2, 1, 3): x [b, s, h, d] -> y [b, h, s, d], y[i][k][j][l] = x[i][j][k][l].
#ifndef CANNBOT_REF_PERMUTE_0213_H
#define CANNBOT_REF_PERMUTE_0213_H
#include <cstdint>

namespace cannbot_ref {

inline void permute_0213(const float* x, float* y, int64_t b, int64_t s, int64_t h, int64_t d) {
  for (int64_t i = 0; i < b; ++i) {
    for (int64_t j = 0; j < s; ++j) {
      for (int64_t k = 0; k < h; ++k) {
        const float* src = x + ((i * s + j) * h + k) * d;
        float* dst = y + ((i * h + k) * s + j) * d;
        for (int64_t l = 0; l < d; ++l) dst[l] = src[l];
      }
    }
  }
}

}  // namespace cannbot_ref
#endif
