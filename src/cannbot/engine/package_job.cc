// Engine::RunPackage: a job that carries an Ascend C operator package instead of one kernel.
// The package goes through SuggestForPackage (engine/package_suggest.h) and comes back as the
// same report a kernel job gives, so the daemon, its job page, remote clients and the CI bot
// handle both alike: the original and every answer are the files in the form the model reads
// them (`File: <path>` and a fenced block each), an attempt's verdict is its slowest (or first
// failing) dtype combination's, and the diff is the package diff.
#include <chrono>
#include <optional>

#include "cannbot/engine/engine.h"
#include "cannbot/engine/package_suggest.h"
#include "cannbot/engine/providers.h"
#include "cannbot/target/registry.h"

namespace cannbot::engine {
namespace {

// The package's own check as one KernelCheck: the first combination that failed, else the
// first that passed; with nothing run, a failure that says why.
validator::KernelCheck AsKernelCheck(const PackageReport& report) {
  validator::KernelCheck out;
  for (const PackageRun& run : report.runs) {
    if (!run.check) continue;
    if (!run.check->ok) {
      out = *run.check;
      out.reason = run.combo.Describe() + ": " + out.reason;
      return out;
    }
    if (!out.ok) out = *run.check;
  }
  if (!out.ok) {
    out.layer = validator::Layer::kNumeric;
    out.reason = "no dtype combination of the package could run";
  }
  return out;
}

optimize::Attempt AsAttempt(const PackageAttempt& a) {
  optimize::Attempt out;
  out.round = a.round;
  out.origin = "llm round " + std::to_string(a.round + 1) + " answer " +
               std::to_string(a.sample + 1);
  out.response = a.answer;
  out.code = RenderPackageFiles(a.changes);
  out.outcome = a.changes.empty() ? "no code" : a.accepted ? "accepted" : "rejected";
  out.detail = a.reason;
  out.verdict = a.verdict;
  out.seconds = a.seconds;
  return out;
}

}  // namespace

Result<SuggestReport> Engine::RunPackage(const JobSpec& spec, const ops::OpSpec& op,
                                         Progress* progress) {
  const auto start = std::chrono::steady_clock::now();
  const target::Target& target = target::OrDefault(spec.target);
  config::Config config = JobConfig(spec.options);
  CANNBOT_ASSIGN_OR_RETURN(ProviderBundle bundle,
                           MakeProvider(config, *parts_.skills, parts_.store, *parts_.validator,
                                        op, target, {}, parts_.http));
  if (bundle.offline || bundle.chat == nullptr) {
    return Status::InvalidArgument(std::string("suggesting for ") +
                                   (spec.package_is_sample ? "a kernel-launch sample"
                                                           : "an operator package") +
                                   " needs a model (an LLM url and model): the offline recipes "
                                   "are written for single kernels");
  }
  PackageSuggestRequest request;
  request.op = op.name;
  if (spec.package_is_sample) {
    CANNBOT_ASSIGN_OR_RETURN(request.sample, ascendc::SampleFromFiles(spec.name, *spec.package));
    request.sample->defines = spec.sample_defines;
  } else {
    CANNBOT_ASSIGN_OR_RETURN(request.package, ascendc::PackageFromFiles(spec.name, *spec.package,
                                                                        spec.package_operator));
  }
  request.seed = spec.options.seed;
  request.min_speedup = spec.options.min_speedup;
  request.samples = config.loop.samples;
  request.rounds = config.loop.rounds;
  request.stop = progress != nullptr ? progress->StopFlag() : nullptr;
  request.on_attempt = [&](const PackageAttempt& a) {
    if (progress == nullptr) return;
    const optimize::Attempt attempt = AsAttempt(a);
    progress->OnEvent({optimize::ProgressEvent::Kind::kAttemptDone, a.round,
                       optimize::ProgressLine(attempt), &attempt});
  };
  // The package suggester finds the op by name: one sent with the job joins a copy of the
  // registry for this run.
  std::optional<ops::Registry> with_inline_op;
  if (parts_.registry->Find(op.name) != &op) {
    with_inline_op = *parts_.registry;
    CANNBOT_RETURN_IF_ERROR(with_inline_op->Add(op));
  }
  CANNBOT_ASSIGN_OR_RETURN(
      PackageSuggestion result,
      SuggestForPackage(*parts_.validator, with_inline_op ? *with_inline_op : *parts_.registry,
                        *parts_.skills, *bundle.chat, request));
  SuggestReport report;
  report.op = op.name;
  report.original_name = spec.name;
  report.original_code =
      RenderPackageFiles(request.sample ? request.sample->files : request.package.files);
  report.provider = bundle.provider->Describe();
  report.profile_source = "none: each dtype combination is judged by the cost model";
  report.kernel_check = AsKernelCheck(result.check);
  if (parts_.skills->Find(kPackageSkill) != nullptr) {
    report.skills.push_back(std::string(kPackageSkill) + ": the package is Ascend C");
  }
  for (const std::string& note : result.check.notes) report.notes.push_back(note);
  if (!spec.profile.empty()) {
    report.notes.push_back("the profile sent with the job was not used: a package's "
                           "combinations are each judged by the cost model");
  }
  for (const PackageRun& run : result.check.runs) {
    if (!run.skipped.empty()) {
      report.notes.push_back("skipped " + run.combo.Describe() + ": " + run.skipped);
    }
  }
  if (!report.kernel_check.ok) {
    report.notes.push_back("the package to optimise is not correct (" +
                           std::string(validator::LayerName(report.kernel_check.layer)) +
                           " layer): " + report.kernel_check.reason);
  }
  for (const PackageAttempt& a : result.attempts) report.attempts.push_back(AsAttempt(a));
  report.best = result.best;
  report.diff = result.diff;
  report.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace cannbot::engine
