// The CANN precision standard for `ascendc` kernels, judged on (expected, got) arrays.
//
// Per element, with golden = the reference output in the tensor's dtype (fp16: the fp32
// reference rounded to half, since a half output cannot be closer than that):
//  - non-finite goldens must be matched exactly (NaN by NaN, an infinity by the same one), and
//    a finite golden by a finite value;
//  - large values (|golden| >= small_value) contribute the relative error
//    |got - golden| / (|golden| + 1e-7) to MERE (mean) and MARE (max);
//  - small values (|golden| < small_value) are judged by absolute error, which must not exceed
//    small_value_error (the small-value domain of the CANN standard).
// Pass: MERE < threshold, MARE < 10 x threshold, no small-value errors, no non-finite mismatch.
// Thresholds: fp16 2^-10 (small values below 2^-11, error 2^-16); bf16 2^-7 (2^-8, 2^-16);
// fp32 2^-13 (2^-14, 2^-30).
//
// `abs_floor` (the op's own absolute tolerance, docs/kernel-abi.md) counts an element whose
// absolute error is within it as exact. Without it the fp32 standard rejects every fp32
// layernorm: outputs near zero come from cancellations (x - mean, a + beta) whose float error
// is absolute, so their relative error exceeds 10 x 2^-13 even for the reference computed in
// float. With atol = 0 (add) nothing changes.
//
// Inputs: for fp16 kernels the launcher rounds fp32 inputs to half; compute the reference on
// inputs passed through QuantizeToHalf so both sides see the same numbers.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace cannbot::ascendc {

struct PrecisionStandard {
  uint32_t dtype_bits = 32;
  bool bfloat16 = false;         // with dtype_bits 16: bf16, not fp16
  double threshold = 0;          // MERE bound
  double max_factor = 10;        // MARE bound = max_factor x threshold
  double relative_eps = 1e-7;    // added to |golden| in the relative error
  double small_value = 0;        // below: absolute error decides
  double small_value_error = 0;  // the absolute error allowed there
};

// fp16 (16), bf16 (16 with `bfloat16`) or fp32 (32); any other width gets the fp32 standard.
PrecisionStandard CannPrecisionStandard(uint32_t dtype_bits, bool bfloat16 = false);
// "fp16", "bf16" or "fp32".
const char* StandardName(const PrecisionStandard& s);

struct PrecisionReport {
  uint32_t dtype_bits = 32;
  bool bfloat16 = false;
  int64_t elements = 0;
  int64_t large_elements = 0;
  int64_t small_elements = 0;
  int64_t within_floor = 0;  // elements whose absolute error was within abs_floor
  double mere = 0;
  double mare = 0;
  int64_t mare_index = -1;
  int64_t small_value_errors = 0;
  double max_small_abs_error = 0;
  int64_t first_small_error_index = -1;
  int64_t nonfinite_mismatches = 0;
  int64_t first_nonfinite_index = -1;
  bool pass = false;
  std::string reason;  // one sentence: why it passed or failed

  nlohmann::json ToJson() const;
};

PrecisionReport CheckPrecision(const float* expected, const float* got, int64_t n,
                               uint32_t dtype_bits, double abs_floor = 0, bool bfloat16 = false);

// fp32 -> half -> fp32 exactly as the launcher converts inputs: round to nearest even, finite
// values beyond +-65504 saturate to +-65504, infinities and NaN stay.
float QuantizeToHalf(float value);
void QuantizeToHalf(float* data, int64_t n);
// fp32 -> half -> fp32 as half arithmetic rounds a result (what an expected fp16 output is
// compared as): nearest even, and beyond the half range +-inf, as the emulated instructions
// and Cast give; only the launcher's input conversion saturates.
void RoundAsHalfResult(float* data, int64_t n);
// fp32 -> bf16 -> fp32 as the launcher converts inputs: round to nearest even.
float QuantizeToBf16(float value);
void QuantizeToBf16(float* data, int64_t n);

}  // namespace cannbot::ascendc
