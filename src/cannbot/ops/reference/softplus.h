// Reference softplus: y = log(1 + exp(x)), as max(x, 0) + log1p(exp(-|x|)) in double.
#ifndef CANNBOT_REF_SOFTPLUS_H
#define CANNBOT_REF_SOFTPLUS_H
#include <algorithm>
#include <cmath>
#include <cstdint>

namespace cannbot_ref {

inline void softplus(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const double v = x[i];
    // exp(-|v|) <= 1 never overflows; for very negative v the result is exp(v) to full
    // relative precision (log1p(t) ~ t), for very positive v it is v.
    y[i] = static_cast<float>(std::max(v, 0.0) + std::log1p(std::exp(-std::fabs(v))));
  }
}

}  // namespace cannbot_ref
#endif
