// SpecReader: typed, located reads from one TOML op spec (op_spec_file.h), shared by the
// parts of the spec parser. Every error it makes names the file, the line of the offending
// node and the field's path ("params[2].dtype"); the first error wins and later reads are
// no-ops, so a parser can read a whole table and check the status once.
//
// Internal to the ops module. Thread-safety: one reader per parse.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "cannbot/util/status.h"

namespace cannbot::ops::spec_file {

class SpecReader {
 public:
  explicit SpecReader(std::string path) : path_(std::move(path)) {}

  // Fails on any key of `table` not in `allowed`, naming it and listing the allowed ones.
  void OnlyKeys(const toml::table& table, const std::string& where,
                const std::set<std::string>& allowed);

  std::optional<std::string> String(const toml::table& table, const std::string& where,
                                    const char* key, bool required);
  std::optional<double> Number(const toml::table& table, const std::string& where,
                               const char* key, bool required);
  std::optional<int64_t> Integer(const toml::table& table, const std::string& where,
                                 const char* key, bool required);
  std::optional<bool> Bool(const toml::table& table, const std::string& where, const char* key);
  const toml::table* Table(const toml::table& table, const std::string& where, const char* key,
                           bool required);
  // An array of tables ([[params]]); empty when absent and not required.
  std::vector<const toml::table*> Tables(const toml::table& table, const char* key,
                                         bool required);

  // Records an error at `node`'s line (or the file when null) for `field`.
  void Fail(const toml::node* node, const std::string& field, const std::string& what);
  // "FIELD" joined onto "WHERE" ("params[1]" + "dtype" -> "params[1].dtype").
  static std::string Field(const std::string& where, const std::string& key);

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  Status status_;
};

}  // namespace cannbot::ops::spec_file
