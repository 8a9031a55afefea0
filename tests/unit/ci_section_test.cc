// SectionFromReportJson: a daemon job's report document into the comment's view of a kernel.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cannbot/ci/section.h"

namespace cannbot::ci {
namespace {

using Json = nlohmann::json;

KernelJob AddJob() {
  KernelJob job;
  job.path = "ops/add/add.cpp";
  job.op = "add";
  return job;
}

Json Perf(double speedup, int rounds) {
  return {{"shape", "n=4194304"},
          {"speedup", speedup},
          {"ci95", {speedup * 0.9, speedup * 1.1}},
          {"min_speedup", 1.05},
          {"rounds", rounds},
          {"baseline", {{"median_ms", 2.0}, {"gbps", 20.0}, {"roofline_fraction", 0.6}}},
          {"candidate", {{"median_ms", 2.0 / speedup}, {"gbps", 28.0}, {"roofline_fraction", 0.9}}}};
}

Json Attempt(const std::string& origin, const std::string& outcome, const Json& perf) {
  return {{"origin", origin},
          {"outcome", outcome},
          {"detail", outcome + " detail"},
          {"explanation", "streams the output"},
          {"verdict", {{"perf", perf}}}};
}

Json Report() {
  return {{"kernel_check", {{"ok", true}, {"layer", ""}, {"reason", ""}}},
          {"profile_source", "self-profile on this CPU (no profile given)"},
          {"diagnosis",
           {{"findings",
             {{{"title", "memory-bandwidth bound"},
               {"severity", "warning"},
               {"summary", "the kernel streams"},
               {"evidence", {{{"text", "memory_utilization = 91%"}}}}}}},
            {"unjudged", {"cache misses: needs l2_hit_rate"}}}},
          {"notes", {"stopped early: the best kernel reaches 90% of the roofline", "a note"}},
          {"attempts", {Attempt("recipe a", "rejected", Perf(1.01, 12)),
                        Attempt("recipe b", "accepted", Perf(1.4, 12))}},
          {"found", true},
          {"best_attempt", 1},
          {"diff", "--- add.cpp\n+++ suggested/add.cpp\n"},
          {"seconds", 3.5}};
}

TEST(CiSectionTest, AnAcceptedReportBecomesAFasterSection) {
  KernelSection k = SectionFromReportJson(AddJob(), Report());
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
  EXPECT_EQ(k.findings[0].evidence, std::vector<std::string>{"memory_utilization = 91%"});
  EXPECT_EQ(k.unjudged.size(), 1u);
  EXPECT_EQ(k.notes, std::vector<std::string>{"a note"});  // how the search ended is left out
  EXPECT_EQ(k.attempts, 2);
  EXPECT_EQ(k.diff.rfind("--- add.cpp", 0), 0u);
}

TEST(CiSectionTest, NoAcceptedAttemptNamesTheClosestTimedOne) {
  Json report = Report();
  report["found"] = false;
  report["best_attempt"] = nullptr;
  report["attempts"] = {Attempt("recipe slow", "rejected", Perf(0.8, 12)),
                        Attempt("recipe near", "rejected", Perf(1.03, 12)),
                        Attempt("recipe broken", "rejected", Perf(0, 0))};
  KernelSection k = SectionFromReportJson(AddJob(), report);
  EXPECT_EQ(k.status, KernelStatus::kNoFasterKernel);
  EXPECT_EQ(k.closest, "recipe near: rejected detail");
  EXPECT_DOUBLE_EQ(k.speedup, 1.03);
}

TEST(CiSectionTest, AFailedKernelCheckIsBroken) {
  Json report = Report();
  report["kernel_check"] = {{"ok", false}, {"layer", "numeric"}, {"reason", "wrong results"}};
  KernelSection k = SectionFromReportJson(AddJob(), report);
  EXPECT_EQ(k.status, KernelStatus::kBroken);
  EXPECT_EQ(k.broken_layer, "numeric");
  EXPECT_EQ(k.broken_reason, "wrong results");
  EXPECT_TRUE(k.notes.empty());
}

TEST(CiSectionTest, MalformedDocumentsNeverThrow) {
  for (const Json& report :
       {Json(), Json::array(), Json("text"), Json({{"kernel_check", 5}}),
        Json({{"kernel_check", {{"ok", true}}}, {"attempts", "x"}, {"found", true},
              {"best_attempt", 7}, {"diagnosis", {{"findings", {1, "two"}}}}}),
        Json({{"kernel_check", {{"ok", true}}}, {"attempts", {{{"verdict", "none"}}}},
              {"found", false}, {"notes", {1, 2}}})}) {
    KernelSection k;
    EXPECT_NO_THROW(k = SectionFromReportJson(AddJob(), report)) << report.dump();
    EXPECT_EQ(k.path, "ops/add/add.cpp");
  }
}

}  // namespace
}  // namespace cannbot::ci
