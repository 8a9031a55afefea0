// Reference hardswish: y = x * relu6(x + 3) / 6 = x * min(max(x + 3, 0), 6) / 6, in double.
#ifndef CANNBOT_REF_HARDSWISH_H
#define CANNBOT_REF_HARDSWISH_H
#include <algorithm>
#include <cstdint>

namespace cannbot_ref {

inline void hardswish(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const double v = x[i];
    const double relu6 = std::min(std::max(v + 3.0, 0.0), 6.0);
    // In double v * 6 cannot overflow; for v >= 3 this is exactly v, for v <= -3 it is +-0.
    y[i] = static_cast<float>(v * relu6 / 6.0);
  }
}

}  // namespace cannbot_ref
#endif
