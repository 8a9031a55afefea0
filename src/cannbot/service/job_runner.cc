#include "cannbot/service/job_runner.h"

#include <chrono>
#include <functional>
#include <thread>

namespace cannbot::service {
namespace {

using Json = nlohmann::json;
using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string LayerOf(const optimize::Attempt& a) {
  if (!a.verdict) return "none";
  return a.verdict->accepted ? "accepted" : validator::LayerName(a.verdict->layer);
}

Json AttemptJson(const optimize::Attempt& a, int index) {
  Json speedup = nullptr;
  if (a.verdict && a.verdict->perf && a.verdict->perf->rounds > 0) speedup = a.verdict->perf->speedup;
  return {{"index", index},       {"round", a.round},     {"origin", a.origin},
          {"outcome", a.outcome}, {"layer", LayerOf(a)},  {"speedup", speedup},
          {"detail", a.detail},   {"seconds", a.seconds}, {"explanation", a.explanation},
          {"code", a.code},       {"verdict", a.verdict ? a.verdict->ToJson() : Json(nullptr)}};
}

// Progress of one run: events, attempts and metrics, as they happen; the run's stop flag.
class Recorder : public engine::Progress {
 public:
  Recorder(const RunnerContext& context, std::string id, int run, const RunControl& control)
      : context_(context), id_(std::move(id)), run_(run), control_(control) {}

  const std::atomic<bool>* StopFlag() const override { return &control_.stop; }
  void OnLlmRound(double seconds) override { context_.metrics->llm_seconds->Observe({}, seconds); }

  void OnEvent(const optimize::ProgressEvent& event) override {
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
  const RunControl& control_;
  int attempts_ = 0;
};

Outcome OutcomeOf(const engine::SuggestReport& report, const RunControl& control) {
  Outcome outcome;
  outcome.report = report.ToJson();
  outcome.report_text = report.RenderText();
  outcome.found = report.found();
  if (const optimize::Attempt* best = report.Best()) outcome.speedup = best->verdict->perf->speedup;
  if (control.reason.load() == RunControl::kCancel) {
    outcome.state = JobState::kCancelled;
    outcome.error_code = "cancelled";
    outcome.error_message = "cancelled while running; the report holds the attempts made";
  } else if (!report.kernel_check.ok) {
    outcome.state = JobState::kFailed;
    outcome.error_code = "kernel_check_failed";
    outcome.error_message = "the kernel to optimise is not correct (" +
                            std::string(validator::LayerName(report.kernel_check.layer)) +
                            " layer): " + report.kernel_check.reason;
  }
  return outcome;
}

// Runs `write` until it succeeds or fails for a reason other than an unreachable store; a
// shared store's server may be restarting, and the run's result must not be lost to that.
Status Persistently(const std::function<Status()>& write) {
  constexpr int kTries = 60;  // a second apart: longer than a server takes to restart
  Status s;
  for (int i = 0; i < kTries; ++i) {
    s = write();
    if (s.code() != Status::Code::kUnavailable) return s;
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
  return s;
}

}  // namespace

Status JobRunner::Run(const std::string& id, RunControl& control) {
  CANNBOT_ASSIGN_OR_RETURN(bool started, context_.jobs->Start(id));
  if (!started) return Status::Ok();  // cancelled (or finished) while it waited
  context_.hub->Publish();
  return Execute(id, "", control);
}

Status JobRunner::RunClaimed(const ClaimedJob& job, const std::string& worker,
                             RunControl& control) {
  context_.hub->Publish();
  return Execute(job.id, worker, control);
}

Status JobRunner::Execute(const std::string& id, const std::string& worker,
                          RunControl& control) {
  CANNBOT_ASSIGN_OR_RETURN(std::optional<JobRecord> record, context_.jobs->Get(id));
  if (!record) return Status::Ok();  // pruned meanwhile
  const auto start = Clock::now();
  context_.log->info("job {}: run {} of {} started", id, record->runs, record->spec.op);

  Outcome outcome;
  Recorder recorder(context_, id, record->runs, control);
  Result<engine::SuggestReport> result = context_.engine->Run(record->spec, &recorder);

  if (control.reason.load() == RunControl::kLeaseLost) {
    context_.log->warn("job {}: another worker took it over (this worker's lease ran out); "
                       "this run's result is dropped", id);
    return Status::Ok();
  }
  if (control.reason.load() == RunControl::kShutdown) {
    CANNBOT_RETURN_IF_ERROR(Persistently([&] {
      return context_.jobs->Requeue(
          id, "checkpointed at shutdown; it runs again when a worker is free", worker);
    }));
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
  Status finished = Persistently([&] { return context_.jobs->Finish(id, outcome, worker); });
  if (finished.code() == Status::Code::kAborted) {  // the lease went to another worker
    context_.log->warn("job {}: {}", id, finished.message());
    return Status::Ok();
  }
  CANNBOT_RETURN_IF_ERROR(finished);
  context_.hub->Publish();
  const double seconds = SecondsSince(start);
  context_.metrics->finished->Add({{"state", StateName(outcome.state)}});
  context_.metrics->job_seconds->Observe({{"state", StateName(outcome.state)}}, seconds);
  context_.log->info("job {}: {} in {:.1f} s{}", id, StateName(outcome.state), seconds,
                     outcome.error_message.empty() ? "" : ": " + outcome.error_message);
  return Status::Ok();
}

}  // namespace cannbot::service
