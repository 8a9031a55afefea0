#include "cannbot/engine/job_spec.h"

#include <algorithm>

#include "cannbot/ops/op_spec_file.h"
#include "cannbot/target/registry.h"
#include "cannbot/util/request_fields.h"

namespace cannbot::engine {
namespace {

using Json = nlohmann::json;

const char kLlmShape[] = "field 'options.llm' must be \"offline\" or an object {url, model}";

Json LlmJson(const LlmChoice& llm) {
  if (llm.offline) return "offline";
  Json out = Json::object();
  if (!llm.url.empty()) out["url"] = llm.url;
  if (!llm.model.empty()) out["model"] = llm.model;
  return out;
}

Result<LlmChoice> ParseLlm(const Json& v) {
  LlmChoice choice;
  if (v.is_string()) {
    if (v.get<std::string>() != "offline") return Status::InvalidArgument(kLlmShape);
    choice.offline = true;
    return choice;
  }
  if (!v.is_object()) return Status::InvalidArgument(kLlmShape);
  RequestFields f(v, "options.llm.");
  CANNBOT_RETURN_IF_ERROR(f.OnlyKnown({"url", "model"}));
  CANNBOT_RETURN_IF_ERROR(f.Text("url", &choice.url, false, 2048));
  CANNBOT_RETURN_IF_ERROR(f.Text("model", &choice.model, false, 256));
  return choice;
}

Json OptionsJson(const JobOptions& options) {
  Json out = Json::object();
  if (options.samples) out["samples"] = *options.samples;
  if (options.rounds) out["rounds"] = *options.rounds;
  if (options.budget) out["budget"] = *options.budget;
  if (options.min_speedup) out["min_speedup"] = *options.min_speedup;
  if (options.time_budget_seconds) out["time_budget_seconds"] = *options.time_budget_seconds;
  if (options.seed) out["seed"] = *options.seed;
  if (options.good_enough_roofline) out["good_enough_roofline"] = *options.good_enough_roofline;
  if (options.llm) out["llm"] = LlmJson(*options.llm);
  if (options.priority) out["priority"] = *options.priority;
  return out;
}

Result<JobOptions> ParseOptions(const Json& v) {
  if (!v.is_object()) return Status::InvalidArgument("field 'options' must be an object");
  JobOptions options;
  RequestFields f(v, "options.");
  CANNBOT_RETURN_IF_ERROR(f.OnlyKnown({"samples", "rounds", "budget", "min_speedup",
                                       "time_budget_seconds", "seed", "good_enough_roofline",
                                       "llm", "priority"}));
  CANNBOT_RETURN_IF_ERROR(f.Int("samples", &options.samples, 1, 16));
  CANNBOT_RETURN_IF_ERROR(f.Int("rounds", &options.rounds, 0, 20));
  CANNBOT_RETURN_IF_ERROR(f.Int("budget", &options.budget, 1, 256));
  CANNBOT_RETURN_IF_ERROR(f.Number("min_speedup", &options.min_speedup, 0, 100));
  CANNBOT_RETURN_IF_ERROR(f.Number("time_budget_seconds", &options.time_budget_seconds, 0, 86400));
  CANNBOT_RETURN_IF_ERROR(f.Seed("seed", &options.seed));
  CANNBOT_RETURN_IF_ERROR(f.Number("good_enough_roofline", &options.good_enough_roofline, 0, 2));
  CANNBOT_RETURN_IF_ERROR(f.Int("priority", &options.priority, -100, 100));
  if (v.contains("llm")) {
    CANNBOT_ASSIGN_OR_RETURN(options.llm, ParseLlm(v.at("llm")));
  }
  return options;
}

// The name labels reports and diffs; a repository path is kept so diffs name the real file,
// but nothing absolute, nothing that climbs, nothing unprintable.
Status CheckName(const std::string& name) {
  const Status refused = Status::InvalidArgument(
      "field 'name' must be a plain file name or a relative path without '..'");
  if (name.front() == '/') return refused;
  for (char c : name) {
    if (static_cast<unsigned char>(c) < 0x20 || c == '\\') return refused;
  }
  for (size_t begin = 0; begin <= name.size();) {  // each path component
    const size_t end = std::min(name.find('/', begin), name.size());
    if (name.compare(begin, end - begin, "..") == 0) return refused;
    begin = end + 1;
  }
  return Status::Ok();
}

}  // namespace

Result<std::optional<ascendc::PackageFiles>> PackageField(const Json& body, const char* key,
                                                          std::string* operator_name,
                                                          std::vector<std::string>* defines) {
  const auto it = body.find(key);
  if (it == body.end() || it->is_null()) return std::optional<ascendc::PackageFiles>();
  const std::string field = std::string("field '") + key + "'";
  const bool named = operator_name != nullptr && it->is_object() && it->contains("operator");
  const bool defined = defines != nullptr && it->is_object() && it->contains("defines");
  if (!it->is_object() || it->size() != 1u + named + defined || !it->contains("files") ||
      !(*it)["files"].is_object()) {
    return Status::InvalidArgument(
        field + " must be {\"files\": {path: source text, ...}" +
        (operator_name != nullptr ? ", \"operator\": \"OpType\" (optional)" : "") +
        (defines != nullptr ? ", \"defines\": [\"NAME=VALUE\", ...] (optional)" : "") + "}");
  }
  if (defined) {
    const Json& given = (*it)["defines"];
    std::vector<std::string> texts;
    const bool strings = given.is_array() &&
                         std::all_of(given.begin(), given.end(),
                                     [](const Json& d) { return d.is_string(); });
    if (!strings) {
      return Status::InvalidArgument(field + ": \"defines\" must be an array of \"NAME\" or "
                                     "\"NAME=VALUE\" strings");
    }
    for (const Json& d : given) texts.push_back(d.get<std::string>().substr(0, 200));
    auto parsed = ascendc::ParseSampleDefines(texts);
    if (!parsed.ok()) return Status::InvalidArgument(field + ": " + parsed.status().message());
    *defines = std::move(parsed).value();
  }
  if (named) {
    const Json& op = (*it)["operator"];
    if (!op.is_string() || op.get_ref<const std::string&>().size() > 128) {
      return Status::InvalidArgument(field + ": \"operator\" must be an OpDef type or kernel "
                                     "entry name (a string of at most 128 characters)");
    }
    *operator_name = op.get<std::string>();
  }
  ascendc::PackageFiles files;
  size_t total = 0;
  for (const auto& [path, text] : (*it)["files"].items()) {
    if (!text.is_string()) {
      return Status::InvalidArgument(field + ": the file \"" + path + "\" is not a string");
    }
    total += text.get_ref<const std::string&>().size();
    if (total > 4 * kMaxSourceBytes) {
      return Status::InvalidArgument(field + ": the files are larger than " +
                                     std::to_string(4 * kMaxSourceBytes) + " bytes together");
    }
    files.push_back({path, text.get<std::string>()});
  }
  return std::optional<ascendc::PackageFiles>(std::move(files));
}

Json PackageJson(const ascendc::PackageFiles& files, const std::string& operator_name,
                 const std::vector<std::string>& defines) {
  Json out = Json::object();
  for (const auto& [path, text] : files) out[path] = text;
  Json package = {{"files", out}};
  if (!operator_name.empty()) package["operator"] = operator_name;
  if (!defines.empty()) package["defines"] = defines;
  return package;
}

std::optional<LlmChoice> LlmChoiceFromFlags(const std::string& llm, const std::string& model) {
  if (llm.empty() && model.empty()) return std::nullopt;
  LlmChoice choice;
  if (llm == "offline") {
    choice.offline = true;
  } else {
    choice.url = llm;
    choice.model = model;
  }
  return choice;
}

Json JobSpec::ToJson() const {
  Json out = {{"op", op},
              {"source", source},
              {"name", name},
              {"target", std::string(target::OrDefault(target).name())},
              {"options", OptionsJson(options)}};
  if (!profile.empty()) {
    out["profile"] = profile;
    out["profile_format"] = profile::FormatName(profile_format);
    if (!profile_name.empty()) out["profile_name"] = profile_name;
  }
  if (!profile_kernel.empty()) out["profile_kernel"] = profile_kernel;
  if (!op_spec.empty()) out["op_spec"] = op_spec;
  if (!op_reference.empty()) out["op_reference"] = op_reference;
  if (package) {
    out[package_is_sample ? "sample" : "package"] =
        PackageJson(*package, package_operator, sample_defines);
  }
  return out;
}

Result<JobSpec> JobSpec::FromJson(const Json& body) {
  if (!body.is_object()) return Status::InvalidArgument("a job must be a JSON object");
  JobSpec spec;
  RequestFields f(body, "");
  CANNBOT_RETURN_IF_ERROR(f.OnlyKnown({"op", "source", "name", "profile", "profile_format",
                                       "profile_name", "profile_kernel", "target", "options",
                                       "op_spec", "op_reference", "package", "sample"}));
  CANNBOT_RETURN_IF_ERROR(f.Text("op_spec", &spec.op_spec, false, kMaxSourceBytes));
  CANNBOT_RETURN_IF_ERROR(f.Text("op_reference", &spec.op_reference, false, kMaxSourceBytes));
  CANNBOT_RETURN_IF_ERROR(f.Text("op", &spec.op, spec.op_spec.empty(), 128));
  if (!spec.op_spec.empty()) {  // checked here, so a bad spec is refused before the job queues
    auto inline_op = ops::ParseInlineOpSpec(spec.op_spec, spec.op_reference, {}, spec.op);
    if (!inline_op.ok()) {
      return Status::InvalidArgument("field 'op_spec': " + inline_op.status().message());
    }
    spec.op = inline_op->name;
  } else if (!spec.op_reference.empty()) {
    return Status::InvalidArgument("field 'op_reference' is only meaningful with 'op_spec'");
  }
  CANNBOT_ASSIGN_OR_RETURN(spec.package,
                           PackageField(body, "package", &spec.package_operator, nullptr));
  CANNBOT_ASSIGN_OR_RETURN(std::optional<ascendc::PackageFiles> sample,
                           PackageField(body, "sample", nullptr, &spec.sample_defines));
  if (spec.package && sample) {
    return Status::InvalidArgument("give either 'package' (an Ascend C operator package) or "
                                   "'sample' (a kernel-launch sample), not both");
  }
  if (sample) {
    spec.package = std::move(sample);
    spec.package_is_sample = true;
  }
  const char* files_label = spec.package_is_sample ? "sample" : "package";
  CANNBOT_RETURN_IF_ERROR(f.Text("source", &spec.source, !spec.package, kMaxSourceBytes));
  if (spec.package && !spec.source.empty()) {
    return Status::InvalidArgument(std::string("give either 'source' (a kernel) or '") +
                                   files_label + "' (Ascend C files), not both");
  }
  if (spec.package) spec.name = files_label;  // the default label
  CANNBOT_RETURN_IF_ERROR(f.Text("name", &spec.name, false, 200));
  if (spec.name.empty()) spec.name = spec.package ? files_label : "kernel.cpp";
  CANNBOT_RETURN_IF_ERROR(CheckName(spec.name));
  if (body.contains("profile")) {  // present: it must hold something
    CANNBOT_RETURN_IF_ERROR(f.Text("profile", &spec.profile, true, size_t{1} << 30));
  }
  std::string format = "auto";
  CANNBOT_RETURN_IF_ERROR(f.Text("profile_format", &format, false, 32));
  auto parsed_format = profile::ParseFormat(format);
  if (!parsed_format.ok()) {
    return Status::InvalidArgument("field 'profile_format': " + parsed_format.status().message());
  }
  spec.profile_format = *parsed_format;
  CANNBOT_RETURN_IF_ERROR(f.Text("profile_name", &spec.profile_name, false, 1024));
  CANNBOT_RETURN_IF_ERROR(f.Text("profile_kernel", &spec.profile_kernel, false, 1024));
  // A package is Ascend C whether or not the request says so.
  std::string target_name(spec.package ? "ascendc" : target::Default().name());
  CANNBOT_RETURN_IF_ERROR(f.Text("target", &target_name, false, 32));
  CANNBOT_ASSIGN_OR_RETURN(spec.target, target::Parse(target_name, "target"));
  if (spec.package && target_name != "ascendc") {
    return Status::InvalidArgument(std::string("field '") + files_label +
                                   "' holds Ascend C files: 'target' must be \"ascendc\", not \"" +
                                   target_name + "\"");
  }
  if (body.contains("options")) {
    CANNBOT_ASSIGN_OR_RETURN(spec.options, ParseOptions(body.at("options")));
  }
  return spec;
}

}  // namespace cannbot::engine
