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
  if (check.layer == "compile") k->compile_log = check.compile.log;
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

KernelSection SectionFromSuggest(const KernelJob& job, const optimize::SuggestResult& result) {
  const optimize::OptimizeReport& report = result.report;
  KernelSection k = Base(job);
  k.seconds = report.seconds;
  for (const std::string& note : report.notes) {
    // How the search ended is the loop's business, not the pull request's.
    if (note.rfind("stopped early", 0) != 0) k.notes.push_back(note);
  }
  if (!result.kernel_check.ok) {
    AddBroken(result.kernel_check, &k);
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

namespace {

using Json = nlohmann::json;

std::string Text(const Json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>()
                                                                : std::string();
}

double Number(const Json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_number() ? j[key].get<double>() : 0.0;
}

const Json& Field(const Json& j, const char* key) {
  static const Json kNull;
  return j.is_object() && j.contains(key) ? j[key] : kNull;
}

std::vector<std::string> Texts(const Json& list) {
  std::vector<std::string> out;
  if (!list.is_array()) return out;
  for (const Json& item : list) {
    if (item.is_string()) out.push_back(item.get<std::string>());
  }
  return out;
}

void AddDiagnosisJson(const Json& diagnosis, KernelSection* k) {
  const Json& findings = Field(diagnosis, "findings");
  if (findings.is_array()) {
    for (const Json& f : findings) {
      FindingSummary s{Text(f, "title"), Text(f, "severity"), Text(f, "summary"), {}};
      const Json& evidence = Field(f, "evidence");
      if (evidence.is_array()) {
        for (const Json& e : evidence) s.evidence.push_back(Text(e, "text"));
      }
      k->findings.push_back(std::move(s));
    }
  }
  k->unjudged = Texts(Field(diagnosis, "unjudged"));
}

// The perf layer's JSON (validator/verdict.cc) into the section's before/after table.
void AddTimingJson(const Json& perf, KernelSection* k) {
  if (!perf.is_object() || Number(perf, "rounds") <= 0) return;
  k->has_timing = true;
  k->shape = Text(perf, "shape");
  auto timing = [](const Json& t) {
    return Timing{Number(t, "median_ms"), Number(t, "gbps"), Number(t, "roofline_fraction")};
  };
  k->before = timing(Field(perf, "baseline"));
  k->after = timing(Field(perf, "candidate"));
  k->speedup = Number(perf, "speedup");
  const Json& ci = Field(perf, "ci95");
  if (ci.is_array() && ci.size() == 2 && ci[0].is_number() && ci[1].is_number()) {
    k->ci_low = ci[0].get<double>();
    k->ci_high = ci[1].get<double>();
  }
  k->min_speedup = Number(perf, "min_speedup");
}

const Json& PerfOf(const Json& attempt) { return Field(Field(attempt, "verdict"), "perf"); }

}  // namespace

KernelSection SectionFromReportJson(const KernelJob& job, const Json& report) {
  KernelSection k = Base(job);
  k.seconds = Number(report, "seconds");
  for (const std::string& note : Texts(Field(report, "notes"))) {
    if (note.rfind("stopped early", 0) != 0) k.notes.push_back(note);
  }
  const Json& check = Field(report, "kernel_check");
  if (!check.is_object() || !check.value("ok", false)) {
    k.status = KernelStatus::kBroken;
    k.broken_layer = Text(check, "layer");
    k.broken_reason = Text(check, "reason");
    k.notes.clear();
    return k;
  }
  k.profile_source = Text(report, "profile_source");
  AddDiagnosisJson(Field(report, "diagnosis"), &k);
  const Json& attempts = Field(report, "attempts");
  k.attempts = attempts.is_array() ? static_cast<int>(attempts.size()) : 0;
  const Json& best_index = Field(report, "best_attempt");
  if (report.value("found", false) && best_index.is_number_integer() && attempts.is_array() &&
      best_index.get<int64_t>() >= 0 && best_index.get<size_t>() < attempts.size()) {
    const Json& best = attempts[best_index.get<size_t>()];
    k.status = KernelStatus::kFaster;
    AddTimingJson(PerfOf(best), &k);
    k.origin = Text(best, "origin");
    k.explanation = Text(best, "explanation");
    k.diff = Text(report, "diff");
    return k;
  }
  k.status = KernelStatus::kNoFasterKernel;
  const Json* closest = nullptr;
  if (attempts.is_array()) {
    for (const Json& a : attempts) {
      const Json& perf = PerfOf(a);
      if (Number(perf, "rounds") <= 0) continue;
      if (closest == nullptr || Number(perf, "speedup") > Number(PerfOf(*closest), "speedup")) {
        closest = &a;
      }
    }
  }
  if (closest != nullptr) {
    AddTimingJson(PerfOf(*closest), &k);
    k.closest = Text(*closest, "origin") + ": " + Text(*closest, "detail");
  } else if (attempts.is_array() && !attempts.empty()) {
    k.closest = Text(attempts.back(), "origin") + ": " + Text(attempts.back(), "detail");
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
