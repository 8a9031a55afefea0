// Naive fp32 -> bf16 conversion: one conversion to `bfloat16` (the contract's struct, which
// rounds to nearest, ties to even, keeps subnormals and gives +-inf past bf16's largest value)
// per element. Nothing is vectorised on purpose.
#include <cstdint>

extern "C" void cast_f32_bf16(const float* x, bfloat16* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    y[i] = static_cast<bfloat16>(x[i]);
  }
}
