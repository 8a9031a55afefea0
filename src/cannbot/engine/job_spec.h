// JobSpec: one optimisation as a plain value: which op, the kernel, its profile, the target,
// the provider and the limits. The CLI, the daemon and the CI bot all build one and hand it to
// Engine::Run; a remote run sends the same value as JSON (the POST /optimize body, a
// *contract*: docs/api.md), so local and remote runs are the same code.
//
// ToJson and FromJson round-trip exactly: FromJson(s.ToJson()) == s. FromJson is the one edge
// where a request's fields are checked: an unknown field, a wrong type, a value out of range,
// an unknown target or profile format is InvalidArgument naming the field and what it allows.
// Whether the op exists is the Engine's question (its registry decides).
//
// To add an option: a member here, its line in ToJson/FromJson (job_spec.cc), and the code
// that uses it (engine.cc).
//
// Thread-safety: a plain value.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cannbot/ascendc/package.h"
#include "cannbot/ascendc/sample.h"
#include "cannbot/profile/import.h"
#include "cannbot/target/target.h"
#include "cannbot/util/status.h"

namespace cannbot::engine {

// Kernel sources larger than this are refused (the compiler would refuse them too).
inline constexpr size_t kMaxSourceBytes = 1u << 20;

// Which provider a job uses. Absent from the options: the runner's default.
struct LlmChoice {
  bool offline = false;  // the offline recipes, even when an LLM is configured
  std::string url;       // "" = the configured [llm] url
  std::string model;     // "" = the configured [llm] model

  bool operator==(const LlmChoice&) const = default;
};

// The provider a command line names: none when both are empty (the runner's default),
// the offline recipes for "offline", else {url, model} with whichever is set.
std::optional<LlmChoice> LlmChoiceFromFlags(const std::string& llm, const std::string& model);

struct JobOptions {
  std::optional<int> samples;                 // candidates per round (1..16)
  std::optional<int> rounds;                  // repair rounds after the first (0..20)
  std::optional<int> budget;                  // offline: most recipe variants tried (1..256)
  std::optional<double> min_speedup;          // lower 95% bound the speedup must clear
  std::optional<double> time_budget_seconds;  // no new validation starts after this long
  std::optional<uint64_t> seed;               // the validator's random inputs
  std::optional<double> good_enough_roofline; // stop once a kernel reaches this roofline share
  std::optional<LlmChoice> llm;
  // Queue order (-100..100, default 0): higher runs first, e.g. a CI run on a pull request
  // before a batch re-tune. Among equals, the submitter with fewest running jobs goes first.
  std::optional<int> priority;

  bool operator==(const JobOptions&) const = default;
};

struct JobSpec {
  std::string op;                     // a name in the engine's op registry, or op_spec's name
  // An op sent with the job (docs/op-spec.md): the spec file's TOML text and, when it names
  // a reference file, that file's text. "" = `op` names an op the engine knows.
  std::string op_spec;
  std::string op_reference;
  std::string source;                 // the kernel to optimise ("" with `package`)
  // An Ascend C operator package instead of `source` (target ascendc, an LLM): its files by
  // path under op_host/ and op_kernel/ (docs/ascendc.md, "Operator packages").
  std::optional<ascendc::PackageFiles> package;
  // `package` holds a kernel-launch sample's files instead (a kernel file and the host
  // program that launches it; docs/ascendc.md, "Samples"): the request's "sample" field.
  bool package_is_sample = false;
  // The macros a sample's own build defines ("NAME=VALUE", ascendc::ParseSampleDefines): the
  // sample's "defines". Empty for packages and kernels.
  std::vector<std::string> sample_defines;
  // The operator to run of a package that defines several (its OpDef type or kernel entry;
  // package_operators.h): the package's "operator". "" = its only one.
  std::string package_operator;
  std::string name = "kernel.cpp";    // the kernel's file name (a package's label), for reports
  std::string profile;                // profiler output, "" = none (self-profile when it can)
  profile::Format profile_format = profile::Format::kAuto;
  std::string profile_name;           // what reports call the profile, "" = "uploaded"
  std::string profile_kernel;         // which kernel of a multi-kernel profile, "" = hottest
  const target::Target* target = nullptr;  // null = target::Default()
  JobOptions options;

  bool operator==(const JobSpec&) const = default;

  // The request form; every field explicit (target and profile_format by name).
  nlohmann::json ToJson() const;
  // Errors: InvalidArgument naming the field.
  static Result<JobSpec> FromJson(const nlohmann::json& body);
};

// {"files": {path: text, ...}, "operator": "AddCustom"} under `key` of `body`: an operator
// package's files (none when the key is absent or null), and, where `operator_name` is given,
// the optional operator to run of a package that defines several (package_operators.h; "" when
// absent); where `defines` is given, a sample's optional "defines" (["SCENARIO_NUM=1"],
// checked by ascendc::ParseSampleDefines). Only the shape and the total size are checked here;
// what the paths may be is ascendc::PackageFromFiles' business. Errors name the field.
Result<std::optional<ascendc::PackageFiles>> PackageField(
    const nlohmann::json& body, const char* key, std::string* operator_name = nullptr,
    std::vector<std::string>* defines = nullptr);
nlohmann::json PackageJson(const ascendc::PackageFiles& files,
                           const std::string& operator_name = "",
                           const std::vector<std::string>& defines = {});

}  // namespace cannbot::engine
