// Reference swish: y = x * sigmoid(x) = x / (1 + exp(-x)), evaluated in double.
#ifndef CANNBOT_REF_SWISH_H
#define CANNBOT_REF_SWISH_H
#include <cmath>
#include <cstdint>

namespace cannbot_ref {

inline void swish(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const double v = x[i];
    y[i] = static_cast<float>(v / (1.0 + std::exp(-v)));
  }
}

}  // namespace cannbot_ref
#endif
