// Element values of every DType as the trusted validator reads and writes them: exact decoding
// of half / bfloat16 bits, one-step round-to-nearest-even encoding straight from a double (never
// through float, whose extra rounding would give a different answer near ties), and typed loads
// and stores into raw tensor buffers. The validator's reference results pass through here, so
// these conversions are written out by hand rather than trusted to a compiler's _Float16/__bf16.
//
// Thread-safety: pure functions; no state.
#pragma once

#include <cstdint>

#include "cannbot/ops/dtype.h"

namespace cannbot::ops {

// IEEE binary16. Round to nearest, ties to even, in one step from the double; subnormals kept,
// overflow gives +-inf, NaN gives a quiet NaN of the same sign, -0 stays -0.
uint16_t HalfFromDouble(double v);
// Exact: every half value is a double.
double HalfToDouble(uint16_t bits);

// bfloat16 (the top 16 bits of a float). Same rounding rules as HalfFromDouble, again in one
// step from the double (so not the same as rounding to float first and then truncating).
uint16_t BFloat16FromDouble(double v);
// Exact.
double BFloat16ToDouble(uint16_t bits);

// The value of element `index` of a buffer of `dtype` elements. Exact for every type except
// int64, whose values beyond 2^53 in magnitude round to the nearest double. No bounds check:
// `index` must be inside the buffer. Unaligned buffers are fine.
double LoadElement(DType dtype, const void* data, int64_t index);

// Writes `value` as element `index`. Float types round to nearest even (overflow to +-inf, NaN
// stays NaN). Integer types round to nearest with ties to even (2.5 -> 2, 3.5 -> 4, the way a
// device "rint" cast does), saturate to the type's range (+-inf too), and store 0 for NaN.
void StoreElement(DType dtype, void* data, int64_t index, double value);

// True for kF32, kF16, kBF16.
bool DTypeIsFloat(DType dtype);
// half or bfloat16: computed in float by cannbot's references and generated kernels.
inline bool DTypeIsSixteenBitFloat(DType dtype) {
  return dtype == DType::kF16 || dtype == DType::kBF16;
}

// The representable range and spacing of a dtype, as doubles. For integer types lowest/max are
// the range (int64's max, 2^63 - 1, reads as 2^63 once a double) and min_normal, min_subnormal
// and epsilon are 1.
struct DTypeLimits {
  double lowest;         // most negative finite value
  double max;            // largest finite value
  double min_normal;     // smallest positive normal value
  double min_subnormal;  // smallest positive value
  double epsilon;        // distance from 1 to the next larger value
};
DTypeLimits Limits(DType dtype);

}  // namespace cannbot::ops
