// Compare: judges a kernel's output against the trusted reference, element by element.
//
// Values are compared in double whatever the tensors' dtype. What passes is the op's
// Tolerance (op_spec.h): atol/rtol element by element, the CANN standard (per-element bound
// plus a bound on the mean relative error) or exact equality; non-finite values must match
// exactly (NaN for NaN, the same infinity) in every mode. Besides pass/fail it summarises the
// error in the spirit of the CANN precision standard: maximum absolute and relative error,
// the mean relative error (MERE) and the maximum relative error (MARE), where relative error
// is |got - expected| / max(|expected|, 1e-6).
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "cannbot/ops/op_spec.h"

namespace cannbot::validator {

struct ElementMismatch {
  int64_t index = 0;
  double expected = 0;
  double got = 0;
  bool never_written = false;  // still holds the poison the validator wrote before the call
};

struct Comparison {
  int64_t elements = 0;
  int64_t mismatches = 0;
  int64_t never_written = 0;
  double max_abs_error = 0;
  double max_rel_error = 0;   // MARE
  double mean_rel_error = 0;  // MERE
  std::optional<ElementMismatch> first_bad;
  // kCann: the mean relative error exceeded `mean_limit` (every element may still be within
  // its own bound).
  bool mean_exceeded = false;
  double mean_limit = 0;

  bool ok() const { return mismatches == 0 && !mean_exceeded; }
  // "312 of 1037 elements differ; first at index 5: expected 0.731, got 0.5 (max abs err ...)"
  std::string Describe(const std::string& output_name) const;
};

// `got` is what a kernel wrote (elements still holding the validator's poison count as never
// written); both tensors have the same dtype and size.
Comparison CompareOutputs(const ops::Tensor& expected, const ops::Tensor& got,
                          const ops::Tolerance& tolerance);

// Folds `next` into `total` (for reports that span several outputs).
void MergeComparison(Comparison* total, const Comparison& next);

}  // namespace cannbot::validator
