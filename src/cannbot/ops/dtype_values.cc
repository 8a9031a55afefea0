#include "cannbot/ops/dtype_values.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>

namespace cannbot::ops {
namespace {

// A binary floating-point format narrower than double: `mant_bits` stored fraction bits and
// `exp_bits` exponent bits, IEEE layout (sign, exponent, fraction) in the low bits of a uint32.
struct FloatFormat {
  int mant_bits;
  int exp_bits;
  int Bias() const { return (1 << (exp_bits - 1)) - 1; }
  int MinExp() const { return 1 - Bias(); }  // exponent of the smallest normal
  int MaxExp() const { return Bias(); }      // exponent of the largest finite value
  uint32_t ExpMask() const { return ((1u << exp_bits) - 1) << mant_bits; }
  uint32_t SignBit() const { return 1u << (mant_bits + exp_bits); }
};

constexpr FloatFormat kHalf{10, 5};
constexpr FloatFormat kBFloat16{7, 8};
constexpr FloatFormat kFloat{23, 8};

// Rounds a non-negative integer-plus-fraction `q` to the nearest integer, ties to even. Exact:
// q - floor(q) loses nothing, so the tie test sees the true fraction. Written out rather than
// std::nearbyint so the result does not depend on the thread's floating-point rounding mode.
double RoundHalfEven(double q) {
  if (!std::isfinite(q)) return q;
  double n = std::floor(q);
  double frac = q - n;
  if (frac > 0.5 || (frac == 0.5 && std::fmod(n, 2.0) != 0.0)) n += 1.0;
  return n;
}

// Rounds `v` into format `f` in a single step, on the double's bits: its significand (implicit
// bit included) is shifted right so that one unit is the unit in the last place of `f`, and the
// bits shifted out decide the rounding (ties to even). Integer arithmetic only, so the result
// does not depend on the thread's rounding mode; every element of every generated or compared
// tensor passes here, which is why it is not written with frexp and ldexp.
uint32_t Encode(double v, FloatFormat f) {
  uint64_t bits = 0;
  std::memcpy(&bits, &v, sizeof(bits));
  const uint32_t sign = (bits >> 63) != 0 ? f.SignBit() : 0;
  const int biased = static_cast<int>((bits >> 52) & 0x7ff);
  const uint64_t fraction = bits & ((uint64_t{1} << 52) - 1);
  if (biased == 0x7ff) {  // infinity, or a NaN (made quiet)
    return sign | f.ExpMask() | (fraction != 0 ? 1u << (f.mant_bits - 1) : 0u);
  }
  // Zero, and double subnormals (below 2^-1022): far under half the smallest subnormal of
  // every narrower format, so they round to zero.
  if (biased == 0) return sign;
  const int exponent = biased - 1023;  // v = 1.fraction * 2^exponent
  if (exponent > f.MaxExp()) return sign | f.ExpMask();
  // Below the smallest normal the spacing stops shrinking: that is what makes subnormals.
  const int scale_exp = std::max(exponent, f.MinExp());
  const int shift = 52 - f.mant_bits + (scale_exp - exponent);  // at least 29
  const uint64_t significand = fraction | (uint64_t{1} << 52);
  uint64_t m = 0;
  if (shift < 64) {
    m = significand >> shift;
    const uint64_t rest = significand & ((uint64_t{1} << shift) - 1);
    const uint64_t half = uint64_t{1} << (shift - 1);
    if (rest > half || (rest == half && (m & 1) != 0)) ++m;  // m is at most 2^(mant_bits+1)
  }  // else: below a quarter of the smallest subnormal, zero
  // Adding the significand (implicit bit included) to (biased exponent - 1) lets a carry out of
  // the fraction bump the exponent, and makes subnormals (field 0, no implicit bit) fall out of
  // the same formula. Rounding up past the largest finite value carries into the all-ones
  // exponent with a zero fraction, which is exactly infinity.
  const uint32_t field = static_cast<uint32_t>(scale_exp + f.Bias() - 1);
  return sign | ((field << f.mant_bits) + static_cast<uint32_t>(m));
}

// Every value of a narrower format is a float: its bits widened into a float's are exact.
double Decode(uint32_t bits, FloatFormat f) {
  const uint32_t sign = (bits & f.SignBit()) != 0 ? 0x80000000u : 0u;
  const uint32_t field = (bits & f.ExpMask()) >> f.mant_bits;
  const uint32_t frac = bits & ((1u << f.mant_bits) - 1);
  const int widen = kFloat.mant_bits - f.mant_bits;
  uint32_t out = 0;
  if (field == (f.ExpMask() >> f.mant_bits)) {  // infinity or NaN
    out = sign | kFloat.ExpMask() | (frac << widen);
  } else if (field != 0) {
    out = sign | ((field - f.Bias() + kFloat.Bias()) << kFloat.mant_bits) | (frac << widen);
  } else {
    // Subnormal in `f`: frac * 2^(MinExp - mant_bits), exact in double (and in float).
    const double mag = std::ldexp(static_cast<double>(frac), f.MinExp() - f.mant_bits);
    return sign != 0 ? -mag : mag;
  }
  float value = 0;
  std::memcpy(&value, &out, sizeof(value));
  return value;
}

template <typename T>
T Read(const unsigned char* p) {
  T out;
  std::memcpy(&out, p, sizeof(T));
  return out;
}

template <typename T>
void Write(unsigned char* p, T value) {
  std::memcpy(p, &value, sizeof(T));
}

// Round to nearest (ties to even), then clamp. The bounds are compared as doubles: min is a
// power of two (or 0) and max + 1 = 2^digits, both exact, so the comparisons are exact even for
// int64 whose max is not a double.
template <typename T>
T SaturatingInt(double v) {
  if (std::isnan(v)) return 0;
  const double r = std::signbit(v) ? -RoundHalfEven(-v) : RoundHalfEven(v);
  const double lo = static_cast<double>(std::numeric_limits<T>::min());
  const double hi_exclusive = std::ldexp(1.0, std::numeric_limits<T>::digits);
  if (r <= lo) return std::numeric_limits<T>::min();
  if (r >= hi_exclusive) return std::numeric_limits<T>::max();
  return static_cast<T>(r);
}

template <typename T>
DTypeLimits IntLimits() {
  return {static_cast<double>(std::numeric_limits<T>::min()),
          static_cast<double>(std::numeric_limits<T>::max()), 1.0, 1.0, 1.0};
}

}  // namespace

uint16_t HalfFromDouble(double v) { return static_cast<uint16_t>(Encode(v, kHalf)); }
double HalfToDouble(uint16_t bits) { return Decode(bits, kHalf); }
uint16_t BFloat16FromDouble(double v) { return static_cast<uint16_t>(Encode(v, kBFloat16)); }
double BFloat16ToDouble(uint16_t bits) { return Decode(bits, kBFloat16); }

double LoadElement(DType dtype, const void* data, int64_t index) {
  const auto* p = static_cast<const unsigned char*>(data) + index * DTypeBytes(dtype);
  switch (dtype) {
    case DType::kF32: return Read<float>(p);
    case DType::kF16: return HalfToDouble(Read<uint16_t>(p));
    case DType::kBF16: return BFloat16ToDouble(Read<uint16_t>(p));
    case DType::kI8: return Read<int8_t>(p);
    case DType::kU8: return Read<uint8_t>(p);
    case DType::kI32: return Read<int32_t>(p);
    case DType::kI64: return static_cast<double>(Read<int64_t>(p));
  }
  return 0.0;  // unreachable: every enumerator has a case
}

void StoreElement(DType dtype, void* data, int64_t index, double value) {
  auto* p = static_cast<unsigned char*>(data) + index * DTypeBytes(dtype);
  switch (dtype) {
    // Float goes through Encode too: static_cast<float> of an out-of-range double is undefined.
    case DType::kF32: Write<uint32_t>(p, Encode(value, kFloat)); return;
    case DType::kF16: Write<uint16_t>(p, HalfFromDouble(value)); return;
    case DType::kBF16: Write<uint16_t>(p, BFloat16FromDouble(value)); return;
    case DType::kI8: Write<int8_t>(p, SaturatingInt<int8_t>(value)); return;
    case DType::kU8: Write<uint8_t>(p, SaturatingInt<uint8_t>(value)); return;
    case DType::kI32: Write<int32_t>(p, SaturatingInt<int32_t>(value)); return;
    case DType::kI64: Write<int64_t>(p, SaturatingInt<int64_t>(value)); return;
  }
}

bool DTypeIsFloat(DType dtype) {
  return dtype == DType::kF32 || dtype == DType::kF16 || dtype == DType::kBF16;
}

DTypeLimits Limits(DType dtype) {
  switch (dtype) {
    case DType::kF32:
      return {-FLT_MAX, FLT_MAX, FLT_MIN, std::ldexp(1.0, -149), FLT_EPSILON};
    case DType::kF16:
      return {-65504.0, 65504.0, std::ldexp(1.0, -14), std::ldexp(1.0, -24), std::ldexp(1.0, -10)};
    case DType::kBF16: {
      const double max = (2.0 - std::ldexp(1.0, -7)) * std::ldexp(1.0, 127);
      return {-max, max, std::ldexp(1.0, -126), std::ldexp(1.0, -133), std::ldexp(1.0, -7)};
    }
    case DType::kI8: return IntLimits<int8_t>();
    case DType::kU8: return IntLimits<uint8_t>();
    case DType::kI32: return IntLimits<int32_t>();
    case DType::kI64: return IntLimits<int64_t>();
  }
  return IntLimits<int8_t>();  // unreachable: every enumerator has a case
}

}  // namespace cannbot::ops
