// Naive swiglu: each row of x is [gate | up]; y = gate / (1 + exp(-gate)) * up, one scalar
// std::exp per output element. Like naive swish it needs no special cases: a very negative
// gate overflows exp(-gate) to +inf and gives -0, a very positive one gives gate itself.
#include <cmath>
#include <cstdint>

extern "C" void swiglu(const float* x, float* y, int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* gate = x + r * 2 * cols;
    const float* up = gate + cols;
    for (int64_t j = 0; j < cols; ++j) {
      y[r * cols + j] = gate[j] / (1.0f + std::exp(-gate[j])) * up[j];
    }
  }
}
