// Reference symmetric int8 quantisation: y[i] = saturate(round_half_even(x[i] / scale)) in
// [-128, 127], where x[i] / scale is the fp32 quotient (one correctly rounded division).
#ifndef CANNBOT_REF_QUANTIZE_INT8_H
#define CANNBOT_REF_QUANTIZE_INT8_H
#include <cmath>
#include <cstdint>

namespace cannbot_ref {

inline void quantize_int8(const float* x, int8_t* y, int64_t n, float scale) {
  for (int64_t i = 0; i < n; ++i) {
    // The double quotient of two floats rounded once to float is exactly the fp32 quotient
    // (double has more than 2 * 24 + 2 bits), so this matches a float division bit for bit;
    // overflow gives +-inf, which saturates below.
    const double q = static_cast<float>(static_cast<double>(x[i]) / static_cast<double>(scale));
    if (std::isnan(q)) {
      y[i] = 0;
      continue;
    }
    if (q >= 127.0) {
      y[i] = 127;
      continue;
    }
    if (q <= -128.0) {
      y[i] = -128;
      continue;
    }
    // |q| < 129: floor and the remainder are exact in double.
    double whole = std::floor(q);
    const double rest = q - whole;
    if (rest > 0.5 || (rest == 0.5 && std::floor(whole * 0.5) * 2.0 != whole)) whole += 1.0;
    if (whole > 127.0) whole = 127.0;
    if (whole < -128.0) whole = -128.0;
    y[i] = static_cast<int8_t>(whole);
  }
}

}  // namespace cannbot_ref
#endif
