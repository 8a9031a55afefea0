// Reference divide with a broadcast row: y[r][j] = a[r][j] / b[j] for a, y [rows, cols] and
// b [cols], the correctly rounded IEEE quotient.
#ifndef CANNBOT_REF_DIVIDE_H
#define CANNBOT_REF_DIVIDE_H
#include <cstdint>

namespace cannbot_ref {

// The quotient is taken in double and rounded to float: with 53 >= 2*24+2 bits that double
// rounding is innocuous, so the result is the correctly rounded fp32 quotient, subnormal
// quotients and overflow to +-inf included (and 0/0 = NaN, x/0 = +-inf, as IEEE says).
inline void divide(const float* a, const float* b, float* y, int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t j = 0; j < cols; ++j) {
      const int64_t i = r * cols + j;
      y[i] = static_cast<float>(static_cast<double>(a[i]) / static_cast<double>(b[j]));
    }
  }
}

}  // namespace cannbot_ref
#endif
