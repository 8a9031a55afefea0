// cannbot_launch_widen.h: how a generated wrapper hands a spec's non-fp32 tensor to
// cannbot_ascendc::Launch, which takes fp32 host buffers (cannbot_launch.h): Widened before the
// launch, Narrow after it (validator/ascendc_target.h, PlanLaunchBuffers, writes the calls).
//
// Thread-safety: pure functions.
#ifndef CANNBOT_LAUNCH_WIDEN_H
#define CANNBOT_LAUNCH_WIDEN_H

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "kernel_operator.h"

namespace cannbot_ascendc {

// A spec's half, bfloat16 or integer tensor as the fp32 buffer Launch takes, and Launch's fp32
// results back into it (nearest even), leaving alone every element the launch returned
// unchanged: its bits, a never-written marker among them, stay what they were. fp32 carries an
// int32 or int64 exactly up to 2^24 in magnitude: an input value (`input`) or a changed output
// value beyond that stops the launch, naming it, rather than being judged rounded.
constexpr double kExactIntegerInFloat = 16777216.0;  // 2^24
template <typename T>
inline std::vector<float> Widened(const T* values, int64_t n, bool input = true) {
  std::vector<float> wide(static_cast<size_t>(n > 0 ? n : 0));
  for (size_t i = 0; i < wide.size(); ++i) {
    if constexpr (std::is_integral_v<T> && sizeof(T) >= 4) {
      if (input && std::fabs(static_cast<double>(values[i])) > kExactIntegerInFloat) {
        Violation("launch-contract", "an integer input holds %lld at element %zu, beyond the "
                  "2^24 that the launch's fp32 buffers carry exactly",
                  static_cast<long long>(values[i]), i);
      }
    }
    wide[i] = static_cast<float>(values[i]);
  }
  return wide;
}
template <typename T>
inline void Narrow(const std::vector<float>& now, const std::vector<float>& before, T* out) {
  for (size_t i = 0; i < now.size() && i < before.size(); ++i) {
    if (std::memcmp(&now[i], &before[i], sizeof(float)) == 0) continue;
    if constexpr (std::is_integral_v<T> && sizeof(T) >= 4) {
      if (!(std::fabs(static_cast<double>(now[i])) <= kExactIntegerInFloat)) {
        Violation("launch-contract", "the kernel wrote %.0f to element %zu of an integer output, "
                  "beyond the 2^24 that the launch's fp32 buffers carry exactly",
                  static_cast<double>(now[i]), i);
      }
    }
    out[i] = static_cast<T>(now[i]);
  }
}

}  // namespace cannbot_ascendc

#endif  // CANNBOT_LAUNCH_WIDEN_H
