// Reference hardsigmoid: y = relu6(x + 3) / 6 = min(max(x + 3, 0), 6) / 6, in double.
#ifndef CANNBOT_REF_HARDSIGMOID_H
#define CANNBOT_REF_HARDSIGMOID_H
#include <algorithm>
#include <cstdint>

namespace cannbot_ref {

inline void hardsigmoid(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const double v = x[i];
    y[i] = static_cast<float>(std::min(std::max(v + 3.0, 0.0), 6.0) / 6.0);
  }
}

}  // namespace cannbot_ref
#endif
