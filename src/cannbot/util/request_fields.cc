#include "cannbot/util/request_fields.h"

#include <algorithm>
#include <cstdio>

namespace cannbot {
namespace {

std::string ShortRequestNumber(double x) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", x);
  return text;
}

}  // namespace

Status RequestFields::OnlyKnown(std::initializer_list<const char*> known) const {
  for (const auto& [key, value] : object_.items()) {
    if (std::none_of(known.begin(), known.end(), [&](const char* k) { return key == k; })) {
      return Status::InvalidArgument("unknown field '" + prefix_ + key + "'");
    }
  }
  return Status::Ok();
}

Status RequestFields::Text(const char* key, std::string* out, bool required, size_t max_bytes) const {
  if (!object_.contains(key)) {
    return required ? Status::InvalidArgument("missing field '" + Name(key) + "'") : Status::Ok();
  }
  const nlohmann::json& v = object_.at(key);
  if (!v.is_string()) return Wrong(key, "a string");
  *out = v.get<std::string>();
  if (required && out->empty()) return Status::InvalidArgument("field '" + Name(key) + "' is empty");
  if (out->size() > max_bytes) {
    return Status::InvalidArgument("field '" + Name(key) + "' is longer than " +
                                   std::to_string(max_bytes) + " bytes");
  }
  return Status::Ok();
}

Status RequestFields::Int(const char* key, std::optional<int>* out, int low, int high) const {
  if (!object_.contains(key)) return Status::Ok();
  const nlohmann::json& v = object_.at(key);
  const std::string range = "an integer from " + std::to_string(low) + " to " + std::to_string(high);
  if (!v.is_number_integer()) return Wrong(key, range);
  const int64_t n = v.get<int64_t>();
  if (n < low || n > high) return Wrong(key, range);
  *out = static_cast<int>(n);
  return Status::Ok();
}

Status RequestFields::Number(const char* key, std::optional<double>* out, double above,
                          double at_most) const {
  if (!object_.contains(key)) return Status::Ok();
  const nlohmann::json& v = object_.at(key);
  const double x = v.is_number() ? v.get<double>() : 0;
  if (!v.is_number() || !(x > above) || x > at_most) {
    return Wrong(key, "a number above " + ShortRequestNumber(above) + " and at most " + ShortRequestNumber(at_most));
  }
  *out = x;
  return Status::Ok();
}

Status RequestFields::Seed(const char* key, std::optional<uint64_t>* out) const {
  if (!object_.contains(key)) return Status::Ok();
  const nlohmann::json& v = object_.at(key);
  if (v.is_number_unsigned()) {
    *out = v.get<uint64_t>();
    return Status::Ok();
  }
  if (v.is_number_integer() && v.get<int64_t>() >= 0) {
    *out = static_cast<uint64_t>(v.get<int64_t>());
    return Status::Ok();
  }
  return Wrong(key, "a non-negative integer");
}

Status RequestFields::Wrong(const char* key, const std::string& what) const {
  return Status::InvalidArgument("field '" + Name(key) + "' must be " + what);
}

}  // namespace cannbot
