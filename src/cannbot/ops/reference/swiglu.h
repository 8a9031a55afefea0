// Reference swiglu, row by row over x = [a | b] of shape [rows, 2*cols]:
// y[r][j] = silu(a) * b = a / (1 + exp(-a)) * b with a = x[r][j], b = x[r][cols + j],
// evaluated in double (exp(-a) overflowing to inf gives silu = -0, as it should).
#ifndef CANNBOT_REF_SWIGLU_H
#define CANNBOT_REF_SWIGLU_H
#include <cmath>
#include <cstdint>

namespace cannbot_ref {

inline void swiglu(const float* x, float* y, int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* gate = x + r * 2 * cols;
    const float* up = gate + cols;
    for (int64_t j = 0; j < cols; ++j) {
      const double a = gate[j];
      y[r * cols + j] = static_cast<float>(a / (1.0 + std::exp(-a)) * static_cast<double>(up[j]));
    }
  }
}

}  // namespace cannbot_ref
#endif
