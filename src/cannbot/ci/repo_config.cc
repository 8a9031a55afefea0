#include "cannbot/ci/repo_config.h"

#include <algorithm>
#include <initializer_list>
#include <nlohmann/json.hpp>

#include "cannbot/ci/glob.h"
#include "cannbot/config/config.h"
#include "cannbot/ops/op_spec_file.h"
#include "cannbot/ops/registry.h"
#include "cannbot/profile/import.h"
#include "cannbot/target/registry.h"

namespace cannbot::ci {
namespace {

using Json = nlohmann::json;

Status OnlyKeys(const Json& object, std::initializer_list<const char*> keys,
                const std::string& where) {
  for (const auto& [key, value] : object.items()) {
    if (std::none_of(keys.begin(), keys.end(), [&](const char* k) { return key == k; })) {
      return Status::InvalidArgument("unknown setting '" + where + key + "'");
    }
  }
  return Status::Ok();
}

template <typename T>
Status Read(const Json& object, const char* key, T* out, const std::string& where) {
  if (!object.contains(key)) return Status::Ok();
  const Json& value = object.at(key);
  // nlohmann converts numbers to bool and back; a config should say what it means.
  const bool type_ok = std::is_same_v<T, bool>          ? value.is_boolean()
                       : std::is_same_v<T, std::string> ? value.is_string()
                       : std::is_integral_v<T>          ? value.is_number_integer()
                                                        : value.is_number();
  if (!type_ok) return Status::InvalidArgument("setting '" + where + key + "' has the wrong type");
  *out = value.get<T>();
  return Status::Ok();
}

Status ReadRule(const Json& j, const std::string& where, KernelRule* rule) {
  if (!j.is_object()) return Status::InvalidArgument("'" + where + "' is not a table");
  CANNBOT_RETURN_IF_ERROR(
      OnlyKeys(j, {"glob", "op", "target", "profile", "profile_format", "profile_kernel"},
               where + "."));
  CANNBOT_RETURN_IF_ERROR(Read(j, "glob", &rule->glob, where + "."));
  CANNBOT_RETURN_IF_ERROR(Read(j, "op", &rule->op, where + "."));
  CANNBOT_RETURN_IF_ERROR(Read(j, "profile", &rule->profile, where + "."));
  if (j.contains("target")) {
    std::string name;
    CANNBOT_RETURN_IF_ERROR(Read(j, "target", &name, where + "."));
    CANNBOT_ASSIGN_OR_RETURN(rule->target, target::Parse(name, where + ".target"));
  }
  std::string format = "auto";
  CANNBOT_RETURN_IF_ERROR(Read(j, "profile_format", &format, where + "."));
  CANNBOT_RETURN_IF_ERROR(Read(j, "profile_kernel", &rule->profile_kernel, where + "."));
  if (rule->glob.empty()) return Status::InvalidArgument("'" + where + "' has no glob");
  CANNBOT_RETURN_IF_ERROR(CheckGlob(rule->glob).WithContext(where));
  if (rule->op.empty()) return Status::InvalidArgument("'" + where + "' has no op");
  auto parsed = profile::ParseFormat(format);
  if (!parsed.ok()) return parsed.status().WithContext(where + ".profile_format");
  rule->profile_format = *parsed;
  return Status::Ok();
}

Status ReadPackageRule(const Json& j, const std::string& where, PackageRule* rule) {
  if (!j.is_object()) return Status::InvalidArgument("'" + where + "' is not a table");
  CANNBOT_RETURN_IF_ERROR(OnlyKeys(j, {"dir", "op", "operator"}, where + "."));
  CANNBOT_RETURN_IF_ERROR(Read(j, "dir", &rule->dir, where + "."));
  CANNBOT_RETURN_IF_ERROR(Read(j, "op", &rule->op, where + "."));
  CANNBOT_RETURN_IF_ERROR(Read(j, "operator", &rule->operator_name, where + "."));
  while (rule->dir.size() > 1 && rule->dir.back() == '/') rule->dir.pop_back();
  if (rule->dir.empty()) return Status::InvalidArgument("'" + where + "' has no dir");
  CANNBOT_RETURN_IF_ERROR(CheckGlob(rule->dir).WithContext(where));
  if (rule->op.empty()) return Status::InvalidArgument("'" + where + "' has no op");
  return Status::Ok();
}

Status ReadThresholds(const Json& j, Thresholds* t) {
  if (!j.is_object()) return Status::InvalidArgument("'thresholds' is not a table");
  CANNBOT_RETURN_IF_ERROR(OnlyKeys(
      j, {"min_speedup", "time_budget_seconds", "max_variants", "max_kernels"}, "thresholds."));
  CANNBOT_RETURN_IF_ERROR(Read(j, "min_speedup", &t->min_speedup, "thresholds."));
  CANNBOT_RETURN_IF_ERROR(Read(j, "time_budget_seconds", &t->time_budget_seconds, "thresholds."));
  CANNBOT_RETURN_IF_ERROR(Read(j, "max_variants", &t->max_variants, "thresholds."));
  CANNBOT_RETURN_IF_ERROR(Read(j, "max_kernels", &t->max_kernels, "thresholds."));
  if (!(t->min_speedup > 0)) return Status::InvalidArgument("thresholds.min_speedup must be > 0");
  if (!(t->time_budget_seconds > 0)) {
    return Status::InvalidArgument("thresholds.time_budget_seconds must be > 0");
  }
  if (t->max_variants < 1) return Status::InvalidArgument("thresholds.max_variants must be >= 1");
  if (t->max_kernels < 1) return Status::InvalidArgument("thresholds.max_kernels must be >= 1");
  return Status::Ok();
}

Status FromJson(const Json& j, RepoConfig* config) {
  if (!j.is_object()) return Status::InvalidArgument("the configuration is not a table/object");
  CANNBOT_RETURN_IF_ERROR(
      OnlyKeys(j, {"kernels", "packages", "thresholds", "fail_on_broken_kernel", "ops_dir"}, ""));
  CANNBOT_RETURN_IF_ERROR(Read(j, "fail_on_broken_kernel", &config->fail_on_broken_kernel, ""));
  CANNBOT_RETURN_IF_ERROR(Read(j, "ops_dir", &config->ops_dir, ""));
  while (config->ops_dir.size() > 1 && config->ops_dir.back() == '/') config->ops_dir.pop_back();
  if (j.contains("thresholds")) {
    CANNBOT_RETURN_IF_ERROR(ReadThresholds(j["thresholds"], &config->thresholds));
  }
  for (const char* table : {"kernels", "packages"}) {
    if (j.contains(table) && !j[table].is_array()) {
      return Status::InvalidArgument(std::string("'") + table + "' must be an array of tables");
    }
  }
  const Json none = Json::array();
  const Json& kernels = j.contains("kernels") ? j["kernels"] : none;
  const Json& packages = j.contains("packages") ? j["packages"] : none;
  if (kernels.empty() && packages.empty()) {
    return Status::InvalidArgument("no [[kernels]] or [[packages]] entries: nothing maps the "
                                   "repository's files to ops");
  }
  for (size_t i = 0; i < kernels.size(); ++i) {
    KernelRule rule;
    CANNBOT_RETURN_IF_ERROR(ReadRule(kernels[i], "kernels[" + std::to_string(i + 1) + "]", &rule));
    config->kernels.push_back(std::move(rule));
  }
  for (size_t i = 0; i < packages.size(); ++i) {
    PackageRule rule;
    CANNBOT_RETURN_IF_ERROR(
        ReadPackageRule(packages[i], "packages[" + std::to_string(i + 1) + "]", &rule));
    config->packages.push_back(std::move(rule));
  }
  return Status::Ok();
}

Status CheckRuleOps(const RepoConfig& config, const ops::Registry& registry) {
  std::vector<std::pair<std::string, std::string>> rules;  // where, op
  for (size_t i = 0; i < config.kernels.size(); ++i) {
    rules.push_back({"kernels[" + std::to_string(i + 1) + "]", config.kernels[i].op});
  }
  for (size_t i = 0; i < config.packages.size(); ++i) {
    rules.push_back({"packages[" + std::to_string(i + 1) + "]", config.packages[i].op});
  }
  for (const auto& [where, op] : rules) {
    if (registry.Find(op) != nullptr || config.repo_ops.count(op) > 0) continue;
    return Status::InvalidArgument(where + ": unknown op '" + op + "' (see `cannbot ops`" +
                                   (config.ops_dir.empty() ? "" : " and " + config.ops_dir) + ")");
  }
  return Status::Ok();
}

}  // namespace

Result<RepoConfig> ParseRepoConfig(const std::string& text, const std::string& name,
                                   const ops::Registry& registry) {
  CANNBOT_ASSIGN_OR_RETURN(Json json, config::ParseTomlOrJson(text, name));
  RepoConfig config;
  CANNBOT_RETURN_IF_ERROR(FromJson(json, &config).WithContext(name));
  if (!config.ops_dir.empty()) return config;  // LoadRepoOps checks the rules' ops
  CANNBOT_RETURN_IF_ERROR(CheckRuleOps(config, registry).WithContext(name));
  return config;
}

Status LoadRepoOps(const std::vector<std::string>& repo_files,
                   const std::function<Result<std::string>(const std::string&)>& read,
                   const ops::Registry& registry, RepoConfig* config) {
  const std::string prefix = config->ops_dir + "/";
  for (const std::string& file : repo_files) {
    if (file.rfind(prefix, 0) != 0 || file.find('/', prefix.size()) != std::string::npos) continue;
    if (file.size() < 5 || file.compare(file.size() - 5, 5, ".toml") != 0) continue;
    RepoOp op;
    op.path = file;
    CANNBOT_ASSIGN_OR_RETURN(op.spec_text, read(file));
    auto load_reference = [&](const std::string& name) -> Result<std::string> {
      if (name.find("..") != std::string::npos || name.empty() || name[0] == '/') {
        return Status::InvalidArgument("the reference path must stay inside " + config->ops_dir);
      }
      auto text = read(prefix + name);
      if (text.ok()) op.reference_text = *text;
      return text;
    };
    CANNBOT_ASSIGN_OR_RETURN(std::vector<ops::OpSpec> variants,
                             ops::ParseOpSpecVariants(op.spec_text, file, load_reference));
    for (const ops::OpSpec& spec : variants) {  // one per dtype of a spec with `dtypes`
      CANNBOT_RETURN_IF_ERROR(registry.CheckNewOp(spec).WithContext(file));
      if (!config->repo_ops.emplace(spec.name, op).second) {
        return Status::InvalidArgument(file + ": op '" + spec.name + "' is defined twice in " +
                                       config->ops_dir);
      }
    }
  }
  if (config->repo_ops.empty()) {
    return Status::InvalidArgument("ops_dir '" + config->ops_dir + "' holds no *.toml op spec");
  }
  return CheckRuleOps(*config, registry);
}

std::string ExpandProfilePath(const std::string& profile, const std::string& kernel_path) {
  const size_t slash = kernel_path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : kernel_path.substr(0, slash);
  const std::string name = slash == std::string::npos ? kernel_path : kernel_path.substr(slash + 1);
  const size_t dot = name.rfind('.');
  const std::string stem = dot == std::string::npos || dot == 0 ? name : name.substr(0, dot);
  std::string out;
  for (size_t i = 0; i < profile.size();) {
    auto take = [&](const char* key, const std::string& value) {
      const std::string k = key;
      if (profile.compare(i, k.size(), k) != 0) return false;
      out += value;
      i += k.size();
      return true;
    };
    if (take("{dir}", dir) || take("{name}", name) || take("{stem}", stem)) continue;
    out += profile[i++];
  }
  // "{dir}/x" for a root-level kernel is "./x": keep paths canonical for `git cat-file`.
  if (out.rfind("./", 0) == 0) out.erase(0, 2);
  return out;
}

}  // namespace cannbot::ci
