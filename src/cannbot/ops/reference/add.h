// Reference add: y[i] = a[i] + b[i].
#ifndef CANNBOT_REF_ADD_H
#define CANNBOT_REF_ADD_H
#include <cstdint>

namespace cannbot_ref {

inline void add(const float* a, const float* b, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = a[i] + b[i];
}

}  // namespace cannbot_ref
#endif
