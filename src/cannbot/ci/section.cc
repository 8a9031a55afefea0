#include "cannbot/ci/section.h"

#include <cstdio>

namespace cannbot::ci {
namespace {

KernelSection Base(const KernelJob& job) {
  KernelSection k;
  k.path = job.path;
  k.op = job.op;
  k.added = job.added;
  return k;
}

void AddDiagnosis(const diagnosis::Diagnosis& d, KernelSection* k) {
  for (const diagnosis::Finding& f : d.findings) {
    FindingSummary s{f.title, diagnosis::SeverityLabel(f.severity), f.summary, {}};
    for (const diagnosis::Evidence& e : f.evidence) s.evidence.push_back(e.Describe());
    k->findings.push_back(std::move(s));
  }
  k->unjudged = d.unjudged;
}

void AddTiming(const validator::PerfReport& perf, KernelSection* k) {
  k->has_timing = true;
  k->shape = perf.shape;
  auto timing = [](const validator::KernelTiming& t) {
    return Timing{t.median_seconds * 1e3, t.gbps, t.roofline_fraction};
  };
  k->before = timing(perf.baseline);
  k->after = timing(perf.candidate);
  k->speedup = perf.speedup;
  k->ci_low = perf.speedup_ci.low;
  k->ci_high = perf.speedup_ci.high;
  k->min_speedup = perf.min_speedup;
}

void AddBroken(const validator::KernelCheck& check, KernelSection* k) {
  k->status = KernelStatus::kBroken;
  k->broken_layer = check.layer;
  k->broken_reason = check.reason;
  if (check.layer == validator::Layer::kCompile) k->compile_log = check.compile.log;
  if (!check.numeric) return;
  for (const validator::NumericCase& c : check.numeric->cases) {
    if (c.problem.empty()) continue;
    k->broken_cases.push_back(c.label + " (" + c.shape + "): " + c.problem);
  }
}

// The attempt that came nearest to acceptance: the fastest one the perf gate timed.
const optimize::Attempt* Closest(const optimize::OptimizeReport& report) {
  const optimize::Attempt* best = nullptr;
  for (const optimize::Attempt& a : report.attempts) {
    if (!a.verdict || !a.verdict->perf || a.verdict->perf->rounds == 0) continue;
    if (best == nullptr || a.verdict->perf->speedup > best->verdict->perf->speedup) best = &a;
  }
  return best;
}

}  // namespace

KernelSection SectionFromReport(const KernelJob& job, const optimize::OptimizeReport& report) {
  KernelSection k = Base(job);
  k.seconds = report.seconds;
  for (const std::string& note : report.notes) {
    // How the search ended is the loop's business, not the pull request's.
    if (note.rfind("stopped early", 0) != 0) k.notes.push_back(note);
  }
  if (!report.kernel_check.ok) {
    AddBroken(report.kernel_check, &k);
    // The pipeline's own note repeats the verdict; the section already says it.
    k.notes.clear();
    return k;
  }
  k.profile_source = report.profile_source;
  AddDiagnosis(report.diagnosis, &k);
  k.attempts = static_cast<int>(report.attempts.size());
  if (const optimize::Attempt* best = report.Best()) {
    k.status = KernelStatus::kFaster;
    AddTiming(*best->verdict->perf, &k);
    k.origin = best->origin;
    k.explanation = best->explanation;
    k.diff = report.diff;
    return k;
  }
  k.status = KernelStatus::kNoFasterKernel;
  if (const optimize::Attempt* closest = Closest(report)) {
    AddTiming(*closest->verdict->perf, &k);
    k.closest = closest->origin + ": " + closest->detail;
  } else if (!report.attempts.empty()) {
    k.closest = report.attempts.back().origin + ": " + report.attempts.back().detail;
  }
  return k;
}

KernelSection SectionFromError(const KernelJob& job, const Status& status) {
  KernelSection k = Base(job);
  k.status = KernelStatus::kError;
  k.error = status.message();
  return k;
}

}  // namespace cannbot::ci
