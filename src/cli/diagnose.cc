// `cannbot diagnose`: what limits a kernel, from a profiler's output or from timing the
// kernel on this CPU.
//
//   cannbot diagnose PROFILE [--format F] [--kernel NAME] [--device NAME] [--json]
//   cannbot diagnose --op OP --source FILE [--json]      (self-profile, then diagnose)
//   cannbot diagnose --target ascendc --op OP (--source FILE | --package DIR)
//                                                        (the cost model's profile of the
//                                                         emulated launch, then diagnose)
#include <cstdio>
#include <memory>

#include <nlohmann/json.hpp>

#include "cannbot/diagnosis/diagnosis.h"
#include "cannbot/engine/estimated_profile.h"
#include "cannbot/engine/engine.h"
#include "cannbot/engine/providers.h"
#include "cannbot/ops/registry.h"
#include "cannbot/profile/import.h"
#include "cannbot/store/store.h"
#include "cannbot/target/registry.h"
#include "cannbot/util/fs.h"
#include "cannbot/validator/validator.h"
#include "cli/commands.h"

namespace cannbot::cli {
namespace {

struct DiagnoseFlags {
  std::string profile;
  std::string format = "auto";
  std::string kernel;
  std::string device;
  bool json = false;
  std::string op;
  std::string source;
  std::string package;  // --package: an Ascend C operator package (--target ascendc)
  std::string operator_name;  // --operator: of a package that defines several
  std::string target_name{target::Default().name()};
  std::string db;
  bool no_counters = false;
  bool insecure_sandbox = false;  // --insecure-sandbox
  std::string device_profile;     // --device-profile
  std::vector<std::string> defines;  // --define: a sample's own build's macros
  std::string config_file;        // --config
};

// What was read, for the header of the table.
struct Loaded {
  profile::Profile profile;
  std::string origin;  // "profile.csv (msprof op_summary CSV, detected)"
};

// An Ascend C kernel or package: the cost model's profile of its emulated launch.
Result<Loaded> EstimatedProfile(const DiagnoseFlags& flags, const ops::Registry& registry,
                                const target::Target& target, validator::Validator& validator) {
  if (!flags.package.empty()) {
    CANNBOT_ASSIGN_OR_RETURN(ascendc::Package package,
                             ascendc::LoadPackage(flags.package, flags.operator_name));
    CANNBOT_ASSIGN_OR_RETURN(profile::Profile p, engine::EstimatePackageProfile(
                                                     validator, registry, flags.op, package));
    return Loaded{std::move(p), flags.package + " (emulated as " + flags.op +
                                    ", estimated by the cost model)"};
  }
  if (target.name() == "ascendc" && ascendc::LooksLikeSample(flags.source)) {
    CANNBOT_ASSIGN_OR_RETURN(ascendc::Sample sample, LoadCliSample(flags.source, flags.defines));
    CANNBOT_ASSIGN_OR_RETURN(profile::Profile p, engine::EstimateSampleProfile(
                                                     validator, registry, flags.op, sample));
    return Loaded{std::move(p), flags.source + " (a sample, emulated as " + flags.op +
                                    ", estimated by the cost model)"};
  }
  if (!flags.defines.empty()) {
    return Status::InvalidArgument("--define goes with an Ascend C sample's directory");
  }
  auto text = ReadFile(flags.source, 4u << 20);
  if (!text.ok()) return text.status().WithContext("cannot read the kernel source");
  CANNBOT_ASSIGN_OR_RETURN(profile::Profile p, engine::EstimateProfile(validator, target, flags.op,
                                                                       {flags.source, *text}));
  return Loaded{std::move(p),
                flags.source + " (emulated as " + flags.op + ", estimated by the cost model)"};
}

Result<Loaded> SelfProfile(const DiagnoseFlags& flags, const ops::Registry& registry) {
  CANNBOT_ASSIGN_OR_RETURN(const ops::OpSpec* op, engine::FindOp(registry, flags.op));
  CANNBOT_ASSIGN_OR_RETURN(const target::Target* target,
                           target::Parse(flags.target_name, "--target"));
  if (!flags.package.empty() && target->name() != "ascendc") {
    return Status::InvalidArgument("--package takes an Ascend C operator package: add --target "
                                   "ascendc");
  }
  // The config file and CANNBOT_* variables, as `suggest` reads them.
  CANNBOT_ASSIGN_OR_RETURN(config::Config settings,
                           LoadCommandConfig(flags.config_file, flags.insecure_sandbox,
                                             flags.device_profile));
  const std::string db = !flags.db.empty()       ? flags.db
                         : !settings.db.empty() ? settings.db
                                                 : store::Store::DefaultPath();
  auto store = store::Store::Open(db);
  if (!store.ok()) return store.status();
  // Through a Validator, so a user's op is checked against its own (sandboxed) reference.
  auto checks = engine::MakeValidatorConfig(settings);
  if (!checks.ok()) return checks.status();
  validator::Validator validator(std::move(checks).value(), store->get(), registry);
  // A target that does not run here: its perf layer's estimate of the kernel.
  if (!target->RunsOnThisCpu()) return EstimatedProfile(flags, registry, *target, validator);
  if (!flags.defines.empty()) {
    return Status::InvalidArgument("--define goes with an Ascend C sample's directory");
  }
  auto text = ReadFile(flags.source, 4u << 20);
  if (!text.ok()) return text.status().WithContext("cannot read the kernel source");
  CANNBOT_ASSIGN_OR_RETURN(profile::Profile p,
                           validator.MeasureProfile(op->name, {flags.source, *text}, std::nullopt,
                                                    op, !flags.no_counters));
  return Loaded{std::move(p), flags.source + " (self-profiled on this CPU as " + op->name + ")"};
}

Result<Loaded> Import(const DiagnoseFlags& flags) {
  profile::ImportOptions options;
  CANNBOT_ASSIGN_OR_RETURN(options.format, profile::ParseFormat(flags.format));
  options.device = flags.device;
  profile::Format used = profile::Format::kAuto;
  CANNBOT_ASSIGN_OR_RETURN(profile::Profile p,
                           profile::ImportProfileFile(flags.profile, options, &used));
  const bool forced = options.format != profile::Format::kAuto;
  return Loaded{std::move(p), flags.profile + " (" + profile::FormatDescription(used) +
                                  (forced ? ", as forced" : ", detected") + ")"};
}

void PrintTable(const Loaded& loaded, const profile::KernelProfile& kernel,
                const diagnosis::Diagnosis& diagnosis) {
  const profile::Profile& p = loaded.profile;
  std::printf("Profile: %s\n", loaded.origin.c_str());
  std::printf("  tool %s, device %s, %zu kernel%s\n", p.source_tool.c_str(),
              p.device.empty() ? "unknown" : p.device.c_str(), p.kernels.size(),
              p.kernels.size() == 1 ? "" : "s");
  std::string what = kernel.type;
  if (!kernel.core_type.empty()) what += (what.empty() ? "" : ", ") + kernel.core_type;
  std::printf("  %s%s%s: %.1f us over %lld launch%s\n\n", kernel.name.c_str(),
              what.empty() ? "" : " (", what.empty() ? "" : (what + ")").c_str(),
              kernel.duration_us, static_cast<long long>(kernel.launches),
              kernel.launches == 1 ? "" : "es");
  std::printf("%s", diagnosis.RenderText().c_str());
  if (!p.notes.empty()) {
    std::printf("\nNotes on the profile:\n");
    for (const std::string& note : p.notes) std::printf("  - %s\n", note.c_str());
  }
}

int Run(const DiagnoseFlags& flags, const ops::Registry& registry) {
  const bool self = !flags.op.empty() || !flags.source.empty() || !flags.package.empty();
  if (self == !flags.profile.empty()) {
    return ReportError(Status::InvalidArgument(
                           "give either a PROFILE file or --op OP with --source FILE (or "
                           "--package DIR with --target ascendc)"),
                       flags.json);
  }
  if (self && (flags.op.empty() || flags.source.empty() == flags.package.empty())) {
    return ReportError(Status::InvalidArgument("self-profiling needs --op and one of --source "
                                               "or --package"),
                       flags.json);
  }
  auto loaded = self ? SelfProfile(flags, registry) : Import(flags);
  if (!loaded.ok()) return ReportError(loaded.status(), flags.json);
  std::string why;
  auto picked = loaded->profile.Pick(flags.kernel, &why);
  if (!picked.ok()) {
    return ReportError(picked.status().WithContext(flags.profile.empty() ? flags.source
                                                                         : flags.profile),
                       flags.json);
  }
  diagnosis::Diagnosis result = diagnosis::Diagnose(loaded->profile, **picked);
  result.picked_because = why;
  if (flags.json) {
    nlohmann::json out = {{"profile", loaded->profile.ToJson()}, {"diagnosis", result.ToJson()}};
    std::printf("%s\n", out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
  } else {
    PrintTable(*loaded, **picked, result);
  }
  return kExitOk;
}

}  // namespace

Command RegisterDiagnose(CLI::App& app, const ops::Registry& registry) {
  auto flags = std::make_shared<DiagnoseFlags>();
  CLI::App* cmd = app.add_subcommand(
      "diagnose", "Find what limits a kernel, from a profile or by timing it on this CPU");
  cmd->add_option("PROFILE", flags->profile,
                  "Profiler output: an msprof output directory (PROF_*), msprof op_summary / "
                  "task_time / op_statistic or kernel_details CSV, msprof timeline JSON, "
                  "Nsight Compute CSV, perf stat (plain, -x or -j), or cannbot profile JSON");
  cmd->add_option("--format", flags->format, "Read PROFILE as this format instead of detecting")
      ->check(CLI::IsMember({"auto", "msprof", "msprof_dir", "kernel_details", "timeline", "ncu",
                             "perf", "json"}))
      ->capture_default_str();
  cmd->add_option("--kernel", flags->kernel,
                  "Kernel to diagnose (exact name or unique substring; default: the one with "
                  "the most total time)");
  cmd->add_option("--device", flags->device,
                  "Device the profile was taken on, e.g. Ascend910B3 (gives the core count)");
  cmd->add_option("--op", flags->op, "Self-profile: the built-in op the kernel implements");
  cmd->add_option("--source,--kernel-source", flags->source,
                  "Self-profile: the kernel source to time on this CPU (with --target ascendc: "
                  "to estimate from its emulated launch; a sample's directory, kernel file + "
                  "host main.cpp, at the launch its host program makes)");
  cmd->add_option("--package", flags->package,
                  "Self-profile an Ascend C operator package (op_host/ + op_kernel/) from its "
                  "emulated launch, every dtype combination (--target ascendc)");
  AddOperatorFlag(cmd, &flags->operator_name);
  cmd->add_option("--target", flags->target_name,
                  "Self-profile: what the kernel is written for: " + target::Names())
      ->capture_default_str();
  AddInsecureSandboxFlag(cmd, &flags->insecure_sandbox);
  AddDeviceProfileFlag(cmd, &flags->device_profile);
  AddDefineFlag(cmd, &flags->defines);
  cmd->add_option("--config", flags->config_file,
                  "Self-profile: cannbot's config file (TOML or JSON; compiler, store); "
                  "CANNBOT_* variables apply either way");
  cmd->add_option("--db", flags->db,
                  "Store file for the compile cache and machine model (default: " +
                      store::Store::DefaultPath() + ")");
  cmd->add_flag("--no-counters", flags->no_counters,
                "Self-profile: do not try perf stat hardware counters");
  cmd->add_flag("--json", flags->json, "Print {\"profile\", \"diagnosis\"} as JSON");
  return {cmd, [flags, &registry] { return Run(*flags, registry); }};
}

}  // namespace cannbot::cli
