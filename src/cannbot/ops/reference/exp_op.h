// Reference exp: y = e^x, evaluated in double (overflow to +inf and underflow to subnormals
// and 0 happen in the final rounding to float).
#ifndef CANNBOT_REF_EXP_OP_H
#define CANNBOT_REF_EXP_OP_H
#include <cmath>
#include <cstdint>

namespace cannbot_ref {

inline void exp_op(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = static_cast<float>(std::exp(static_cast<double>(x[i])));
}

}  // namespace cannbot_ref
#endif
