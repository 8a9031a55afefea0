// SectionFromReport: an optimisation's report (run here, or read back from a daemon's JSON)
// into the comment's view of a kernel.
#include <gtest/gtest.h>

#include "cannbot/ci/section.h"

namespace cannbot::ci {
namespace {

KernelJob AddJob() {
  KernelJob job;
  job.path = "ops/add/add.cpp";
  job.op = "add";
  return job;
}

validator::PerfReport Perf(double speedup, int rounds) {
  validator::PerfReport perf;
  perf.shape = "n=4194304";
  perf.speedup = speedup;
  perf.speedup_ci = {speedup * 0.9, speedup * 1.1};
  perf.min_speedup = 1.05;
  perf.rounds = rounds;
  perf.baseline = {2e-3, 20.0, 0, 0.6, 1};
  perf.candidate = {2e-3 / speedup, 28.0, 0, 0.9, 1};
  return perf;
}

optimize::Attempt Attempt(const std::string& origin, bool accepted,
                          std::optional<validator::PerfReport> perf) {
  optimize::Attempt a;
  a.origin = origin;
  a.outcome = accepted ? "accepted" : "rejected";
  a.detail = a.outcome + " detail";
  a.explanation = "streams the output";
  validator::Verdict v;
  v.accepted = accepted;
  v.layer = accepted ? validator::Layer::kNone : validator::Layer::kPerf;
  v.perf = std::move(perf);
  a.verdict = v;
  return a;
}

optimize::OptimizeReport Report() {
  optimize::OptimizeReport r;
  r.op = "add";
  r.kernel_check.ok = true;
  r.profile_source = "self-profile on this CPU (no profile given)";
  diagnosis::Finding finding;
  finding.title = "memory-bandwidth bound";
  finding.severity = diagnosis::Severity::kWarning;
  finding.summary = "the kernel streams";
  r.diagnosis.findings.push_back(finding);
  r.diagnosis.unjudged = {"cache misses: needs l2_hit_rate"};
  r.notes = {"stopped early: the best kernel reaches 90% of the roofline", "a note"};
  r.attempts = {Attempt("recipe a", false, Perf(1.01, 12)), Attempt("recipe b", true, Perf(1.4, 12))};
  r.best = 1;
  r.diff = "--- ops/add/add.cpp\n+++ suggested/ops/add/add.cpp\n";
  r.seconds = 3.5;
  return r;
}

// The report as a remote client sees it: through the daemon's JSON and back.
optimize::OptimizeReport ThroughJson(const optimize::OptimizeReport& report) {
  auto back = optimize::OptimizeReport::FromJson(report.ToJson());
  EXPECT_TRUE(back.ok()) << back.status().ToString();
  return back.ok() ? *back : optimize::OptimizeReport{};
}

TEST(CiSectionTest, AnAcceptedReportBecomesAFasterSection) {
  for (const optimize::OptimizeReport& report : {Report(), ThroughJson(Report())}) {
    KernelSection k = SectionFromReport(AddJob(), report);
    EXPECT_EQ(k.status, KernelStatus::kFaster);
    EXPECT_EQ(k.path, "ops/add/add.cpp");
    EXPECT_EQ(k.origin, "recipe b");
    EXPECT_EQ(k.explanation, "streams the output");
    ASSERT_TRUE(k.has_timing);
    EXPECT_DOUBLE_EQ(k.speedup, 1.4);
    EXPECT_DOUBLE_EQ(k.ci_low, 1.4 * 0.9);
    EXPECT_DOUBLE_EQ(k.before.ms, 2.0);
    EXPECT_DOUBLE_EQ(k.after.gbps, 28.0);
    EXPECT_DOUBLE_EQ(k.min_speedup, 1.05);
    ASSERT_EQ(k.findings.size(), 1u);
    EXPECT_EQ(k.findings[0].title, "memory-bandwidth bound");
    EXPECT_EQ(k.unjudged.size(), 1u);
    EXPECT_EQ(k.notes, std::vector<std::string>{"a note"});  // how the search ended is left out
    EXPECT_EQ(k.attempts, 2);
    EXPECT_EQ(k.diff.rfind("--- ops/add/add.cpp", 0), 0u);
  }
}

TEST(CiSectionTest, NoAcceptedAttemptNamesTheClosestTimedOne) {
  optimize::OptimizeReport report = Report();
  report.best = -1;
  report.attempts = {Attempt("recipe slow", false, Perf(0.8, 12)),
                     Attempt("recipe near", false, Perf(1.03, 12)),
                     Attempt("recipe broken", false, std::nullopt)};
  KernelSection k = SectionFromReport(AddJob(), ThroughJson(report));
  EXPECT_EQ(k.status, KernelStatus::kNoFasterKernel);
  EXPECT_EQ(k.closest, "recipe near: rejected detail");
  EXPECT_DOUBLE_EQ(k.speedup, 1.03);
}

// The drift this replaced: a broken kernel reported through a daemon lost its per-shape cases.
TEST(CiSectionTest, ABrokenKernelKeepsItsCasesThroughTheDaemonsJson) {
  optimize::OptimizeReport report = Report();
  report.attempts.clear();
  report.best = -1;
  report.kernel_check.ok = false;
  report.kernel_check.layer = validator::Layer::kNumeric;
  report.kernel_check.reason = "wrong results";
  validator::NumericReport numeric;
  numeric.layer = validator::Layer::kNumeric;
  validator::NumericCase odd;
  odd.label = "odd";
  odd.shape = "n=1037";
  odd.problem = "12 of 1037 elements differ";
  numeric.cases = {odd};
  report.kernel_check.numeric = numeric;
  const KernelSection local = SectionFromReport(AddJob(), report);
  const KernelSection remote = SectionFromReport(AddJob(), ThroughJson(report));
  for (const KernelSection& k : {local, remote}) {
    EXPECT_EQ(k.status, KernelStatus::kBroken);
    EXPECT_EQ(k.broken_layer, validator::Layer::kNumeric);
    EXPECT_EQ(k.broken_reason, "wrong results");
    EXPECT_EQ(k.broken_cases, std::vector<std::string>{"odd (n=1037): 12 of 1037 elements differ"});
    EXPECT_TRUE(k.notes.empty());
  }
}

}  // namespace
}  // namespace cannbot::ci
