// Reference relu: y = max(x, 0).
#ifndef CANNBOT_REF_RELU_H
#define CANNBOT_REF_RELU_H
#include <cstdint>

namespace cannbot_ref {

inline void relu(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

}  // namespace cannbot_ref
#endif
