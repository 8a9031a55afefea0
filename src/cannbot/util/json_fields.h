// JsonFields: typed reads of one JSON object's fields, for the FromJson functions that turn
// cannbot's own JSON documents (verdicts, diagnoses, reports) back into values.
//
// Every error is an InvalidArgument that names the field by its full path and says what was
// expected ("report.attempts[2].verdict.perf.speedup: expected a number"). The first error
// sticks and later reads do nothing, so a parser reads all its fields and checks status()
// once. A missing key is an error ("report.op: missing"); unknown keys are ignored. A JSON
// null where a number is expected reads as NaN: JSON has no infinities or NaNs, and
// nlohmann::json writes them as null.
//
// Thread-safety: one reader per thread; it borrows the JSON, which must outlive it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "cannbot/util/status.h"

namespace cannbot {

class JsonFields {
 public:
  // `path` names `object` in errors ("report", "report.attempts[2]"). When `object` is not a
  // JSON object, status() is already "<path>: expected an object".
  JsonFields(const nlohmann::json& object, std::string path);

  // Scalars and lists of strings.
  template <typename T>
  void Read(const char* key, T* out) {
    if (const nlohmann::json* v = Find(key)) Take(*v, PathOf(key), out);
  }
  // A null reads as nullopt.
  template <typename T>
  void Read(const char* key, std::optional<T>* out) {
    const nlohmann::json* v = Find(key);
    if (v == nullptr) return;
    T value{};
    if (v->is_null()) {
      out->reset();
    } else if (Take(*v, PathOf(key), &value)) {
      *out = std::move(value);
    }
  }
  // An absent key leaves *out as it is.
  template <typename T>
  void ReadIfPresent(const char* key, T* out) {
    if (ok() && object_.contains(key)) Read(key, out);
  }

  // Nested values: `parse(json, path)` returns a Result<T> (its errors name `path`).
  template <typename T, typename Parse>
  void Object(const char* key, T* out, Parse parse) {
    if (const nlohmann::json* v = Find(key)) Keep(parse(*v, PathOf(key)), out);
  }
  // A null reads as nullopt.
  template <typename T, typename Parse>
  void Object(const char* key, std::optional<T>* out, Parse parse) {
    const nlohmann::json* v = Find(key);
    if (v == nullptr) return;
    if (v->is_null()) {
      out->reset();
      return;
    }
    T value{};
    if (Keep(parse(*v, PathOf(key)), &value)) *out = std::move(value);
  }
  template <typename T, typename Parse>
  void Array(const char* key, std::vector<T>* out, Parse parse) {
    const nlohmann::json* v = Find(key);
    if (v == nullptr) return;
    if (!v->is_array()) return Fail(key, "expected an array");
    out->clear();
    for (size_t i = 0; i < v->size(); ++i) {
      T item{};
      if (!Keep(parse((*v)[i], ItemPath(PathOf(key), i)), &item)) return;
      out->push_back(std::move(item));
    }
  }

  // The value at `key`; nullptr when it is missing (recorded) or an earlier read failed.
  const nlohmann::json* Find(const char* key);
  // Records "<path>.<key>: <what>" unless an error is recorded already.
  void Fail(const char* key, const std::string& what);
  // Records `status` (a nested reader's) unless an error is recorded already; says status.ok().
  bool Absorb(const Status& status);
  std::string PathOf(const char* key) const { return path_ + "." + key; }
  static std::string ItemPath(const std::string& list_path, size_t index);

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }

 private:
  // Converts `v` into *out; on a type mismatch records "<path>: expected ..." and says false.
  bool Take(const nlohmann::json& v, const std::string& path, std::string* out);
  bool Take(const nlohmann::json& v, const std::string& path, bool* out);
  bool Take(const nlohmann::json& v, const std::string& path, int* out);
  bool Take(const nlohmann::json& v, const std::string& path, int64_t* out);
  bool Take(const nlohmann::json& v, const std::string& path, uint64_t* out);
  bool Take(const nlohmann::json& v, const std::string& path, double* out);
  bool Take(const nlohmann::json& v, const std::string& path, std::vector<std::string>* out);
  bool Expected(const std::string& path, const char* what);

  template <typename T>
  bool Keep(Result<T> result, T* out) {
    if (!Absorb(result.status())) return false;
    *out = std::move(result).value();
    return true;
  }

  const nlohmann::json& object_;
  std::string path_;
  Status status_;
};

}  // namespace cannbot
