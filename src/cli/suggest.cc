// `cannbot suggest FILE --op OP`: profile + kernel in, a validated faster kernel out.
#include <unistd.h>

#include <cstdio>
#include <memory>

#include "cannbot/app/providers.h"
#include "cannbot/config/config.h"
#include "cannbot/optimize/pipeline.h"
#include "cannbot/util/fs.h"
#include "cli/commands.h"
#include "cli/remote.h"

namespace cannbot::cli {
namespace {

struct SuggestFlags {
  std::string file;
  std::string op;
  std::string profile;
  std::string format = "auto";
  std::string kernel;
  std::string llm;
  std::string model;
  int samples = 0;
  int rounds = -1;
  std::string out;
  bool json = false;
  std::string config_file;
  std::vector<std::string> skills_dirs;
  double min_speedup = 0;
  int budget = 0;
  double time_budget = 0;
  std::string target = "cpu";
  uint64_t seed = 0;
  bool seed_given = false;
  std::string db;
  std::string server;  // run on a daemon instead (remote.cc)
  std::string token;
};

Status BuildConfig(const SuggestFlags& flags, config::Config* config) {
  if (!flags.config_file.empty()) CANNBOT_RETURN_IF_ERROR(config::LoadFile(flags.config_file, config));
  CANNBOT_RETURN_IF_ERROR(config::ApplyEnvironment(config));
  if (!flags.llm.empty()) config->llm.base_url = flags.llm;
  if (!flags.model.empty()) config->llm.model = flags.model;
  if (flags.samples > 0) config->loop.samples = flags.samples;
  if (flags.rounds >= 0) config->loop.rounds = flags.rounds;
  if (flags.min_speedup > 0) config->min_speedup = flags.min_speedup;
  if (!flags.db.empty()) config->db = flags.db;
  for (const std::string& dir : flags.skills_dirs) config->skill_dirs.push_back(dir);
  return Status::Ok();
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

int RunOnServer(const SuggestFlags& f) {
  RemoteSuggest r{.server = f.server, .token = f.token, .file = f.file, .op = f.op,
                  .profile = f.profile, .format = f.format, .kernel = f.kernel, .llm = f.llm,
                  .model = f.model, .samples = f.samples, .rounds = f.rounds,
                  .min_speedup = f.min_speedup, .budget = f.budget, .time_budget = f.time_budget,
                  .seed = f.seed_given ? std::optional<uint64_t>(f.seed) : std::nullopt,
                  .json = f.json, .out = f.out};
  return RunRemoteSuggest(r, Progress());
}

int Run(const SuggestFlags& flags) {
  if (!flags.server.empty()) return RunOnServer(flags);
  config::Config config;
  Status s = BuildConfig(flags, &config);
  if (!s.ok()) return ReportError(s, flags.json);
  auto text = ReadFile(flags.file, 4u << 20);
  if (!text.ok()) return ReportError(text.status().WithContext("cannot read the kernel"), flags.json);
  if (ops::Registry::BuiltIn().Find(flags.op) == nullptr) {
    return ReportError(Status::NotFound("unknown op '" + flags.op + "' (see `cannbot ops`)"),
                       flags.json);
  }
  optimize::SuggestRequest request;
  request.op = flags.op;
  request.kernel = {flags.file, *text};
  request.profile_path = flags.profile;
  request.profile_kernel = flags.kernel;
  auto format = profile::ParseFormat(flags.format);
  if (!format.ok()) return ReportError(format.status(), flags.json);
  request.profile_options.format = *format;
  if (flags.seed_given) request.seed = flags.seed;
  request.target = flags.target;

  auto store = store::Store::Open(config.db.empty() ? store::Store::DefaultPath() : config.db);
  if (!store.ok()) return ReportError(store.status(), flags.json);
  validator::Validator validator(app::MakeValidatorConfig(config), store->get());
  std::vector<std::string> warnings;
  skills::SkillLibrary library = app::LoadSkills(config, {}, &warnings);
  for (const std::string& w : warnings) std::fprintf(stderr, "cannbot: warning: %s\n", w.c_str());

  if (flags.time_budget > 0) config.loop.time_budget_seconds = flags.time_budget;
  // Offline, the recipes' parameter search decides how many rounds it needs.
  if (config.llm.base_url.empty() && flags.rounds < 0) config.loop.rounds = 8;
  optimize::OfflineConfig offline;
  if (flags.budget > 0) offline.max_variants = flags.budget;
  auto bundle = app::MakeProvider(config, library, store->get(), validator, flags.op, offline);
  if (!bundle.ok()) return ReportError(bundle.status(), flags.json);
  optimize::Provider* provider = bundle->provider.get();

  optimize::SuggestContext context{&validator, provider, &library, store->get(), config.loop};
  auto result = optimize::Suggest(request, context, Progress());
  if (!result.ok()) return ReportError(result.status(), flags.json);
  const optimize::OptimizeReport& report = result->report;
  if (flags.json) {
    nlohmann::json out = report.ToJson();
    out["kernel_check"] = {{"ok", result->kernel_check.ok},
                           {"layer", result->kernel_check.layer},
                           {"reason", result->kernel_check.reason}};
    std::printf("%s\n", out.dump(2).c_str());
  } else {
    std::printf("%s", report.RenderText().c_str());
  }
  std::fflush(stdout);  // before anything else reaches stderr, so the two never interleave
  if (!result->kernel_check.ok) return kExitError;
  if (report.found() && !flags.out.empty()) {
    Status written = WriteFile(flags.out, report.Best()->code);
    if (!written.ok()) return ReportError(written, flags.json);
    std::fprintf(stderr, "cannbot: wrote the accepted kernel to %s\n", flags.out.c_str());
  }
  return report.found() ? kExitOk : kExitRejected;
}

}  // namespace

Command RegisterSuggest(CLI::App& app) {
  auto flags = std::make_shared<SuggestFlags>();
  CLI::App* cmd = app.add_subcommand("suggest", "Find a validated faster version of a kernel");
  cmd->add_option("file", flags->file, "Kernel source (C++)")->required();
  cmd->add_option("--op", flags->op, "Built-in op the kernel implements")->required();
  cmd->add_option("--profile", flags->profile, "Profiler output for this kernel");
  cmd->add_option("--format", flags->format,
                  "Profile format: auto, msprof, kernel_details, timeline, ncu, perf, json")
      ->capture_default_str();
  cmd->add_option("--kernel", flags->kernel, "Which kernel of a multi-kernel profile");
  cmd->add_option("--target", flags->target, "cpu, or ascendc (Ascend C on the emulation)")
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
  cmd->add_flag("--json", flags->json, "Print the report as JSON");
  cmd->add_option("--config", flags->config_file, "Config file (TOML or JSON)");
  cmd->add_option("--skills-dir", flags->skills_dirs, "Extra skills directory (repeatable)");
  cmd->add_option("--min-speedup", flags->min_speedup, "Lower 95% bound the speedup must clear")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--seed", flags->seed, "Seed for the validator's random inputs")
      ->each([flags](const std::string&) { flags->seed_given = true; });
  cmd->add_option("--db", flags->db, "Store file");
  cmd->add_option("--budget", flags->budget, "Offline: most recipe variants to try (default 24)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--time-budget", flags->time_budget,
                  "Seconds after which no new candidate is validated (default 900)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--server", flags->server,
                  "Run on a cannbot daemon (http://host:port) instead of in this process");
  cmd->add_option("--token", flags->token, "With --server: bearer token (default $CANNBOT_TOKEN)");
  return {cmd, [flags] { return Run(*flags); }};
}

}  // namespace cannbot::cli
