// Engine: the one composition root of an optimisation. The CLI (`cannbot suggest`), the
// daemon's job runner and the CI bot all build a JobSpec and call Engine::Run; remote clients
// send the JobSpec to a daemon, whose Engine runs it, and get the same report back.
//
//   JobSpec -> op (from the engine's registry) and target -> the user's kernel through compile
//   + numeric -> profile (the uploaded one, else self-measured where the target runs here)
//   -> diagnosis -> skills -> provider (LLM or offline recipes) -> the generate / validate /
//   repair loop -> SuggestReport
//
// A JobSpec with an Ascend C operator package instead of a kernel goes to the package
// suggester (engine/package_suggest.h) and comes back as the same SuggestReport.
//
// A kernel that fails its own check is not an error: the report says so (kernel_check), since
// telling an author that their change broke the numbers is itself worth a report.
//
// Ownership: an Engine either borrows its parts (EngineParts: the daemon shares its store,
// validator and skills with its other routes) or owns them (Open). Thread-safety: Run may be
// called from several threads at once; each run makes its own provider, and the Validator
// serialises timings.
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cannbot/config/config.h"
#include "cannbot/engine/job_spec.h"
#include "cannbot/llm/http_client.h"
#include "cannbot/ops/registry.h"
#include "cannbot/optimize/loop.h"
#include "cannbot/optimize/report.h"
#include "cannbot/skills/skill.h"
#include "cannbot/store/store.h"
#include "cannbot/validator/validator.h"

namespace cannbot::engine {

using SuggestReport = optimize::OptimizeReport;

// What a caller hears while a job runs, and how it stops one.
class Progress {
 public:
  virtual ~Progress() = default;
  virtual void OnEvent(const optimize::ProgressEvent& event) = 0;
  // Seconds one round of an LLM's proposals took (never called for the offline recipes).
  virtual void OnLlmRound(double seconds) { (void)seconds; }
  // Set by another thread to stop early (no new validation starts); null = never.
  virtual const std::atomic<bool>* StopFlag() const { return nullptr; }
};

// Progress that forwards events to a function (may be empty).
class ProgressFunction : public Progress {
 public:
  explicit ProgressFunction(optimize::ProgressFn fn) : fn_(std::move(fn)) {}
  void OnEvent(const optimize::ProgressEvent& event) override {
    if (fn_) fn_(event);
  }

 private:
  optimize::ProgressFn fn_;
};

struct EngineParts {
  const config::Config* config = nullptr;  // defaults a JobSpec's options override
  const ops::Registry* registry = nullptr;
  validator::Validator* validator = nullptr;
  const skills::SkillLibrary* skills = nullptr;
  store::Store* store = nullptr;  // the offline search's memory; may be null
  // Every LLM request goes through it (a meter, a test double); null = a libcurl client per
  // job. Must allow concurrent Send() when runs overlap.
  llm::HttpClient* http = nullptr;
};

class Engine {
 public:
  explicit Engine(EngineParts parts) : parts_(parts) {}

  // Opens the configured store, builds the validator and loads the skills (their problems go
  // to `warnings`); the engine owns them and the copy of `config` and `registry`, to which
  // the specs of config.ops_dirs are added (a bad spec is an error naming its file).
  static Result<std::unique_ptr<Engine>> Open(const config::Config& config,
                                              ops::Registry registry,
                                              std::vector<std::string>* warnings);

  // One optimisation. Errors: NotFound (op not in the registry, naming the known ones),
  // InvalidArgument (a bad inline op spec, an unreadable profile, an LLM without a model, a
  // reference that does not build or run), and the provider's failure when it produced
  // nothing at all. `progress` may be null.
  Result<SuggestReport> Run(const JobSpec& spec, Progress* progress = nullptr);

  // The configuration a job runs with: the engine's defaults with the job's options applied.
  config::Config JobConfig(const JobOptions& options) const;

  const ops::Registry& registry() const { return *parts_.registry; }
  validator::Validator& validator() { return *parts_.validator; }
  const skills::SkillLibrary& skills() const { return *parts_.skills; }
  store::Store* store() { return parts_.store; }
  const config::Config& config() const { return *parts_.config; }
  // Routes later jobs' LLM requests through `http` (borrowed; null = libcurl per job). Not
  // while a Run is in flight.
  void UseHttpClient(llm::HttpClient* http) { parts_.http = http; }

  // The job's op: the registry's (NotFound naming the known ones), or the spec sent with it,
  // parsed into `inline_op` (InvalidArgument when it is bad or clashes with a known op).
  Result<const ops::OpSpec*> ResolveOp(const JobSpec& spec,
                                       std::optional<ops::OpSpec>* inline_op) const;

 private:
  struct Owned;

  // A job with a package (engine/package_job.cc).
  Result<SuggestReport> RunPackage(const JobSpec& spec, const ops::OpSpec& op, Progress* progress);

  EngineParts parts_;
  std::shared_ptr<Owned> owned_;  // what Open made; null when borrowing
};

// The op called `name` in `registry`; NotFound naming the known ops otherwise.
Result<const ops::OpSpec*> FindOp(const ops::Registry& registry, const std::string& name);

}  // namespace cannbot::engine
