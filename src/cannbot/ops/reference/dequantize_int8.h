// Reference int8 dequantisation: y[i] = x[i] * scale, the fp32 product (exact int8 times float,
// rounded once to float).
#ifndef CANNBOT_REF_DEQUANTIZE_INT8_H
#define CANNBOT_REF_DEQUANTIZE_INT8_H
#include <cstdint>

namespace cannbot_ref {

inline void dequantize_int8(const int8_t* x, float* y, int64_t n, float scale) {
  for (int64_t i = 0; i < n; ++i) {
    // An 8-bit integer times a 24-bit significand is exact in double; one rounding to float.
    y[i] = static_cast<float>(static_cast<double>(x[i]) * static_cast<double>(scale));
  }
}

}  // namespace cannbot_ref
#endif
