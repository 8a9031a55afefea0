#include "cannbot/util/json_fields.h"

#include <limits>

namespace cannbot {

JsonFields::JsonFields(const nlohmann::json& object, std::string path)
    : object_(object), path_(std::move(path)) {
  if (!object_.is_object()) status_ = Status::InvalidArgument(path_ + ": expected an object");
}

const nlohmann::json* JsonFields::Find(const char* key) {
  if (!ok()) return nullptr;
  auto it = object_.find(key);
  if (it == object_.end()) {
    Fail(key, "missing");
    return nullptr;
  }
  return &*it;
}

void JsonFields::Fail(const char* key, const std::string& what) {
  if (ok()) status_ = Status::InvalidArgument(PathOf(key) + ": " + what);
}

bool JsonFields::Absorb(const Status& status) {
  if (ok() && !status.ok()) status_ = status;
  return status.ok();
}

std::string JsonFields::ItemPath(const std::string& list_path, size_t index) {
  return list_path + "[" + std::to_string(index) + "]";
}

bool JsonFields::Expected(const std::string& path, const char* what) {
  if (ok()) status_ = Status::InvalidArgument(path + ": expected " + what);
  return false;
}

bool JsonFields::Take(const nlohmann::json& v, const std::string& path, std::string* out) {
  if (!v.is_string()) return Expected(path, "a string");
  *out = v.get<std::string>();
  return true;
}

bool JsonFields::Take(const nlohmann::json& v, const std::string& path, bool* out) {
  if (!v.is_boolean()) return Expected(path, "true or false");
  *out = v.get<bool>();
  return true;
}

bool JsonFields::Take(const nlohmann::json& v, const std::string& path, int* out) {
  int64_t wide = 0;
  const bool fits = v.is_number_integer() && Take(v, path, &wide) &&
                    wide >= std::numeric_limits<int>::min() &&
                    wide <= std::numeric_limits<int>::max();
  if (!fits) return Expected(path, "an integer");
  *out = static_cast<int>(wide);
  return true;
}

bool JsonFields::Take(const nlohmann::json& v, const std::string& path, int64_t* out) {
  constexpr auto kMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  const bool fits =
      v.is_number_integer() && (!v.is_number_unsigned() || v.get<uint64_t>() <= kMax);
  if (!fits) return Expected(path, "an integer");
  *out = v.get<int64_t>();
  return true;
}

bool JsonFields::Take(const nlohmann::json& v, const std::string& path, uint64_t* out) {
  const bool fits = v.is_number_unsigned() || (v.is_number_integer() && v.get<int64_t>() >= 0);
  if (!fits) return Expected(path, "a non-negative integer");
  *out = v.get<uint64_t>();
  return true;
}

bool JsonFields::Take(const nlohmann::json& v, const std::string& path, double* out) {
  if (v.is_null()) {
    *out = std::numeric_limits<double>::quiet_NaN();
    return true;
  }
  if (!v.is_number()) return Expected(path, "a number");
  *out = v.get<double>();
  return true;
}

bool JsonFields::Take(const nlohmann::json& v, const std::string& path,
                      std::vector<std::string>* out) {
  if (!v.is_array()) return Expected(path, "an array of strings");
  out->clear();
  for (size_t i = 0; i < v.size(); ++i) {
    std::string item;
    if (!Take(v[i], ItemPath(path, i), &item)) return false;
    out->push_back(std::move(item));
  }
  return true;
}

}  // namespace cannbot
