// Reference sqrt: y = sqrt(x) for x >= 0, correctly rounded (the square root in double,
// rounded once more to float, is the correctly rounded float square root).
#ifndef CANNBOT_REF_SQRT_OP_H
#define CANNBOT_REF_SQRT_OP_H
#include <cmath>
#include <cstdint>

namespace cannbot_ref {

inline void sqrt_op(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = static_cast<float>(std::sqrt(static_cast<double>(x[i])));
}

}  // namespace cannbot_ref
#endif
