#include "cannbot/ascendc/launch_dtype.h"

#include <cmath>
#include <limits>

#include "cannbot/ascendc/precision.h"

namespace cannbot::ascendc {
namespace {

struct Row {
  const char* name;
  const char* ge;
  uint32_t bits;
  bool integer;
  double lowest, highest;  // integers: the range a value saturates to
};

constexpr double kI64 = 9223372036854775807.0;
constexpr Row kRows[] = {
    {"float32", "DT_FLOAT", 32, false, 0, 0},
    {"float16", "DT_FLOAT16", 16, false, 0, 0},
    {"bfloat16", "DT_BF16", 16, false, 0, 0},
    {"int8", "DT_INT8", 8, true, -128, 127},
    {"uint8", "DT_UINT8", 8, true, 0, 255},
    {"int16", "DT_INT16", 16, true, -32768, 32767},
    {"uint16", "DT_UINT16", 16, true, 0, 65535},
    {"int32", "DT_INT32", 32, true, -2147483648.0, 2147483647.0},
    {"uint32", "DT_UINT32", 32, true, 0, 4294967295.0},
    {"int64", "DT_INT64", 64, true, -kI64 - 1, kI64},
    {"uint64", "DT_UINT64", 64, true, 0, 2 * kI64 + 1},
    {"bool", "DT_BOOL", 8, true, 0, 1},
};

const Row* Find(const std::string& dtype) {
  for (const Row& r : kRows) {
    if (dtype == r.name) return &r;
  }
  return nullptr;
}

}  // namespace

bool IsLaunchable(const std::string& dtype) { return Find(dtype) != nullptr; }

std::string GeDataTypeName(const std::string& dtype) {
  const Row* r = Find(dtype);
  return r == nullptr ? "" : r->ge;
}

bool IsIntegerDtype(const std::string& dtype) {
  const Row* r = Find(dtype);
  return r != nullptr && r->integer;
}

uint32_t DtypeBits(const std::string& dtype) {
  const Row* r = Find(dtype);
  return r == nullptr ? 0 : r->bits;
}

LaunchedValue::LaunchedValue(const std::string& dtype) {
  const Row* r = Find(dtype);
  if (r == nullptr) return;
  const std::string name = r->name;
  if (name == "float16") kind_ = Kind::kHalf;
  if (name == "bfloat16") kind_ = Kind::kBfloat16;
  if (name == "bool") kind_ = Kind::kBool;
  if (kind_ != Kind::kAsIs || !r->integer) return;
  kind_ = Kind::kInteger;
  lowest_ = r->lowest;
  // The top is the largest float not above the type's maximum, as the launch saturates.
  const int digits = static_cast<int>(r->bits) - (r->lowest < 0 ? 1 : 0);
  top_ = digits <= 24 ? static_cast<float>(r->highest)
                      : std::nextafter(std::ldexp(1.0f, digits), 0.0f);
}

float LaunchedValue::operator()(float value) const {
  switch (kind_) {
    case Kind::kAsIs: return value;
    case Kind::kHalf: return QuantizeToHalf(value);
    case Kind::kBfloat16: return QuantizeToBf16(value);
    case Kind::kBool: return value != 0.0f ? 1.0f : 0.0f;
    case Kind::kInteger: break;
  }
  if (std::isnan(value)) return 0.0f;
  const double v = std::nearbyint(static_cast<double>(value));
  return v < lowest_ ? static_cast<float>(lowest_)
                     : v > static_cast<double>(top_) ? top_ : static_cast<float>(v);
}

float AsLaunched(const std::string& dtype, float value) { return LaunchedValue(dtype)(value); }

namespace {

// AsIntegerResult for the integer type `r` (not bool).
float WrappedToWidth(const Row& r, float value) {
  if (std::isnan(value) || std::isinf(value)) return 0.0f;
  // Powers of two and integral floats: every step below is exact in double.
  const double span = std::ldexp(1.0, static_cast<int>(r.bits));  // 2^bits
  double v = std::fmod(std::nearbyint(static_cast<double>(value)), span);  // (-span, span)
  if (r.lowest < 0) {
    if (v >= span / 2) v -= span;
    if (v < -span / 2) v += span;
  } else if (v < 0) {
    v += span;
  }
  return static_cast<float>(v);
}

}  // namespace

float AsIntegerResult(const std::string& dtype, float value) {
  std::vector<float> one{value};
  AsIntegerResults(dtype, &one);
  return one[0];
}

void AsIntegerResults(const std::string& dtype, std::vector<float>* values) {
  const Row* r = Find(dtype);
  if (r == nullptr || !r->integer) {
    const LaunchedValue launched(dtype);
    for (float& v : *values) v = launched(v);
  } else if (dtype == "bool") {
    for (float& v : *values) v = v != 0.0f ? 1.0f : 0.0f;
  } else {
    for (float& v : *values) v = WrappedToWidth(*r, v);
  }
}

std::string FirstUnlaunchable(const std::vector<std::string>& dtypes) {
  for (const std::string& d : dtypes) {
    if (!IsLaunchable(d)) return d;
  }
  return "";
}

}  // namespace cannbot::ascendc
