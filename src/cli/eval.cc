// `cannbot eval`: how good is a model server at writing kernels (docs/eval.md). Runs the
// selected ops' naive kernels through the model with a fixed budget, prints the table (or the
// JSON document), writes the HTML page, stores the run for the leaderboard; `--compare`
// puts two runs side by side, `--list` prints the leaderboard.
#include <unistd.h>

#include <cstdio>
#include <memory>

#include "cannbot/config/config.h"
#include "cannbot/engine/engine.h"
#include "cannbot/eval/eval.h"
#include "cannbot/eval/eval_store.h"
#include "cannbot/eval/render.h"
#include "cannbot/util/fs.h"
#include "cli/commands.h"

namespace cannbot::cli {
namespace {

struct EvalFlags {
  std::string llm;
  std::string model;
  std::vector<std::string> ops;
  int samples = 2;
  int rounds = 1;
  uint64_t seed = 0;
  bool seed_given = false;
  double min_speedup = 0;
  bool json = false;
  std::string html;
  std::string out;
  bool no_store = false;
  std::string evals_db;
  std::string db;
  std::string config_file;
  bool insecure_sandbox = false;
  std::vector<std::string> compare;  // two runs: files or stored ids
  bool list = false;
  int limit = 20;
};

std::string JsonText(const nlohmann::json& json) {
  return json.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

Result<config::Config> BuildConfig(const EvalFlags& flags) {
  config::Config config;
  if (!flags.config_file.empty()) CANNBOT_RETURN_IF_ERROR(config::LoadFile(flags.config_file, &config));
  CANNBOT_RETURN_IF_ERROR(config::ApplyEnvironment(&config));
  if (flags.insecure_sandbox) config.insecure_sandbox = true;
  if (!flags.db.empty()) config.db = flags.db;
  return config;
}

std::string EvalsDbPath(const EvalFlags& flags, const config::Config& config) {
  return flags.evals_db.empty() ? eval::EvalStore::DefaultPath(config.db) : flags.evals_db;
}

// Lines on stderr while the run goes on.
class StderrProgress : public eval::EvalProgress {
 public:
  void OnOpStart(const std::string& op, size_t index, size_t count) override {
    std::fprintf(stderr, "[%zu/%zu] %s\n", index + 1, count, op.c_str());
  }
  void OnAttempt(const std::string&, const optimize::Attempt& attempt) override {
    std::fprintf(stderr, "  %s\n", optimize::ProgressLine(attempt).c_str());
  }
  void OnOpDone(const eval::OpScore& score) override {
    if (score.failed()) {
      std::fprintf(stderr, "  %s failed: %s\n", score.op.c_str(), score.error.c_str());
    } else {
      std::fprintf(stderr, "  %s: %d/%d correct, best %s (%.1f s)\n", score.op.c_str(),
                   score.correct, score.candidates, eval::SpeedupText(score.best_speedup).c_str(),
                   score.seconds);
    }
  }
};

// A run from a JSON file, else from the eval store by id.
Result<eval::EvalRun> LoadRun(const std::string& what, const EvalFlags& flags,
                              const config::Config& config) {
  if (PathExists(what)) {
    CANNBOT_ASSIGN_OR_RETURN(std::string text, ReadFile(what, size_t{256} << 20));
    const auto json = nlohmann::json::parse(text, nullptr, false);
    if (json.is_discarded()) return Status::InvalidArgument(what + " is not a JSON document");
    return eval::EvalRun::FromJson(json, what);
  }
  CANNBOT_ASSIGN_OR_RETURN(auto store, eval::EvalStore::Open(EvalsDbPath(flags, config)));
  auto run = store->Get(what);
  if (!run.ok() && run.status().code() == Status::Code::kNotFound) {
    return Status::NotFound(what + " is neither a run file nor a stored run id (see "
                                   "`cannbot eval --list`)");
  }
  return run;
}

int Compare(const EvalFlags& flags, const config::Config& config) {
  auto a = LoadRun(flags.compare[0], flags, config);
  if (!a.ok()) return ReportError(a.status(), flags.json);
  auto b = LoadRun(flags.compare[1], flags, config);
  if (!b.ok()) return ReportError(b.status(), flags.json);
  std::printf("%s", flags.json ? JsonText(eval::ComparisonToJson(*a, *b)).c_str()
                               : eval::RenderComparison(*a, *b).c_str());
  return kExitOk;
}

int List(const EvalFlags& flags, const config::Config& config) {
  auto store = eval::EvalStore::Open(EvalsDbPath(flags, config));
  if (!store.ok()) return ReportError(store.status(), flags.json);
  auto board = (*store)->List(flags.limit);
  if (!board.ok()) return ReportError(board.status(), flags.json);
  if (flags.json) {
    nlohmann::json rows = nlohmann::json::array();
    for (const eval::EvalSummary& s : *board) rows.push_back(s.ToJson());
    std::printf("%s", JsonText({{"evals", rows}}).c_str());
    return kExitOk;
  }
  std::printf("%-34s %-24s %-20s %4s %7s %7s %7s %6s\n", "run", "model", "date", "ops", "correct",
              "fast_1", "fast_2", "cheats");
  for (const eval::EvalSummary& s : *board) {
    std::printf("%-34s %-24.24s %-20s %4d %7s %7s %7s %6d\n", s.id.c_str(), s.model.c_str(),
                s.started_at.c_str(), s.ops, eval::Percent(s.correct_rate).c_str(),
                eval::Percent(s.fast_1).c_str(), eval::Percent(s.fast_2).c_str(), s.cheats);
  }
  return kExitOk;
}

// --out, --html and the store; a failure here is reported but the run stands.
int Record(const EvalFlags& flags, const config::Config& config, const eval::EvalRun& run) {
  int code = kExitOk;
  if (!flags.out.empty()) {
    if (Status s = WriteFile(flags.out, JsonText(run.ToJson())); !s.ok()) code = ReportError(s, false);
  }
  if (!flags.html.empty()) {
    if (Status s = WriteFile(flags.html, eval::RenderHtml(run)); !s.ok()) code = ReportError(s, false);
  }
  if (!flags.no_store) {
    auto store = eval::EvalStore::Open(EvalsDbPath(flags, config));
    Status saved = store.ok() ? (*store)->Save(run) : store.status();
    if (!saved.ok()) {
      std::fprintf(stderr, "cannbot: warning: the run was not stored: %s\n",
                   saved.message().c_str());
    } else {
      std::fprintf(stderr, "cannbot: stored run %s in %s\n", run.id.c_str(),
                   (*store)->path().c_str());
    }
  }
  return code;
}

int Run(const EvalFlags& flags, const ops::Registry& registry) {
  auto config = BuildConfig(flags);
  if (!config.ok()) return ReportError(config.status(), flags.json);
  if (!flags.compare.empty()) return Compare(flags, *config);
  if (flags.list) return List(flags, *config);
  std::vector<std::string> warnings;
  auto engine = engine::Engine::Open(*config, registry, &warnings);
  if (!engine.ok()) return ReportError(engine.status(), flags.json);
  for (const std::string& w : warnings) std::fprintf(stderr, "cannbot: warning: %s\n", w.c_str());
  eval::EvalOptions options;
  options.server = flags.llm;
  options.model = flags.model;
  options.ops = flags.ops;
  options.samples = flags.samples;
  options.rounds = flags.rounds;
  if (flags.seed_given) options.seed = flags.seed;
  if (flags.min_speedup > 0) options.min_speedup = flags.min_speedup;
  StderrProgress progress;
  auto run = eval::RunEval(options, **engine, &progress);
  if (!run.ok()) return ReportError(run.status(), flags.json);
  std::printf("%s", flags.json ? JsonText(run->ToJson()).c_str() : eval::RenderTable(*run).c_str());
  std::fflush(stdout);  // before the store's line reaches stderr
  if (Record(flags, *config, *run) != kExitOk) return kExitError;
  return run->totals().ops_failed > 0 ? kExitRejected : kExitOk;
}

}  // namespace

Command RegisterEval(CLI::App& app, const ops::Registry& registry) {
  auto flags = std::make_shared<EvalFlags>();
  CLI::App* cmd = app.add_subcommand(
      "eval", "Measure a model server at writing kernels: compile/correct rates, fast_p, cheats");
  cmd->add_option("--llm", flags->llm,
                  "OpenAI-compatible base URL (http://127.0.0.1:8000/v1), or `offline` for the "
                  "offline recipes as a baseline");
  cmd->add_option("--model", flags->model, "Model name on that server");
  cmd->add_option("--ops", flags->ops,
                  "Ops or families to evaluate, in order (default: every op with a naive kernel)")
      ->delimiter(',');
  cmd->add_option("--samples", flags->samples, "Candidates per round")
      ->capture_default_str()->check(CLI::Range(1, 16));
  cmd->add_option("--rounds", flags->rounds, "Repair rounds after the first")
      ->capture_default_str()->check(CLI::Range(0, 20));
  cmd->add_option("--seed", flags->seed, "Seed for the validator's random inputs")
      ->each([flags](const std::string&) { flags->seed_given = true; });
  cmd->add_option("--min-speedup", flags->min_speedup,
                  "Lower 95% bound a kernel's speedup must clear to be accepted")
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--json", flags->json, "Print the run as JSON");
  cmd->add_option("--html", flags->html, "Write a self-contained HTML page of the run here");
  cmd->add_option("--out", flags->out, "Write the run's JSON document here (for --compare)");
  cmd->add_flag("--no-store", flags->no_store, "Do not keep the run in the eval store");
  cmd->add_option("--evals-db", flags->evals_db,
                  "The eval store file (default: evals.db beside the store file)");
  cmd->add_option("--db", flags->db, "Store file (compile cache, machine model)");
  cmd->add_option("--config", flags->config_file, "Config file (TOML or JSON)");
  AddInsecureSandboxFlag(cmd, &flags->insecure_sandbox);
  cmd->add_option("--compare", flags->compare,
                  "Two runs side by side: run JSON files (--out) or stored run ids")
      ->expected(2);
  cmd->add_flag("--list", flags->list, "Print the stored runs, best fast_1 first");
  cmd->add_option("--limit", flags->limit, "With --list: at most this many runs")
      ->capture_default_str()->check(CLI::NonNegativeNumber);
  return {cmd, [flags, &registry] { return Run(*flags, registry); }};
}

}  // namespace cannbot::cli
