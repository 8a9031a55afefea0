// Reference mish: y = x * tanh(softplus(x)), softplus(x) = log(1 + exp(x)), in double.
#ifndef CANNBOT_REF_MISH_H
#define CANNBOT_REF_MISH_H
#include <algorithm>
#include <cmath>
#include <cstdint>

namespace cannbot_ref {

inline void mish(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const double v = x[i];
    // The stable softplus: exp never overflows, and for very negative v it is exp(v) itself
    // (log1p keeps it exact), so y ~ v * exp(v) keeps its relative precision.
    const double softplus = std::max(v, 0.0) + std::log1p(std::exp(-std::fabs(v)));
    y[i] = static_cast<float>(v * std::tanh(softplus));
  }
}

}  // namespace cannbot_ref
#endif
