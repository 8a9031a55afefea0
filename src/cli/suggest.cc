// `cannbot suggest FILE --op OP`: profile + kernel in, a validated faster kernel out.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>

#include "cannbot/config/config.h"
#include "cannbot/engine/engine.h"
#include "cannbot/ascendc/sample.h"
#include "cannbot/engine/package_suggest.h"
#include "cannbot/llm/http_client.h"
#include "cannbot/service/daemon_client.h"
#include "cannbot/ops/registry.h"
#include "cannbot/page/job_page.h"
#include "cannbot/target/registry.h"
#include "cannbot/util/fs.h"
#include "cli/commands.h"

namespace cannbot::cli {
namespace {

struct SuggestFlags {
  std::string file;
  std::string package;  // --package: an Ascend C operator package instead of FILE
  std::string operator_name;  // --operator: of a package that defines several
  std::string op;
  std::string profile;
  std::string format = "auto";
  std::string kernel;
  std::string llm;
  std::string model;
  int samples = 0;
  int rounds = -1;
  std::string out;
  std::string html;  // --html FILE: the job page of this run
  bool json = false;
  std::string config_file;
  std::vector<std::string> skills_dirs;
  double min_speedup = 0;
  int budget = 0;
  double time_budget = 0;
  double good_enough = 0;
  std::string target_name{target::Default().name()};
  uint64_t seed = 0;
  bool seed_given = false;
  std::string db;
  std::string server;  // run on a daemon instead
  std::string token;
  bool insecure_sandbox = false;  // --insecure-sandbox
  std::string device_profile;     // --device-profile (a local run's)
  std::vector<std::string> defines;  // --define: a sample's own build's macros
};

Status BuildConfig(const SuggestFlags& flags, config::Config* config) {
  if (!flags.config_file.empty()) CANNBOT_RETURN_IF_ERROR(config::LoadFile(flags.config_file, config));
  CANNBOT_RETURN_IF_ERROR(config::ApplyEnvironment(config));
  if (flags.insecure_sandbox) config->insecure_sandbox = true;
  if (!flags.device_profile.empty()) config->ascendc_device = flags.device_profile;
  if (!flags.db.empty()) config->db = flags.db;
  for (const std::string& dir : flags.skills_dirs) config->skill_dirs.push_back(dir);
  return Status::Ok();
}

// The kernel's name in reports and diffs: the path as given, or the file name when the path
// is absolute (a daemon takes no absolute paths, and a local run must report the same).
std::string KernelName(const std::string& path) {
  if (path.empty() || path.front() != '/') return path;
  return path.substr(path.find_last_of('/') + 1);
}

// FILE is a kernel-launch sample: a directory (docs/ascendc.md, "Samples").
bool IsSampleDir(const std::string& path) {
  return !path.empty() && ascendc::LooksLikeSample(path);
}

// The job, the same whether it runs here or on a daemon.
Result<engine::JobSpec> MakeJobSpec(const SuggestFlags& flags) {
  engine::JobSpec spec;
  spec.op = flags.op;
  if (!flags.package.empty()) {  // read and checked here, so a daemon gets only good packages
    CANNBOT_ASSIGN_OR_RETURN(ascendc::Package package,
                             ascendc::LoadPackage(flags.package, flags.operator_name));
    spec.package = std::move(package.files);
    spec.package_operator = package.chosen_operator;
    spec.name = KernelName(flags.package);
  } else if (IsSampleDir(flags.file)) {  // likewise a sample's sources (not its input/*.bin)
    CANNBOT_ASSIGN_OR_RETURN(ascendc::Sample sample, LoadCliSample(flags.file, flags.defines));
    spec.package = std::move(sample.files);
    spec.package_is_sample = true;
    spec.sample_defines = std::move(sample.defines);
    spec.name = KernelName(flags.file);
  } else {
    CANNBOT_ASSIGN_OR_RETURN(spec.source, ReadFile(flags.file, engine::kMaxSourceBytes));
    spec.name = KernelName(flags.file);
  }
  if (!flags.defines.empty() && !spec.package_is_sample) {
    return Status::InvalidArgument("--define goes with an Ascend C sample's directory");
  }
  if (!flags.profile.empty()) {
    CANNBOT_ASSIGN_OR_RETURN(spec.profile, ReadFile(flags.profile, size_t{1} << 30));
    spec.profile_name = flags.profile;
  }
  CANNBOT_ASSIGN_OR_RETURN(spec.profile_format, profile::ParseFormat(flags.format));
  spec.profile_kernel = flags.kernel;
  CANNBOT_ASSIGN_OR_RETURN(spec.target, target::Parse(flags.target_name, "--target"));
  engine::JobOptions& o = spec.options;
  if (flags.samples > 0) o.samples = flags.samples;
  if (flags.rounds >= 0) o.rounds = flags.rounds;
  if (flags.budget > 0) o.budget = flags.budget;
  if (flags.min_speedup > 0) o.min_speedup = flags.min_speedup;
  if (flags.time_budget > 0) o.time_budget_seconds = flags.time_budget;
  if (flags.good_enough > 0) o.good_enough_roofline = flags.good_enough;
  if (flags.seed_given) o.seed = flags.seed;
  o.llm = engine::LlmChoiceFromFlags(flags.llm, flags.model);
  return spec;
}

// One line per attempt; on a terminal, a status line that the next event overwrites.
optimize::ProgressFn Progress() {
  const bool terminal = ::isatty(2) != 0;
  return [terminal](const optimize::ProgressEvent& event) {
    using Kind = optimize::ProgressEvent::Kind;
    if (event.kind == Kind::kAttemptDone) {
      std::fprintf(stderr, terminal ? "\r\033[K%s\n" : "%s\n", event.text.c_str());
    } else if (terminal) {
      std::fprintf(stderr, "\r\033[K  round %d: %.100s ...", event.round, event.text.c_str());
    } else if (event.kind == Kind::kAsking) {
      std::fprintf(stderr, "round %d: %s\n", event.round, event.text.c_str());
    }
    std::fflush(stderr);
  };
}

std::string TokenFor(const SuggestFlags& flags) {
  if (!flags.token.empty()) return flags.token;
  const char* env = std::getenv("CANNBOT_TOKEN");
  return env != nullptr ? env : "";
}

Result<engine::SuggestReport> RunOnServer(const SuggestFlags& flags, const engine::JobSpec& spec) {
  service::DaemonClient client({flags.server, TokenFor(flags)});
  CANNBOT_ASSIGN_OR_RETURN(
      service::RemoteJob job,
      client.Run(spec, Progress(),
                 [&](const std::string& id) {
                   std::fprintf(stderr, "cannbot: job %s on %s\n", id.c_str(),
                                flags.server.c_str());
                 },
                 [](const std::string& reason) {
                   std::fprintf(stderr, "cannbot: the daemon re-queued the job: %s\n",
                                reason.c_str());
                 }));
  if (job.status == "cancelled") std::fprintf(stderr, "cannbot: the job was cancelled\n");
  return job.report;
}

Result<engine::SuggestReport> RunHere(const SuggestFlags& flags, const ops::Registry& registry,
                                      const engine::JobSpec& spec) {
  config::Config config;
  CANNBOT_RETURN_IF_ERROR(BuildConfig(flags, &config));
  std::vector<std::string> warnings;
  CANNBOT_ASSIGN_OR_RETURN(std::unique_ptr<engine::Engine> engine,
                           engine::Engine::Open(config, registry, &warnings));
  for (const std::string& w : warnings) std::fprintf(stderr, "cannbot: warning: %s\n", w.c_str());
  engine::ProgressFunction progress(Progress());
  return engine->Run(spec, &progress);
}

// --out: the accepted kernel to FILE, or a package's (a sample's) changed files under DIR.
Status WriteBest(const SuggestFlags& flags, const engine::SuggestReport& report) {
  if (flags.package.empty() && !IsSampleDir(flags.file)) {
    CANNBOT_RETURN_IF_ERROR(WriteFile(flags.out, report.Best()->code));
    std::fprintf(stderr, "cannbot: wrote the accepted kernel to %s\n", flags.out.c_str());
    return Status::Ok();
  }
  CANNBOT_RETURN_IF_ERROR(
      WriteFilesUnder(flags.out, engine::ExtractPackageFiles(report.Best()->code)));
  std::fprintf(stderr, "cannbot: wrote the changed files under %s\n", flags.out.c_str());
  return Status::Ok();
}

int Run(const SuggestFlags& flags, const ops::Registry& registry) {
  if (!flags.package.empty() && (flags.target_name != "ascendc" || !flags.file.empty())) {
    return ReportError(Status::InvalidArgument("--package takes an Ascend C operator package "
                                               "instead of FILE, with --target ascendc"),
                       flags.json);
  }
  if (IsSampleDir(flags.file) && flags.target_name != "ascendc") {
    return ReportError(Status::InvalidArgument("FILE " + flags.file + " is a kernel-launch "
                                               "sample directory: give --target ascendc"),
                       flags.json);
  }
  if (flags.file.empty() && flags.package.empty()) {
    return ReportError(Status::InvalidArgument("give the kernel: FILE (or --package DIR with "
                                               "--target ascendc)"),
                       flags.json);
  }
  if (!flags.server.empty() && !flags.device_profile.empty()) {
    return ReportError(Status::InvalidArgument("--device-profile is for a run here; a daemon "
                                               "emulates the device its own config names "
                                               "(ascendc_device)"),
                       flags.json);
  }
  auto spec = MakeJobSpec(flags);
  if (!spec.ok()) return ReportError(spec.status(), flags.json);
  const ops::OpSpec* op = registry.Find(spec->op);
  if (!flags.server.empty() && op != nullptr && !op->spec_text.empty()) {
    // An op of --ops-dir: the daemon may not have it, so the spec travels with the job.
    spec->op_spec = op->spec_text;
    if (op->reference_kind == ops::ReferenceKind::kSource) spec->op_reference = op->reference_source;
  }
  auto result = flags.server.empty() ? RunHere(flags, registry, *spec) : RunOnServer(flags, *spec);
  if (!result.ok()) return ReportError(result.status(), flags.json);
  const engine::SuggestReport& report = *result;
  if (flags.json) {
    std::printf("%s\n",
                report.ToJson().dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
  } else {
    std::printf("%s", report.RenderText().c_str());
  }
  std::fflush(stdout);  // before anything else reaches stderr, so the two never interleave
  if (!flags.html.empty()) {
    Status written = WriteFile(flags.html, page::RenderJobPage(page::JobDocumentFromReport(
                                               report.ToJson(), flags.target_name)));
    if (!written.ok()) return ReportError(written, flags.json);
    std::fprintf(stderr, "cannbot: wrote the job page to %s\n", flags.html.c_str());
  }
  if (!report.kernel_check.ok) return kExitError;
  if (report.found() && !flags.out.empty()) {
    if (Status written = WriteBest(flags, report); !written.ok()) {
      return ReportError(written, flags.json);
    }
  }
  return report.found() ? kExitOk : kExitRejected;
}

}  // namespace

Command RegisterSuggest(CLI::App& app, const ops::Registry& registry) {
  auto flags = std::make_shared<SuggestFlags>();
  CLI::App* cmd = app.add_subcommand("suggest", "Find a validated faster version of a kernel");
  cmd->add_option("file", flags->file,
                  "Kernel source (C++), or an Ascend C kernel-launch sample directory (kernel "
                  "file + main.cpp; --target ascendc, with --llm and --model; --out DIR gets "
                  "the changed files)");
  cmd->add_option("--package", flags->package,
                  "An Ascend C operator package (op_host/ + op_kernel/) instead of FILE "
                  "(--target ascendc, with --llm and --model; --out DIR gets the changed files)");
  AddOperatorFlag(cmd, &flags->operator_name);
  cmd->add_option("--op", flags->op, "Op the kernel implements (see `cannbot ops`)")->required();
  cmd->add_option("--profile", flags->profile, "Profiler output for this kernel");
  cmd->add_option("--format", flags->format,
                  "Profile format: auto, msprof, kernel_details, timeline, ncu, perf, json")
      ->capture_default_str();
  cmd->add_option("--kernel", flags->kernel, "Which kernel of a multi-kernel profile");
  cmd->add_option("--target", flags->target_name, "What the kernel is written for: " + target::Names())
      ->capture_default_str();
  cmd->add_option("--llm", flags->llm,
                  "OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1 (default: offline "
                  "recipes, no LLM)");
  cmd->add_option("--model", flags->model, "Model name on that server");
  cmd->add_option("--samples", flags->samples, "Candidates per round (default 4)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--rounds", flags->rounds, "Repair rounds after the first (default 3)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--out", flags->out, "Write the accepted kernel here");
  cmd->add_option("--html", flags->html,
                  "Write the run as an HTML page (diagnosis, roofline, diff, attempts)");
  cmd->add_flag("--json", flags->json, "Print the report as JSON");
  cmd->add_option("--config", flags->config_file, "Config file (TOML or JSON)");
  cmd->add_option("--skills-dir", flags->skills_dirs, "Extra skills directory (repeatable)");
  cmd->add_option("--min-speedup", flags->min_speedup, "Lower 95% bound the speedup must clear")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--seed", flags->seed, "Seed for the validator's random inputs")
      ->each([flags](const std::string&) { flags->seed_given = true; });
  cmd->add_option("--db", flags->db, "Store file");
  AddInsecureSandboxFlag(cmd, &flags->insecure_sandbox);
  AddDeviceProfileFlag(cmd, &flags->device_profile);
  AddDefineFlag(cmd, &flags->defines);
  cmd->add_option("--budget", flags->budget, "Offline: most recipe variants to try (default 24)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--time-budget", flags->time_budget,
                  "Seconds after which no new candidate is validated (default 900)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--good-enough", flags->good_enough,
                  "Stop once an accepted kernel reaches this fraction of the roofline (default 0.8)")
      ->check(CLI::Range(0.01, 2.0));
  cmd->add_option("--server", flags->server,
                  "Run on a cannbot daemon (http://host:port) instead of in this process");
  cmd->add_option("--token", flags->token, "With --server: bearer token (default $CANNBOT_TOKEN)");
  return {cmd, [flags, &registry] { return Run(*flags, registry); }};
}

}  // namespace cannbot::cli
