// Reference fp32 -> fp16 conversion: y[i] = x[i] rounded to the nearest IEEE binary16 value,
// ties to even (subnormal halves included, magnitudes >= 65520 become +-inf), written as the
// float with that value (cannbot stores it into the half output exactly).
#ifndef CANNBOT_REF_CAST_F32_F16_H
#define CANNBOT_REF_CAST_F32_F16_H
#include <cmath>
#include <cstdint>

namespace cannbot_ref {

// |v| rounded to a multiple of `quantum` (a power of two), ties to the even multiple. Every
// step is exact in double: v / quantum is a scaling, and it stays below 2^12.
inline double HalfRoundToQuantumEven(double v, double quantum) {
  const double units = v / quantum;
  double whole = std::floor(units);
  const double rest = units - whole;
  if (rest > 0.5 || (rest == 0.5 && std::fmod(whole, 2.0) != 0.0)) whole += 1.0;
  return whole * quantum;
}

inline void cast_f32_f16(const float* x, float* y, int64_t n) {
  const double kMinNormal = std::ldexp(1.0, -14);  // smallest normal half
  const double kMaxHalf = 65504.0;
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
      rounded = HalfRoundToQuantumEven(mag, std::ldexp(1.0, -24));  // subnormal halves: 2^-24 apart
    } else {
      int exponent = 0;
      std::frexp(mag, &exponent);  // mag = f * 2^exponent, f in [0.5, 1)
      rounded = HalfRoundToQuantumEven(mag, std::ldexp(1.0, exponent - 11));  // 11 significant bits
    }
    if (rounded > kMaxHalf) rounded = HUGE_VAL;
    y[i] = static_cast<float>(std::signbit(v) ? -rounded : rounded);
  }
}

}  // namespace cannbot_ref
#endif
