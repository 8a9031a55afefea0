// Reference reciprocal: y = 1 / x, evaluated in double.
#ifndef CANNBOT_REF_RECIPROCAL_H
#define CANNBOT_REF_RECIPROCAL_H
#include <cstdint>

namespace cannbot_ref {

inline void reciprocal(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = static_cast<float>(1.0 / static_cast<double>(x[i]));
}

}  // namespace cannbot_ref
#endif
