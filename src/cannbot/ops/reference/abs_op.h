// Reference abs: y = |x| (exact; -0 gives +0).
#ifndef CANNBOT_REF_ABS_OP_H
#define CANNBOT_REF_ABS_OP_H
#include <cmath>
#include <cstdint>

namespace cannbot_ref {

inline void abs_op(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = std::fabs(x[i]);
}

}  // namespace cannbot_ref
#endif
