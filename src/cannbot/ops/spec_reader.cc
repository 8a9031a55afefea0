#include "cannbot/ops/spec_reader.h"

namespace cannbot::ops::spec_file {

std::string SpecReader::Field(const std::string& where, const std::string& key) {
  return where.empty() ? key : where + "." + key;
}

void SpecReader::Fail(const toml::node* node, const std::string& field, const std::string& what) {
  if (!status_.ok()) return;
  std::string location = path_;
  if (node != nullptr && node->source().begin.line > 0) {
    location += ":" + std::to_string(node->source().begin.line);
  }
  status_ = Status::InvalidArgument(location + ": field '" + field + "': " + what);
}

void SpecReader::OnlyKeys(const toml::table& table, const std::string& where,
                          const std::set<std::string>& allowed) {
  for (const auto& [key, node] : table) {
    const std::string name(key.str());
    if (allowed.count(name) > 0) continue;
    std::string list;
    for (const std::string& a : allowed) list += (list.empty() ? "" : ", ") + a;
    Fail(&node, Field(where, name), "unknown key (allowed here: " + list + ")");
    return;
  }
}

std::optional<std::string> SpecReader::String(const toml::table& table, const std::string& where,
                                              const char* key, bool required) {
  const toml::node* node = table.get(key);
  if (node == nullptr) {
    if (required) Fail(&table, Field(where, key), "missing (a string)");
    return std::nullopt;
  }
  if (auto value = node->value<std::string>(); value && node->is_string()) return *value;
  Fail(node, Field(where, key), "must be a string");
  return std::nullopt;
}

std::optional<double> SpecReader::Number(const toml::table& table, const std::string& where,
                                         const char* key, bool required) {
  const toml::node* node = table.get(key);
  if (node == nullptr) {
    if (required) Fail(&table, Field(where, key), "missing (a number)");
    return std::nullopt;
  }
  if (node->is_integer()) return static_cast<double>(*node->value<int64_t>());
  if (node->is_floating_point()) return *node->value<double>();
  Fail(node, Field(where, key), "must be a number");
  return std::nullopt;
}

std::optional<int64_t> SpecReader::Integer(const toml::table& table, const std::string& where,
                                           const char* key, bool required) {
  const toml::node* node = table.get(key);
  if (node == nullptr) {
    if (required) Fail(&table, Field(where, key), "missing (an integer)");
    return std::nullopt;
  }
  if (node->is_integer()) return *node->value<int64_t>();
  Fail(node, Field(where, key), "must be an integer");
  return std::nullopt;
}

std::optional<bool> SpecReader::Bool(const toml::table& table, const std::string& where,
                                     const char* key) {
  const toml::node* node = table.get(key);
  if (node == nullptr) return std::nullopt;
  if (node->is_boolean()) return *node->value<bool>();
  Fail(node, Field(where, key), "must be true or false");
  return std::nullopt;
}

const toml::table* SpecReader::Table(const toml::table& table, const std::string& where,
                                     const char* key, bool required) {
  const toml::node* node = table.get(key);
  if (node == nullptr) {
    if (required) Fail(&table, Field(where, key), "missing (a table)");
    return nullptr;
  }
  if (const toml::table* t = node->as_table()) return t;
  Fail(node, Field(where, key), "must be a table");
  return nullptr;
}

std::vector<const toml::table*> SpecReader::Tables(const toml::table& table, const char* key,
                                                   bool required) {
  std::vector<const toml::table*> out;
  const toml::node* node = table.get(key);
  if (node == nullptr) {
    if (required) Fail(&table, key, "missing (one [[" + std::string(key) + "]] table each)");
    return out;
  }
  const toml::array* array = node->as_array();
  if (array == nullptr) {
    Fail(node, key, "must be an array of tables ([[" + std::string(key) + "]])");
    return out;
  }
  for (size_t i = 0; i < array->size(); ++i) {
    const toml::table* t = array->get(i)->as_table();
    if (t == nullptr) {
      Fail(array->get(i), std::string(key) + "[" + std::to_string(i) + "]", "must be a table");
      return {};
    }
    out.push_back(t);
  }
  return out;
}

}  // namespace cannbot::ops::spec_file
