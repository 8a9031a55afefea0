// Reference fp32 -> bf16 conversion: y[i] = x[i] rounded to the nearest bfloat16 (8 significant
// bits, fp32's exponent range), ties to even, bf16 subnormals kept, beyond bf16's largest +-inf;
// written as the float with that value (cannbot stores it into the bfloat16 output exactly).
#ifndef CANNBOT_REF_CAST_F32_BF16_H
#define CANNBOT_REF_CAST_F32_BF16_H
#include <cmath>
#include <cstdint>

namespace cannbot_ref {

// |v| rounded to a multiple of `quantum` (a power of two), ties to the even multiple. Exact in
// double: v / quantum is a scaling and stays below 2^9.
inline double Bf16RoundToQuantumEven(double v, double quantum) {
  const double units = v / quantum;
  double whole = std::floor(units);
  const double rest = units - whole;
  if (rest > 0.5 || (rest == 0.5 && std::floor(whole * 0.5) * 2.0 != whole)) whole += 1.0;
  return whole * quantum;
}

inline void cast_f32_bf16(const float* x, float* y, int64_t n) {
  const double kMinNormal = std::ldexp(1.0, -126);                   // smallest normal bf16
  const double kMaxBf16 = std::ldexp(255.0, 120);                     // (2 - 2^-7) * 2^127
  for (int64_t i = 0; i < n; ++i) {
    const double v = x[i];
    if (std::isnan(v)) {
      y[i] = x[i];
      continue;
    }
    const double mag = std::fabs(v);
    double rounded;
    if (std::isinf(mag)) {
      rounded = mag;
    } else if (mag < kMinNormal) {
      rounded = Bf16RoundToQuantumEven(mag, std::ldexp(1.0, -133));  // subnormal bf16: 2^-133 apart
    } else {
      int exponent = 0;
      std::frexp(mag, &exponent);  // mag = f * 2^exponent, f in [0.5, 1)
      rounded = Bf16RoundToQuantumEven(mag, std::ldexp(1.0, exponent - 8));  // 8 significant bits
    }
    if (rounded > kMaxBf16) rounded = HUGE_VAL;
    y[i] = static_cast<float>(std::signbit(v) ? -rounded : rounded);
  }
}

}  // namespace cannbot_ref
#endif
