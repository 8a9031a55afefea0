// Reference rsqrt: y = 1 / sqrt(x) for x > 0, evaluated in double.
#ifndef CANNBOT_REF_RSQRT_H
#define CANNBOT_REF_RSQRT_H
#include <cmath>
#include <cstdint>

namespace cannbot_ref {

inline void rsqrt(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    y[i] = static_cast<float>(1.0 / std::sqrt(static_cast<double>(x[i])));
  }
}

}  // namespace cannbot_ref
#endif
