// Reference elu: y = x > 0 ? x : alpha * (exp(x) - 1), with expm1 in double.
#ifndef CANNBOT_REF_ELU_H
#define CANNBOT_REF_ELU_H
#include <cmath>
#include <cstdint>

namespace cannbot_ref {

inline void elu(const float* x, float* y, int64_t n, float alpha) {
  const double a = alpha;
  for (int64_t i = 0; i < n; ++i) {
    const double v = x[i];
    // expm1 keeps the relative precision of exp(x) - 1 for x near 0 (and -0 gives -0);
    // for very negative x it saturates to -1, so y -> -alpha.
    y[i] = static_cast<float>(v > 0.0 ? v : a * std::expm1(v));
  }
}

}  // namespace cannbot_ref
#endif
