// RequestFields: strict, typed reads of one JSON object's fields for the parsers of what
// users send (job specs, the daemon's request bodies; cannbot's own documents are read with
// JsonFields, json_fields.h). A missing required field, a field of the wrong type, an unknown field (a typo is
// not silently ignored) or a value out of range is InvalidArgument naming the field with its
// full path ("options.samples") and what was expected.
//
// Ownership: borrows the object, which must outlive the reader. Thread-safety: const methods
// over a borrowed value.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "cannbot/util/status.h"

namespace cannbot {

class RequestFields {
 public:
  // `prefix` is put before every key in messages: "" at the top, "options." inside.
  RequestFields(const nlohmann::json& object, std::string prefix)
      : object_(object), prefix_(std::move(prefix)) {}

  bool Has(const char* key) const { return object_.contains(key); }
  std::string Name(const char* key) const { return prefix_ + key; }

  Status OnlyKnown(std::initializer_list<const char*> known) const;
  // A string of at most `max_bytes`; absent leaves `out` as it is unless `required`.
  Status Text(const char* key, std::string* out, bool required, size_t max_bytes) const;
  // An integer in [low, high]; absent leaves `out` empty.
  Status Int(const char* key, std::optional<int>* out, int low, int high) const;
  // A number in (above, at_most]; absent leaves `out` empty.
  Status Number(const char* key, std::optional<double>* out, double above, double at_most) const;
  // A non-negative integer that fits 64 bits; absent leaves `out` empty.
  Status Seed(const char* key, std::optional<uint64_t>* out) const;
  // "field 'K' must be WHAT".
  Status Wrong(const char* key, const std::string& what) const;

 private:
  const nlohmann::json& object_;
  std::string prefix_;
};

}  // namespace cannbot
