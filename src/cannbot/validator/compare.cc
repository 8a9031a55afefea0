#include "cannbot/validator/compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <optional>

#include "cannbot/validator/tensor_layout.h"

namespace cannbot::validator {
namespace {

bool ElementOk(double expected, double got, const ops::Tolerance& tolerance) {
  if (std::isnan(expected)) return std::isnan(got);
  if (std::isinf(expected)) return got == expected;
  if (!std::isfinite(got)) return false;
  const double error = std::fabs(got - expected);
  switch (tolerance.kind) {
    case ops::Tolerance::Kind::kExact: return got == expected;
    case ops::Tolerance::Kind::kCann:
      // The standard's small-value domain: near zero, relative error means nothing.
      if (std::fabs(expected) < tolerance.atol) return error <= tolerance.atol;
      return error / std::fabs(expected) < 10 * tolerance.threshold;
    case ops::Tolerance::Kind::kAbsRel: break;
  }
  return error <= tolerance.atol + tolerance.rtol * std::fabs(expected);
}

std::string Number(double v) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.9g", v);
  return text;
}

// The running sums of one comparison, element by element.
class ComparisonTally {
 public:
  explicit ComparisonTally(const ops::Tolerance& tolerance) : tolerance_(tolerance) {}

  void Add(int64_t i, double e, double g, bool poison) {
    // An element still holding the poison was never written, whatever was expected.
    if (poison || !ElementOk(e, g, tolerance_)) {
      ++c_.mismatches;
      if (poison) ++c_.never_written;
      if (!c_.first_bad) c_.first_bad = ElementMismatch{i, e, g, poison};
    }
    if (std::isfinite(e) && std::isfinite(g)) {
      const double abs_error = std::fabs(g - e);
      const double rel_error = abs_error / std::fmax(std::fabs(e), 1e-6);
      c_.max_abs_error = std::fmax(c_.max_abs_error, abs_error);
      c_.max_rel_error = std::fmax(c_.max_rel_error, rel_error);
      rel_sum_ += rel_error;
      ++rel_count_;
      if (std::fabs(e) >= tolerance_.atol) {
        cann_sum_ += abs_error / std::fabs(e);
        ++cann_count_;
      }
    } else if (std::isfinite(e) != std::isfinite(g) || std::isnan(e) != std::isnan(g) ||
               (std::isinf(e) && g != e)) {
      c_.max_abs_error = INFINITY;
      c_.max_rel_error = INFINITY;
    }
  }

  Comparison Finish(int64_t elements) {
    c_.elements = elements;
    c_.mean_rel_error = rel_count_ > 0 ? rel_sum_ / static_cast<double>(rel_count_) : 0;
    if (tolerance_.kind == ops::Tolerance::Kind::kCann && cann_count_ > 0) {
      // The standard's MERE is over the elements outside the small-value domain.
      c_.mean_rel_error = cann_sum_ / static_cast<double>(cann_count_);
      c_.mean_limit = tolerance_.threshold;
      c_.mean_exceeded = c_.mean_rel_error >= tolerance_.threshold;
    }
    return c_;
  }

 private:
  const ops::Tolerance& tolerance_;
  Comparison c_;
  double rel_sum_ = 0;
  int64_t rel_count_ = 0;
  double cann_sum_ = 0;  // kCann: relative errors of the elements outside the small domain
  int64_t cann_count_ = 0;
};

// Element i of two fp32 tensors' bytes, and whether `got`'s still holds the poison.
struct Float32Pair {
  float expected, got;
  bool poison;
};

inline Float32Pair LoadFloat32(const char* expected, const char* got, int64_t i) {
  Float32Pair pair;
  uint32_t bits;
  std::memcpy(&pair.expected, expected + 4 * i, 4);
  std::memcpy(&pair.got, got + 4 * i, 4);
  std::memcpy(&bits, got + 4 * i, 4);
  pair.poison = bits == kPoisonBits;
  return pair;
}

// fp32 on both sides, the common case, read directly: the perf gate compares every timed
// batch's outputs, millions of elements, and the dtype-generic reads cost several calls each.
void TallyFloat32(const ops::Tensor& expected, const ops::Tensor& got, int64_t n,
                  ComparisonTally* tally) {
  const char* e = static_cast<const char*>(expected.data());
  const char* g = static_cast<const char*>(got.data());
  for (int64_t i = 0; i < n; ++i) {
    const Float32Pair pair = LoadFloat32(e, g, i);
    tally->Add(i, pair.expected, pair.got, pair.poison);
  }
}

// The common case, a right fp32 answer under an absolute-plus-relative tolerance, in one
// branch-free pass (several times faster than the tally: the perf gate compares millions of
// elements a round); nullopt when any element is not finite, never written or out of
// tolerance, and the tally then decides, element by element. Its figures are the tally's.
std::optional<Comparison> QuickFloat32(const ops::Tensor& expected, const ops::Tensor& got,
                                       int64_t n, const ops::Tolerance& tolerance) {
  if (tolerance.kind != ops::Tolerance::Kind::kAbsRel) return std::nullopt;
  const char* e = static_cast<const char*>(expected.data());
  const char* g = static_cast<const char*>(got.data());
  double max_abs = 0, max_rel = 0, rel_sum = 0;
  bool bad = false;
  for (int64_t i = 0; i < n; ++i) {
    const Float32Pair pair = LoadFloat32(e, g, i);
    const double ed = pair.expected, gd = pair.got;
    const double error = std::fabs(gd - ed), size = std::fabs(ed);
    // NaN or infinity anywhere makes a comparison false or the bound infinite: bad.
    bad |= !(error <= tolerance.atol + tolerance.rtol * size) | !(size < INFINITY) | pair.poison;
    const double rel = error / (size > 1e-6 ? size : 1e-6);
    max_abs = error > max_abs ? error : max_abs;
    max_rel = rel > max_rel ? rel : max_rel;
    rel_sum += rel;
  }
  if (bad) return std::nullopt;
  Comparison c;
  c.elements = n;
  c.max_abs_error = max_abs;
  c.max_rel_error = max_rel;
  c.mean_rel_error = n > 0 ? rel_sum / static_cast<double>(n) : 0;
  return c;
}

}  // namespace

Comparison CompareOutputs(const ops::Tensor& expected, const ops::Tensor& got,
                          const ops::Tolerance& tolerance) {
  const int64_t n = std::min(expected.elements(), got.elements());
  ComparisonTally tally(tolerance);
  if (expected.dtype() == ops::DType::kF32 && got.dtype() == ops::DType::kF32) {
    if (auto quick = QuickFloat32(expected, got, n, tolerance)) return *quick;
    TallyFloat32(expected, got, n, &tally);
  } else {
    for (int64_t i = 0; i < n; ++i) {
      tally.Add(i, expected.At(i), got.At(i), IsPoison(got.data(), got.dtype(), i));
    }
  }
  return tally.Finish(n);
}

void MergeComparison(Comparison* total, const Comparison& next) {
  const double weight_total = static_cast<double>(total->elements);
  const double weight_next = static_cast<double>(next.elements);
  if (weight_total + weight_next > 0) {
    total->mean_rel_error = (total->mean_rel_error * weight_total +
                             next.mean_rel_error * weight_next) /
                            (weight_total + weight_next);
  }
  total->elements += next.elements;
  total->mismatches += next.mismatches;
  total->never_written += next.never_written;
  total->max_abs_error = std::fmax(total->max_abs_error, next.max_abs_error);
  total->max_rel_error = std::fmax(total->max_rel_error, next.max_rel_error);
  if (!total->first_bad) total->first_bad = next.first_bad;
  if (next.mean_exceeded && !total->mean_exceeded) {
    total->mean_exceeded = true;
    total->mean_limit = next.mean_limit;
  }
}

std::string Comparison::Describe(const std::string& output_name) const {
  if (ok()) return "all " + std::to_string(elements) + " elements match";
  if (mismatches == 0) {
    return "the mean relative error of " + output_name + " is " + Number(mean_rel_error) +
           ", not below the CANN standard's " + Number(mean_limit) + " (every element is within " +
           "its own bound; max rel error " + Number(max_rel_error) + ")";
  }
  std::string text = std::to_string(mismatches) + " of " + std::to_string(elements) +
                     " elements of " + output_name + " differ";
  if (never_written == elements) return text + ": the kernel never wrote the output";
  if (never_written > 0) text += " (" + std::to_string(never_written) + " never written)";
  if (first_bad) {
    text += "; first at index " + std::to_string(first_bad->index) + ": expected " +
            Number(first_bad->expected) + ", got " +
            (first_bad->never_written ? std::string("nothing (never written)")
                                      : Number(first_bad->got));
  }
  text += "; max abs error " + Number(max_abs_error) + ", max rel error " +
          Number(max_rel_error);
  return text;
}

}  // namespace cannbot::validator
