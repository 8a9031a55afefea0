// Reference sigmoid (logistic): y = 1 / (1 + exp(-x)), evaluated in double.
#ifndef CANNBOT_REF_SIGMOID_H
#define CANNBOT_REF_SIGMOID_H
#include <cmath>
#include <cstdint>

namespace cannbot_ref {

inline void sigmoid(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const double v = x[i];
    // exp(-v) overflows double only for v < -709, where the true result is below 1e-308
    // and rounds to 0 in float anyway; for large v it underflows to 0 and y = 1.
    y[i] = static_cast<float>(1.0 / (1.0 + std::exp(-v)));
  }
}

}  // namespace cannbot_ref
#endif
