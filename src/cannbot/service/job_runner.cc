#include "cannbot/service/job_runner.h"

#include <chrono>

#include "cannbot/app/providers.h"
#include "cannbot/optimize/pipeline.h"

namespace cannbot::service {
namespace {

using Json = nlohmann::json;
using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Times each round of an LLM provider's proposals for cannbot_llm_request_seconds.
class TimedProvider : public optimize::Provider {
 public:
  TimedProvider(optimize::Provider* inner, MetricFamily* seconds)
      : inner_(inner), seconds_(seconds) {}
  std::string Describe() const override { return inner_->Describe(); }
  Result<std::vector<optimize::Proposal>> Propose(const optimize::ProposalRequest& r) override {
    const auto start = Clock::now();
    auto proposals = inner_->Propose(r);
    seconds_->Observe({}, SecondsSince(start));
    return proposals;
  }
  void Finish(const std::string& best_code, double speedup) override {
    inner_->Finish(best_code, speedup);
  }

 private:
  optimize::Provider* inner_;
  MetricFamily* seconds_;
};

std::string LayerOf(const optimize::Attempt& a) {
  if (!a.verdict) return "none";
  return a.verdict->accepted ? "accepted" : a.verdict->layer;
}

Json AttemptJson(const optimize::Attempt& a, int index) {
  Json speedup = nullptr;
  if (a.verdict && a.verdict->perf && a.verdict->perf->rounds > 0) speedup = a.verdict->perf->speedup;
  return {{"index", index},       {"round", a.round},     {"origin", a.origin},
          {"outcome", a.outcome}, {"layer", LayerOf(a)},  {"speedup", speedup},
          {"detail", a.detail},   {"seconds", a.seconds}, {"explanation", a.explanation},
          {"code", a.code},       {"verdict", a.verdict ? a.verdict->ToJson() : Json(nullptr)}};
}

// The job's request as the pipeline takes it. InvalidArgument for a bad profile format
// (checked at submission already; kept for jobs stored by an older daemon).
Result<optimize::SuggestRequest> MakeRequest(const JobSpec& spec) {
  optimize::SuggestRequest request;
  request.op = spec.op;
  request.kernel = {spec.name, spec.source};
  request.profile_text = spec.profile;
  CANNBOT_ASSIGN_OR_RETURN(request.profile_options.format, profile::ParseFormat(spec.profile_format));
  request.profile_kernel = spec.profile_kernel;
  request.target = spec.target;
  request.seed = spec.options.seed;
  return request;
}

// Progress of one run: events, attempts and metrics, as they happen.
class Recorder {
 public:
  Recorder(const RunnerContext& context, std::string id, int run)
      : context_(context), id_(std::move(id)), run_(run) {}

  void operator()(const optimize::ProgressEvent& event) {
    using Kind = optimize::ProgressEvent::Kind;
    Json data = {{"round", event.round}, {"text", event.text}};
    const char* type = event.kind == Kind::kAsking ? "asking" : "validating";
    if (event.kind == Kind::kAttemptDone && event.attempt != nullptr) {
      type = "attempt";
      const optimize::Attempt& a = *event.attempt;
      Json attempt = AttemptJson(a, attempts_);
      Log(context_.jobs->AddAttempt(id_, run_, attempts_, attempt));
      ++attempts_;
      for (const char* key : {"index", "origin", "outcome", "layer", "speedup", "detail", "seconds"}) {
        data[key] = attempt[key];
      }
      context_.metrics->attempts->Add({{"outcome", a.outcome}, {"layer", LayerOf(a)}});
      if (a.verdict) context_.metrics->validation_seconds->Observe({}, a.seconds);
    }
    Log(context_.jobs->AppendEvent(id_, type, data).status());
    context_.hub->Publish();
  }

 private:
  void Log(const Status& s) {
    if (!s.ok()) context_.log->error("job {}: cannot record progress: {}", id_, s.ToString());
  }
  const RunnerContext& context_;
  std::string id_;
  int run_;
  int attempts_ = 0;
};

Outcome OutcomeOf(const optimize::SuggestResult& result, const RunControl& control) {
  const optimize::OptimizeReport& report = result.report;
  Outcome outcome;
  Json json = report.ToJson();
  json["kernel_check"] = {{"ok", result.kernel_check.ok},
                          {"layer", result.kernel_check.layer},
                          {"reason", result.kernel_check.reason}};
  outcome.report = json;
  outcome.report_text = report.RenderText();
  outcome.found = report.found();
  if (const optimize::Attempt* best = report.Best()) outcome.speedup = best->verdict->perf->speedup;
  if (control.reason.load() == RunControl::kCancel) {
    outcome.state = JobState::kCancelled;
    outcome.error_code = "cancelled";
    outcome.error_message = "cancelled while running; the report holds the attempts made";
  } else if (!result.kernel_check.ok) {
    outcome.state = JobState::kFailed;
    outcome.error_code = "kernel_check_failed";
    outcome.error_message = "the kernel to optimise is not correct (" +
                            result.kernel_check.layer + " layer): " + result.kernel_check.reason;
  }
  return outcome;
}

}  // namespace

config::Config JobRunner::JobConfig(const config::Config& base, const JobOptions& options) {
  config::Config c = base;
  if (options.llm) {
    if (options.llm->offline) {
      c.llm.base_url.clear();
    } else {
      if (!options.llm->url.empty()) c.llm.base_url = options.llm->url;
      if (!options.llm->model.empty()) c.llm.model = options.llm->model;
    }
  }
  if (options.samples) c.loop.samples = *options.samples;
  // Offline, the recipes' parameter search decides how many rounds it needs (as the CLI).
  if (options.rounds) c.loop.rounds = *options.rounds;
  else if (c.llm.base_url.empty()) c.loop.rounds = 8;
  if (options.min_speedup) c.loop.min_speedup = *options.min_speedup;
  if (options.time_budget_seconds) c.loop.time_budget_seconds = *options.time_budget_seconds;
  return c;
}

Status JobRunner::Run(const std::string& id, RunControl& control) {
  CANNBOT_ASSIGN_OR_RETURN(bool started, context_.jobs->Start(id));
  if (!started) return Status::Ok();  // cancelled (or finished) while it waited
  context_.hub->Publish();
  CANNBOT_ASSIGN_OR_RETURN(std::optional<JobRecord> record, context_.jobs->Get(id));
  if (!record) return Status::Ok();  // pruned meanwhile
  const auto start = Clock::now();
  context_.log->info("job {}: run {} of {} started", id, record->runs, record->spec.op);

  Outcome outcome;
  Result<optimize::SuggestResult> result = Status::Internal("not run");
  config::Config config = JobConfig(*context_.config, record->spec.options);
  config.loop.stop = &control.stop;
  optimize::OfflineConfig offline;
  if (record->spec.options.budget) offline.max_variants = *record->spec.options.budget;
  auto request = MakeRequest(record->spec);
  auto bundle = request.ok() ? app::MakeProvider(config, *context_.skills, context_.store,
                                                 *context_.validator, record->spec.op, offline)
                             : Result<app::ProviderBundle>(request.status());
  if (bundle.ok()) {
    TimedProvider timed(bundle->provider.get(), context_.metrics->llm_seconds);
    optimize::Provider* provider = bundle->offline ? bundle->provider.get() : &timed;
    optimize::SuggestContext suggest{context_.validator, provider, context_.skills,
                                     context_.store, config.loop};
    result = optimize::Suggest(*request, suggest, Recorder(context_, id, record->runs));
  } else {
    result = bundle.status();
  }

  if (control.reason.load() == RunControl::kShutdown) {
    CANNBOT_RETURN_IF_ERROR(context_.jobs->Requeue(
        id, "checkpointed at shutdown; it runs again when the daemon restarts"));
    context_.hub->Publish();
    context_.log->info("job {}: checkpointed at shutdown", id);
    return Status::Ok();
  }
  if (result.ok()) {
    outcome = OutcomeOf(*result, control);
  } else if (control.reason.load() == RunControl::kCancel) {
    outcome.state = JobState::kCancelled;
    outcome.error_code = "cancelled";
    outcome.error_message = "cancelled while running: " + result.status().message();
  } else {
    outcome.state = JobState::kFailed;
    outcome.error_code = Status::CodeName(result.status().code());
    outcome.error_message = result.status().message();
  }
  CANNBOT_RETURN_IF_ERROR(context_.jobs->Finish(id, outcome));
  context_.hub->Publish();
  const double seconds = SecondsSince(start);
  context_.metrics->finished->Add({{"state", StateName(outcome.state)}});
  context_.metrics->job_seconds->Observe({{"state", StateName(outcome.state)}}, seconds);
  context_.log->info("job {}: {} in {:.1f} s{}", id, StateName(outcome.state), seconds,
                     outcome.error_message.empty() ? "" : ": " + outcome.error_message);
  return Status::Ok();
}

}  // namespace cannbot::service
