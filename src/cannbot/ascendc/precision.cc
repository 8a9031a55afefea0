#include "cannbot/ascendc/precision.h"

#include <cmath>
#include <cstdio>

#include "cannbot/ops/dtype_values.h"

namespace cannbot::ascendc {

PrecisionStandard CannPrecisionStandard(uint32_t dtype_bits, bool bfloat16) {
  PrecisionStandard s;
  if (dtype_bits == 16 && bfloat16) {
    s.dtype_bits = 16;
    s.bfloat16 = true;
    s.threshold = std::ldexp(1.0, -7);
    s.small_value = std::ldexp(1.0, -8);
    s.small_value_error = std::ldexp(1.0, -16);
  } else if (dtype_bits == 16) {
    s.dtype_bits = 16;
    s.threshold = std::ldexp(1.0, -10);
    s.small_value = std::ldexp(1.0, -11);
    s.small_value_error = std::ldexp(1.0, -16);
  } else {
    s.dtype_bits = 32;
    s.threshold = std::ldexp(1.0, -13);
    s.small_value = std::ldexp(1.0, -14);
    s.small_value_error = std::ldexp(1.0, -30);
  }
  return s;
}

float QuantizeToHalf(float value) {
  if (std::isfinite(value) && std::fabs(value) >= 65504.0f) return value > 0 ? 65504.0f : -65504.0f;
  return static_cast<float>(static_cast<_Float16>(value));
}

void QuantizeToHalf(float* data, int64_t n) {
  for (int64_t i = 0; i < n; ++i) data[i] = QuantizeToHalf(data[i]);
}

void RoundAsHalfResult(float* data, int64_t n) {
  for (int64_t i = 0; i < n; ++i) data[i] = static_cast<float>(static_cast<_Float16>(data[i]));
}

float QuantizeToBf16(float value) {
  return static_cast<float>(ops::BFloat16ToDouble(ops::BFloat16FromDouble(value)));
}

void QuantizeToBf16(float* data, int64_t n) {
  for (int64_t i = 0; i < n; ++i) data[i] = QuantizeToBf16(data[i]);
}

const char* StandardName(const PrecisionStandard& s) {
  return s.dtype_bits == 16 ? (s.bfloat16 ? "bf16" : "fp16") : "fp32";
}

namespace {

// The golden value in the output dtype. Overflow to infinity is what a half output does.
double Golden(float expected, const PrecisionStandard& s) {
  if (s.dtype_bits == 16 && s.bfloat16) return QuantizeToBf16(expected);
  if (s.dtype_bits == 16) return static_cast<double>(static_cast<_Float16>(expected));
  return expected;
}

std::string Fmt(const char* format, double a, double b) {
  char text[160];
  std::snprintf(text, sizeof(text), format, a, b);
  return text;
}

}  // namespace

PrecisionReport CheckPrecision(const float* expected, const float* got, int64_t n,
                               uint32_t dtype_bits, double abs_floor, bool bfloat16) {
  const PrecisionStandard s = CannPrecisionStandard(dtype_bits, bfloat16);
  PrecisionReport r;
  r.dtype_bits = s.dtype_bits;
  r.bfloat16 = s.bfloat16;
  r.elements = n;
  double sum_rel = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double g = Golden(expected[i], s);
    const double o = got[i];
    if (!std::isfinite(g) || !std::isfinite(o)) {
      const bool same = (std::isnan(g) && std::isnan(o)) || (!std::isnan(g) && g == o);
      if (!same) {
        if (r.nonfinite_mismatches++ == 0) r.first_nonfinite_index = i;
      }
      continue;
    }
    const double err = std::fabs(o - g);
    const bool floor_ok = err <= abs_floor;
    if (floor_ok) ++r.within_floor;
    if (std::fabs(g) < s.small_value) {
      ++r.small_elements;
      if (!floor_ok && err > s.small_value_error) {
        if (r.small_value_errors++ == 0) r.first_small_error_index = i;
      }
      if (err > r.max_small_abs_error) r.max_small_abs_error = err;
      continue;
    }
    ++r.large_elements;
    const double rel = floor_ok ? 0.0 : err / (std::fabs(g) + s.relative_eps);
    sum_rel += rel;
    if (r.mare_index < 0 || rel > r.mare) {
      r.mare = rel;
      r.mare_index = i;
    }
  }
  r.mere = r.large_elements > 0 ? sum_rel / static_cast<double>(r.large_elements) : 0;
  const double mare_bound = s.max_factor * s.threshold;
  const char* name = StandardName(s);
  if (r.nonfinite_mismatches > 0) {
    r.reason = std::to_string(r.nonfinite_mismatches) +
               " element(s) differ in NaN or infinity from the reference, first at index " +
               std::to_string(r.first_nonfinite_index);
  } else if (r.small_value_errors > 0) {
    r.reason = std::to_string(r.small_value_errors) + " small value(s) miss the " + name +
               " absolute bound" +
               Fmt(" %.3g (largest error %.3g), first at index ", s.small_value_error,
                   r.max_small_abs_error) +
               std::to_string(r.first_small_error_index);
  } else if (r.mere >= s.threshold) {
    r.reason = Fmt("mean relative error %.3g is not below the bound %.3g", r.mere, s.threshold) +
               " of the CANN " + name + " standard";
  } else if (r.mare >= mare_bound) {
    r.reason = Fmt("max relative error %.3g is not below the bound %.3g", r.mare, mare_bound) +
               " of the CANN " + name + " standard (at index " + std::to_string(r.mare_index) + ")";
  } else {
    r.pass = true;
    r.reason = std::string("meets the CANN ") + name +
               " standard: " + Fmt("mean relative error %.3g, max %.3g", r.mere, r.mare);
  }
  return r;
}

nlohmann::json PrecisionReport::ToJson() const {
  return nlohmann::json{{"standard", std::string("cann-") +
                                         (dtype_bits == 16 ? (bfloat16 ? "bf16" : "fp16") : "fp32")},
                        {"elements", elements},
                        {"large_elements", large_elements},
                        {"small_elements", small_elements},
                        {"within_floor", within_floor},
                        {"mere", mere},
                        {"mare", mare},
                        {"mare_index", mare_index},
                        {"small_value_errors", small_value_errors},
                        {"max_small_abs_error", max_small_abs_error},
                        {"nonfinite_mismatches", nonfinite_mismatches},
                        {"pass", pass},
                        {"reason", reason}};
}

}  // namespace cannbot::ascendc
