// Reference clamp: y = min(max(x, lo), hi) for lo <= hi (exact).
#ifndef CANNBOT_REF_CLAMP_H
#define CANNBOT_REF_CLAMP_H
#include <cstdint>

namespace cannbot_ref {

inline void clamp(const float* x, float* y, int64_t n, float lo, float hi) {
  for (int64_t i = 0; i < n; ++i) {
    const float v = x[i];
    y[i] = v < lo ? lo : (v > hi ? hi : v);
  }
}

}  // namespace cannbot_ref
#endif
