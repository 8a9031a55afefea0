// Reference log: y = ln(x) for x > 0 (subnormal x included), evaluated in double.
#ifndef CANNBOT_REF_LOG_OP_H
#define CANNBOT_REF_LOG_OP_H
#include <cmath>
#include <cstdint>

namespace cannbot_ref {

inline void log_op(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = static_cast<float>(std::log(static_cast<double>(x[i])));
}

}  // namespace cannbot_ref
#endif
