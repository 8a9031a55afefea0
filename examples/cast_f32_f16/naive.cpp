// Naive fp32 -> fp16 conversion: one C++ conversion to `half` (_Float16) per element, which
// rounds to nearest, ties to even, produces fp16 subnormals below 2^-14 and +-inf from 65520
// up. The compiler emits a scalar (or F16C) conversion; nothing is vectorised on purpose.
#include <cstdint>

extern "C" void cast_f32_f16(const float* x, half* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    y[i] = static_cast<half>(x[i]);
  }
}
