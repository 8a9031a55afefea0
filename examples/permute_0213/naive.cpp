// Naive attention head transpose [b, s, h, d] -> [b, h, s, d]: four nested loops in output
// order, each element gathered from its input index. The reads jump by h*d floats between
// sequence positions, so long sequences miss the cache often.
#include <cstdint>

extern "C" void permute_0213(const float* x, float* y, int64_t b, int64_t s, int64_t h, int64_t d) {
  for (int64_t i = 0; i < b; ++i) {
    for (int64_t k = 0; k < h; ++k) {
      for (int64_t j = 0; j < s; ++j) {
        for (int64_t l = 0; l < d; ++l) {
          y[((i * h + k) * s + j) * d + l] = x[((i * s + j) * h + k) * d + l];
        }
      }
    }
  }
}
