// Naive rotary position embedding, rotate-half (GPT-NeoX) form: for every token and head the
// first and second halves of the head vector are rotated pairwise by that token's cos and
// sin tables. Scalar loops, one token, head and pair at a time.
#include <cstdint>

extern "C" void rope(const float* x, const float* cos, const float* sin, float* y,
                     int64_t tokens, int64_t heads, int64_t half) {
  const int64_t dim = 2 * half;
  for (int64_t t = 0; t < tokens; ++t) {
    for (int64_t h = 0; h < heads; ++h) {
      const float* xv = x + (t * heads + h) * dim;
      float* yv = y + (t * heads + h) * dim;
      for (int64_t j = 0; j < half; ++j) {
        const float c = cos[t * half + j];
        const float s = sin[t * half + j];
        yv[j] = xv[j] * c - xv[j + half] * s;
        yv[j + half] = xv[j + half] * c + xv[j] * s;
      }
    }
  }
}
