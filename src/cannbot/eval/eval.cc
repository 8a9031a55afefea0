#include "cannbot/eval/eval.h"

#include <chrono>
#include <ctime>
#include <filesystem>
#include <random>
#include <set>

#include "cannbot/llm/usage_meter.h"
#include "cannbot/util/data_dir.h"
#include "cannbot/util/fs.h"
#include "cannbot/validator/cpu_info.h"

namespace cannbot::eval {
namespace {

using Clock = std::chrono::steady_clock;

// An accepted kernel within this share of the roofline would end the loop early; an
// evaluation spends its whole budget on every op, so the bar is out of reach.
constexpr double kNoEarlyStop = 1000;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// "2025-01-01T12:00:00Z" for now.
std::string UtcNow() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

// "eval-20250101T120000Z-1a2b3c": sortable by time, unique across machines in practice.
std::string NewRunId(const std::string& started_at) {
  std::string compact;
  for (char c : started_at) {
    if (c != '-' && c != ':') compact += c;
  }
  char suffix[8];
  std::snprintf(suffix, sizeof(suffix), "%06x", std::random_device{}() & 0xffffffu);
  return "eval-" + compact + "-" + suffix;
}

std::string DescribeMachine() {
  const validator::CpuInfo cpu = validator::ReadCpuInfo();
  return (cpu.name.empty() ? std::string("unknown CPU") : cpu.name) + " (" +
         cpu.Microarchitecture() + ", " + std::to_string(cpu.logical_cpus) + " CPUs)";
}

std::string KnownNames(const ops::Registry& registry) {
  std::string ops_text, families_text;
  std::set<std::string> families;
  for (const ops::OpSpec& op : registry.ops()) {
    ops_text += (ops_text.empty() ? "" : ", ") + op.name;
    if (families.insert(op.family).second) {
      families_text += (families_text.empty() ? "" : ", ") + op.family;
    }
  }
  return "ops: " + ops_text + "; families: " + families_text;
}

Status CheckOptions(const EvalOptions& options) {
  if (options.server.empty()) {
    return Status::InvalidArgument("give the model server: --llm URL (or --llm offline)");
  }
  if (options.server != kOfflineServer && options.model.empty()) {
    return Status::InvalidArgument("an LLM URL needs a model name (--model)");
  }
  if (options.samples < 1 || options.samples > 16) {
    return Status::InvalidArgument("samples must be 1..16 (got " +
                                   std::to_string(options.samples) + ")");
  }
  if (options.rounds < 0 || options.rounds > 20) {
    return Status::InvalidArgument("rounds must be 0..20 (got " + std::to_string(options.rounds) +
                                   ")");
  }
  return Status::Ok();
}

engine::JobSpec OpJob(const EvalOptions& options, const EvalOp& op, std::string source) {
  engine::JobSpec spec;
  spec.op = op.spec->name;
  spec.source = std::move(source);
  spec.name = "examples/" + op.spec->name + "/naive.cpp";
  engine::JobOptions& o = spec.options;
  o.samples = options.samples;
  o.rounds = options.rounds;
  o.seed = options.seed;
  o.min_speedup = options.min_speedup;
  o.good_enough_roofline = kNoEarlyStop;
  o.llm = options.server == kOfflineServer
              ? engine::LlmChoice{true, "", ""}
              : engine::LlmChoice{false, options.server, options.model};
  return spec;
}

// Forwards each judged attempt of one op to the eval's progress.
class OpProgress : public engine::Progress {
 public:
  OpProgress(EvalProgress* progress, std::string op) : progress_(progress), op_(std::move(op)) {}
  void OnEvent(const optimize::ProgressEvent& event) override {
    if (progress_ != nullptr && event.kind == optimize::ProgressEvent::Kind::kAttemptDone &&
        event.attempt != nullptr) {
      progress_->OnAttempt(op_, *event.attempt);
    }
  }

 private:
  EvalProgress* progress_;
  std::string op_;
};

// One op through the engine; every failure becomes the op's.
OpScore RunOp(const EvalOptions& options, const EvalOp& op, engine::Engine& engine,
              const llm::UsageMeter& meter, EvalProgress* progress, std::string* provider) {
  const auto start = Clock::now();
  const llm::TokenCount before = meter.Read();
  OpScore score;
  auto source = ReadFile(op.naive_path, engine::kMaxSourceBytes);
  if (!source.ok()) {
    score = FailedOp(op.spec->name, source.status().message());
  } else {
    OpProgress op_progress(progress, op.spec->name);
    auto report = engine.Run(OpJob(options, op, std::move(source).value()), &op_progress);
    if (!report.ok()) {
      score = FailedOp(op.spec->name, report.status().message());
    } else if (!report->kernel_check.ok) {
      score = FailedOp(op.spec->name, "the naive kernel fails its own check (" +
                                          std::string(validator::LayerName(
                                              report->kernel_check.layer)) +
                                          " layer): " + report->kernel_check.reason);
    } else {
      score = ScoreReport(*report);
      if (provider->empty()) *provider = report->provider;
    }
  }
  const llm::TokenCount used = meter.Read().Minus(before);
  if (used.answers_with_usage > 0) score.tokens = TokenUsage{used.prompt, used.completion, used.total};
  score.family = op.spec->family;
  score.seconds = SecondsSince(start);
  return score;
}

}  // namespace

Result<std::vector<EvalOp>> SelectOps(const ops::Registry& registry,
                                      const std::vector<std::string>& names,
                                      const std::string& examples_dir) {
  auto naive = [&](const ops::OpSpec& op) { return examples_dir + "/" + op.name + "/naive.cpp"; };
  auto has_naive = [&](const ops::OpSpec& op) { return std::filesystem::exists(naive(op)); };
  std::vector<EvalOp> selected;
  std::set<std::string> seen;
  auto add = [&](const ops::OpSpec& op) {
    if (seen.insert(op.name).second) selected.push_back({&op, naive(op)});
  };
  if (names.empty()) {
    for (const ops::OpSpec& op : registry.ops()) {
      if (has_naive(op)) add(op);
    }
    return selected;
  }
  for (const std::string& name : names) {
    if (const ops::OpSpec* op = registry.Find(name)) {
      if (!has_naive(*op)) {
        return Status::InvalidArgument("op " + name + " has no naive kernel to start from (" +
                                       naive(*op) + ")");
      }
      add(*op);
      continue;
    }
    bool family = false;
    for (const ops::OpSpec& op : registry.ops()) {
      if (op.family != name) continue;
      family = true;
      if (has_naive(op)) add(op);
    }
    if (!family) {
      return Status::InvalidArgument("--ops: '" + name + "' is neither an op nor a family (" +
                                     KnownNames(registry) + ")");
    }
  }
  return selected;
}

Result<EvalRun> RunEval(const EvalOptions& options, engine::Engine& engine,
                        EvalProgress* progress) {
  CANNBOT_RETURN_IF_ERROR(CheckOptions(options));
  const std::string examples =
      options.examples_dir.empty() ? DataPath("examples") : options.examples_dir;
  CANNBOT_ASSIGN_OR_RETURN(std::vector<EvalOp> ops,
                           SelectOps(engine.registry(), options.ops, examples));
  if (ops.empty()) return Status::InvalidArgument("no op to evaluate (none has a naive kernel)");

  const bool offline = options.server == kOfflineServer;
  EvalRun run;
  run.started_at = UtcNow();
  run.id = NewRunId(run.started_at);
  run.model = offline ? "offline recipes" : options.model;
  run.server = options.server;
  run.machine = DescribeMachine();
  run.samples = options.samples;
  run.rounds = options.rounds;
  run.seed = options.seed;
  run.min_speedup = options.min_speedup;
  const auto start = Clock::now();

  std::unique_ptr<llm::HttpClient> curl = llm::NewCurlHttpClient();
  llm::UsageMeter meter(curl.get());
  engine.UseHttpClient(&meter);
  for (size_t i = 0; i < ops.size(); ++i) {
    if (progress != nullptr) progress->OnOpStart(ops[i].spec->name, i, ops.size());
    run.ops.push_back(RunOp(options, ops[i], engine, meter, progress, &run.provider));
    if (progress != nullptr) progress->OnOpDone(run.ops.back());
  }
  engine.UseHttpClient(nullptr);
  run.seconds = SecondsSince(start);
  return run;
}

}  // namespace cannbot::eval
