// `cannbot validate`: the three-layer verdict for one candidate kernel.
#include <cstdio>
#include <memory>
#include <sstream>

#include "cannbot/engine/engine.h"
#include "cannbot/ascendc/sample.h"
#include "cannbot/engine/package_validation.h"
#include "cannbot/engine/providers.h"
#include "cannbot/store/store.h"
#include "cannbot/target/registry.h"
#include "cannbot/util/fs.h"
#include "cannbot/validator/validator.h"
#include "cli/commands.h"

namespace cannbot::cli {
namespace {

struct ValidateFlags {
  std::string op;
  std::string candidate;
  std::string baseline;
  std::string package;           // --package: an operator package (ascendc target)
  std::string baseline_package;  // --baseline-package
  std::string operator_name;     // --operator: of packages that define several
  bool json = false;
  uint64_t seed = 0;
  bool seed_given = false;
  double min_speedup = 0;      // 0 = the config's (1.05 by default)
  std::string compiler;        // "" = the config's (g++ by default)
  std::string config_file;     // --config
  std::string cflags;
  std::string db;
  bool no_cache = false;
  bool keep_work_dir = false;
  bool no_static_check = false;
  std::string target_name{target::Default().name()};
  double max_perf_seconds = 30;
  bool insecure_sandbox = false;  // --insecure-sandbox
  std::string device_profile;     // --device-profile
  std::vector<std::string> defines;  // --define: a sample's own build's macros
};

std::vector<std::string> SplitFlags(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> flags;
  std::string flag;
  while (in >> flag) flags.push_back(flag);
  return flags;
}

Result<validator::KernelSource> ReadKernel(const std::string& path, const std::string& role) {
  auto text = ReadFile(path, 4u << 20);
  if (!text.ok()) return text.status().WithContext("cannot read the " + role);
  return validator::KernelSource{path, std::move(text).value()};
}

// The config file and CANNBOT_* variables (as `suggest` reads them), then the flags given.
Result<validator::ValidatorConfig> MakeConfig(const ValidateFlags& flags, std::string* db) {
  CANNBOT_ASSIGN_OR_RETURN(config::Config settings,
                           LoadCommandConfig(flags.config_file, flags.insecure_sandbox,
                                             flags.device_profile));
  CANNBOT_ASSIGN_OR_RETURN(validator::ValidatorConfig config,
                           engine::MakeValidatorConfig(settings));
  if (!flags.compiler.empty()) config.compiler.compiler = flags.compiler;
  if (!flags.cflags.empty()) config.compiler.flags = SplitFlags(flags.cflags);
  config.compiler.use_cache = !flags.no_cache;
  config.compiler.source_check = !flags.no_static_check;
  if (flags.min_speedup > 0) config.perf.min_speedup = flags.min_speedup;
  config.perf.max_seconds = flags.max_perf_seconds;
  config.keep_work_dir = flags.keep_work_dir;
  *db = !flags.db.empty() ? flags.db : !settings.db.empty() ? settings.db : store::Store::DefaultPath();
  return config;
}

// Runs `produce(validator)` and prints the package or sample report it returns.
template <typename Produce>
int PrintReport(const ValidateFlags& flags, const ops::Registry& registry, Produce&& produce) {
  std::string db;
  auto config = MakeConfig(flags, &db);
  if (!config.ok()) return ReportError(config.status(), flags.json);
  auto store = store::Store::Open(db);
  if (!store.ok()) return ReportError(store.status(), flags.json);
  validator::Validator validator(*config, store->get(), registry);
  Result<engine::PackageReport> report = produce(validator);
  if (!report.ok()) return ReportError(report.status(), flags.json);
  if (flags.json) {
    std::printf("%s\n", report->ToJson().dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
  } else {
    std::printf("%s", report->RenderText().c_str());
  }
  return report->ok() ? kExitOk : kExitRejected;
}

// --package: every dtype combination of an operator package's OpDef.
int RunPackage(const ValidateFlags& flags, const ops::Registry& registry) {
  if (flags.target_name != "ascendc") {
    return ReportError(Status::InvalidArgument("--package takes an Ascend C operator package: "
                                               "add --target ascendc"),
                       flags.json);
  }
  if (!flags.candidate.empty() || !flags.baseline.empty()) {
    return ReportError(Status::InvalidArgument("--package replaces --candidate; the baseline "
                                               "of a package is --baseline-package"),
                       flags.json);
  }
  engine::PackageRequest request;
  request.op = flags.op;
  auto candidate = ascendc::LoadPackage(flags.package, flags.operator_name);
  if (!candidate.ok()) return ReportError(candidate.status(), flags.json);
  request.candidate = std::move(candidate).value();
  if (!flags.baseline_package.empty()) {
    auto baseline = ascendc::LoadPackage(flags.baseline_package, flags.operator_name);
    if (!baseline.ok()) return ReportError(baseline.status(), flags.json);
    request.baseline = std::move(baseline).value();
  }
  if (flags.seed_given) request.seed = flags.seed;
  return PrintReport(flags, registry, [&](validator::Validator& validator) {
    return engine::ValidatePackage(validator, registry, request);
  });
}

// --candidate DIR (--target ascendc): a sample-style kernel with its host main.cpp.
int RunSample(const ValidateFlags& flags, const ops::Registry& registry) {
  engine::SampleRequest request;
  request.op = flags.op;
  auto candidate = LoadCliSample(flags.candidate, flags.defines);
  if (!candidate.ok()) return ReportError(candidate.status(), flags.json);
  request.candidate = std::move(candidate).value();
  if (!flags.baseline.empty()) {  // built with the same definitions
    auto baseline = LoadCliSample(flags.baseline, flags.defines);
    if (!baseline.ok()) return ReportError(baseline.status(), flags.json);
    request.baseline = std::move(baseline).value();
  }
  if (flags.seed_given) request.seed = flags.seed;  // --min-speedup is in the validator's config
  return PrintReport(flags, registry, [&](validator::Validator& validator) {
    return engine::ValidateSample(validator, registry, request);
  });
}

int Run(const ValidateFlags& flags, const ops::Registry& registry) {
  if (auto op = engine::FindOp(registry, flags.op); !op.ok()) {
    return ReportError(op.status(), flags.json);
  }
  auto target = target::Parse(flags.target_name, "--target");
  if (!target.ok()) return ReportError(target.status(), flags.json);
  if (!flags.package.empty() && !flags.defines.empty()) {
    return ReportError(Status::InvalidArgument("--define goes with an Ascend C sample's "
                                               "directory, not --package (a package's build "
                                               "defines what its kernel reads)"),
                       flags.json);
  }
  if (!flags.package.empty()) return RunPackage(flags, registry);
  if (!flags.baseline_package.empty()) {
    return ReportError(Status::InvalidArgument("--baseline-package goes with --package"), flags.json);
  }
  if (flags.candidate.empty()) {
    return ReportError(Status::InvalidArgument("give the kernel to validate: --candidate FILE "
                                               "(or --package DIR with --target ascendc)"),
                       flags.json);
  }
  if (flags.target_name == "ascendc" && ascendc::LooksLikeSample(flags.candidate)) {
    return RunSample(flags, registry);
  }
  if (!flags.defines.empty()) {
    return ReportError(Status::InvalidArgument("--define goes with an Ascend C sample's "
                                               "directory (--target ascendc --candidate DIR)"),
                       flags.json);
  }
  validator::ValidationRequest request;
  request.op = flags.op;
  auto candidate = ReadKernel(flags.candidate, "candidate");
  if (!candidate.ok()) return ReportError(candidate.status(), flags.json);
  request.candidate = std::move(candidate).value();
  if (!flags.baseline.empty()) {
    auto baseline = ReadKernel(flags.baseline, "baseline");
    if (!baseline.ok()) return ReportError(baseline.status(), flags.json);
    request.baseline = std::move(baseline).value();
  }
  if (flags.seed_given) request.seed = flags.seed;
  request.target = *target;

  std::string db;
  auto config = MakeConfig(flags, &db);
  if (!config.ok()) return ReportError(config.status(), flags.json);
  auto store = store::Store::Open(db);
  if (!store.ok()) return ReportError(store.status(), flags.json);
  validator::Validator validator(*config, store->get(), registry);
  auto verdict = validator.Validate(request);
  if (!verdict.ok()) return ReportError(verdict.status(), flags.json);
  if (flags.json) {
    std::printf("%s\n", verdict->ToJson().dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
  } else {
    std::printf("%s", verdict->RenderText().c_str());
  }
  return verdict->accepted ? kExitOk : kExitRejected;
}

}  // namespace

Command RegisterValidate(CLI::App& app, const ops::Registry& registry) {
  auto flags = std::make_shared<ValidateFlags>();
  CLI::App* cmd = app.add_subcommand(
      "validate", "Compile, check and time a candidate kernel against a baseline");
  cmd->add_option("--op", flags->op, "Built-in op the kernel implements (see `cannbot ops`)")
      ->required();
  cmd->add_option("--candidate", flags->candidate,
                  "Candidate kernel source (C++), or with --target ascendc a sample's directory "
                  "(kernel file + host main.cpp launching it with ICPU_RUN_KF), or one program "
                  "file (with its main()) of a directory holding several");
  cmd->add_option("--package", flags->package,
                  "An Ascend C operator package (op_host/ + op_kernel/) instead of --candidate; "
                  "every dtype combination of its OpDef is validated (--target ascendc)");
  AddOperatorFlag(cmd, &flags->operator_name);
  cmd->add_option("--baseline-package", flags->baseline_package,
                  "The operator package --package replaces (default: none, compile and numeric "
                  "layers only)");
  cmd->add_option("--target", flags->target_name, "What the kernel is written for: " + target::Names())
      ->capture_default_str();
  cmd->add_option("--baseline", flags->baseline,
                  "Baseline kernel to beat (default: the op's reference kernel)");
  cmd->add_flag("--json", flags->json, "Print the verdict JSON instead of the table");
  cmd->add_option("--seed", flags->seed, "Seed for the random inputs (default: fresh)")
      ->each([flags](const std::string&) { flags->seed_given = true; });
  cmd->add_option("--min-speedup", flags->min_speedup,
                  "Lower 95% bound the speedup must clear (default: the config's, 1.05)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--compiler", flags->compiler, "C++ compiler (default: the config's, g++)");
  cmd->add_option("--config", flags->config_file,
                  "cannbot's config file (TOML or JSON); CANNBOT_* variables apply either way");
  cmd->add_option("--cflags", flags->cflags,
                  "Compiler flags (default: -O3 -march=native -std=c++17 -fPIC -shared)");
  cmd->add_option("--db", flags->db, "Store file (default: " + store::Store::DefaultPath() + ")");
  AddInsecureSandboxFlag(cmd, &flags->insecure_sandbox);
  AddDeviceProfileFlag(cmd, &flags->device_profile);
  AddDefineFlag(cmd, &flags->defines);
  cmd->add_flag("--no-cache", flags->no_cache, "Always recompile");
  cmd->add_flag("--keep-work-dir", flags->keep_work_dir, "Keep the private work directory");
  cmd->add_flag("--no-static-check", flags->no_static_check,
                "Skip the source pre-check (the sandbox still applies)");
  cmd->add_option("--max-perf-seconds", flags->max_perf_seconds,
                  "Time budget of the timed rounds")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  return {cmd, [flags, &registry] { return Run(*flags, registry); }};
}

}  // namespace cannbot::cli
