// The offline search through the loop, with verdicts scripted by each variant's parameters:
// it goes on after a round that accepts nothing, brings a trapped variant back with
// flush-to-zero, stops within reach of the roofline, falls back to family recipes, and keys
// its memory by machine model.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>

#include "cannbot/engine/providers.h"
#include "cannbot/optimize/loop.h"
#include "cannbot/optimize/offline_provider.h"
#include "cannbot/skills/skill.h"
#include "cannbot/target/registry.h"
#include "cannbot/util/fs.h"
#include "unit_support.h"

namespace cannbot::optimize {
namespace {

using cannbot::test::Contains;

// Verdicts picked by the first rule whose marker the candidate's code contains.
class VerdictsByMarker : public CandidateJudge {
 public:
  Result<validator::Verdict> Validate(const validator::ValidationRequest& request) override {
    codes.push_back(request.candidate.text);
    for (const auto& [marker, verdict] : rules) {
      if (Contains(request.candidate.text, marker)) return verdict;
    }
    return Status::Internal("no scripted verdict for the candidate");
  }
  std::vector<std::pair<std::string, validator::Verdict>> rules;
  std::vector<std::string> codes;
};

validator::Verdict Timed(bool accepted, double speedup, double roofline = 0.4,
                         bool edge_warning = false) {
  validator::Verdict v;
  v.accepted = accepted;
  v.layer = accepted ? validator::Layer::kNone : validator::Layer::kPerf;
  v.reason = accepted ? "faster" : "not measurably faster";
  v.compile.ok = true;
  v.perf.emplace();
  v.perf->ok = accepted;
  v.perf->rounds = 10;
  v.perf->speedup = speedup;
  v.perf->candidate.roofline_fraction = roofline;
  if (edge_warning) v.perf->edges.warning = "the candidate produced subnormal numbers";
  return v;
}

class OfflineSearchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto dir = TempDir::Create("cannbot-search-test");
    ASSERT_TRUE(dir.ok());
    dir_ = std::make_unique<TempDir>(std::move(dir).value());
    op_.name = "swish";
    op_.family = "activation";
    op_.params = {{"x", ops::ParamKind::kInput, nullptr}, {"y", ops::ParamKind::kOutput, nullptr},
                  {"n", ops::ParamKind::kSize, nullptr}};
    config_.samples = 4;
    config_.rounds = 8;
    config_.good_enough_roofline = 0.95;
    config_.time_budget_seconds = 1e9;
  }

  void Recipe(const std::string& file, const std::string& header) {
    std::filesystem::create_directories(dir_->path() + "/search/recipes");
    ASSERT_TRUE(WriteFile(dir_->path() + "/search/SKILL.md",
                          "---\nname: search\ndescription: recipes for the search test\n---\n")
                    .ok());
    ASSERT_TRUE(WriteFile(dir_->path() + "/search/recipes/" + file,
                          "// cannbot-recipe\n" + header + "// ---\nvoid body() {}\n")
                    .ok());
  }

  // Runs the loop with a fresh provider over the recipes written so far.
  void Search(store::Store* store = nullptr, const std::string& key = "test") {
    std::vector<std::string> warnings;
    library_ = skills::SkillLibrary::Load({dir_->path()}, &warnings);
    OfflineProvider provider(&library_, store, key, OfflineConfig{});
    OptimizeRequest request;
    request.op = &op_;
    request.original = {"naive.cpp", "extern \"C\" void swish(const float*, float*, int64_t);\n"};
    report_ = OptimizeReport{};
    Optimizer optimizer(&judge_, &provider, config_);
    ASSERT_TRUE(optimizer.Run(request, &report_).ok());
    if (const Attempt* best = report_.Best()) {
      provider.Finish(best->code, best->verdict->perf->speedup);
    }
  }

  std::unique_ptr<TempDir> dir_;
  ops::OpSpec op_;
  LoopConfig config_;
  skills::SkillLibrary library_;
  VerdictsByMarker judge_;
  OptimizeReport report_;
};

TEST_F(OfflineSearchTest, ARoundThatAcceptsNothingIsNotTheEnd) {
  Recipe("tune.cpp", "// name: tune\n// op: swish\n// summary: tunable\n// params: A=1,2,3 B=0,1\n");
  judge_.rules = {{"#define A 2\n#define B 0", Timed(true, 1.4)},
                  {"#define A 2\n#define B 1", Timed(true, 1.6)},
                  {"#define A 1", Timed(false, 0.99)},
                  {"#define A 3", Timed(false, 0.9)}};
  Search();
  // Round 0: the default (A=1 B=0) is not faster; its neighbours come next, then A=2's.
  ASSERT_GE(judge_.codes.size(), 4u);
  EXPECT_TRUE(Contains(judge_.codes[0], "#define A 1\n#define B 0"));
  const Attempt* best = report_.Best();
  ASSERT_NE(best, nullptr);
  EXPECT_TRUE(Contains(best->code, "#define A 2\n#define B 1")) << best->origin;
  EXPECT_DOUBLE_EQ(best->verdict->perf->speedup, 1.6);
}

TEST_F(OfflineSearchTest, AVariantTheEdgeCheckFlaggedComesBackWithFlushToZero) {
  Recipe("exp.cpp", "// name: exp\n// op: swish\n// summary: fast exp\n");
  judge_.rules = {{"_mm_setcsr", Timed(true, 2.5)},
                  {"void body", Timed(true, 1.2, 0.4, /*edge_warning=*/true)}};
  Search();
  ASSERT_EQ(report_.attempts.size(), 2u);
  EXPECT_TRUE(Contains(report_.attempts[1].origin, "flush-to-zero")) << report_.attempts[1].origin;
  EXPECT_TRUE(Contains(report_.attempts[1].code, "_mm_setcsr(saved | 0x8040u)"));
  EXPECT_TRUE(Contains(report_.attempts[1].code, "#define swish swish_before_flush_to_zero"));
  EXPECT_EQ(report_.Best(), &report_.attempts[1]);
}

TEST_F(OfflineSearchTest, ItStopsWithinFivePercentOfTheRoofline) {
  Recipe("tune.cpp", "// name: tune\n// op: swish\n// summary: tunable\n// params: A=1,2,3\n");
  judge_.rules = {{"#define A 1", Timed(true, 3.0, 0.96)}, {"#define A", Timed(true, 3.5, 0.99)}};
  Search();
  EXPECT_EQ(judge_.codes.size(), 1u);
  bool noted = false;
  for (const std::string& note : report_.notes) noted |= Contains(note, "roofline");
  EXPECT_TRUE(noted);
}

TEST_F(OfflineSearchTest, FamilyRecipesComeOnceTheOpsOwnAreExplored) {
  Recipe("own.cpp", "// name: own\n// op: swish\n// summary: the op's own\n");
  Recipe("hints.cpp",
         "// name: hints\n// families: activation\n// dtypes: any\n// summary: family hints\n");
  judge_.rules = {{"recipe hints", Timed(true, 1.3)}, {"recipe own", Timed(false, 1.0)}};
  Search();
  ASSERT_EQ(report_.attempts.size(), 2u);
  EXPECT_TRUE(Contains(report_.attempts[0].origin, "recipe own"));
  EXPECT_TRUE(Contains(report_.attempts[1].origin, "recipe hints"));
  EXPECT_TRUE(Contains(report_.attempts[1].explanation, "written for its family"));
}

TEST_F(OfflineSearchTest, TheBudgetEndsTheSearch) {
  Recipe("tune.cpp", "// name: tune\n// op: swish\n// summary: tunable\n"
                     "// params: A=1,2,3,4,5,6 B=1,2,3,4,5,6\n");
  judge_.rules = {{"#define A", Timed(false, 1.0)}};
  std::vector<std::string> warnings;
  library_ = skills::SkillLibrary::Load({dir_->path()}, &warnings);
  OfflineProvider provider(&library_, nullptr, "test", OfflineConfig{.max_variants = 7});
  OptimizeRequest request;
  request.op = &op_;
  request.original = {"naive.cpp", ""};
  Optimizer optimizer(&judge_, &provider, config_);
  ASSERT_TRUE(optimizer.Run(request, &report_).ok());
  EXPECT_EQ(judge_.codes.size(), 7u);
}

TEST_F(OfflineSearchTest, WinnersAreRememberedPerMachineModel) {
  Recipe("tune.cpp", "// name: tune\n// op: swish\n// summary: tunable\n// params: A=1,2\n");
  judge_.rules = {{"#define A 2", Timed(true, 2.0)}, {"#define A 1", Timed(true, 1.5)}};
  auto store = store::Store::Open(dir_->path() + "/store.db");
  ASSERT_TRUE(store.ok());
  Search(store->get(), "machine model A");
  ASSERT_EQ(judge_.codes.size(), 2u);
  // The same machine model: the winner straight away.
  judge_.codes.clear();
  Search(store->get(), "machine model A");
  ASSERT_EQ(judge_.codes.size(), 1u);
  EXPECT_TRUE(Contains(report_.attempts[0].origin, "remembered tuning"));
  EXPECT_TRUE(Contains(judge_.codes[0], "#define A 2"));
  // Another machine model sharing the store searches for itself.
  judge_.codes.clear();
  Search(store->get(), "machine model B");
  EXPECT_EQ(judge_.codes.size(), 2u);
  EXPECT_FALSE(Contains(report_.attempts[0].origin, "remembered tuning"));
}

TEST_F(OfflineSearchTest, ARememberedWinnerThatNoLongerValidatesStartsASearch) {
  Recipe("tune.cpp", "// name: tune\n// op: swish\n// summary: tunable\n// params: A=1,2\n");
  auto store = store::Store::Open(dir_->path() + "/store.db");
  ASSERT_TRUE(store.ok());
  judge_.rules = {{"#define A 2", Timed(true, 2.0)}, {"#define A 1", Timed(true, 1.5)}};
  Search(store->get(), "k");
  judge_.rules = {{"#define A 2", Timed(false, 1.0)}, {"#define A 1", Timed(true, 1.5)}};
  judge_.codes.clear();
  Search(store->get(), "k");
  ASSERT_GE(judge_.codes.size(), 2u);
  ASSERT_NE(report_.Best(), nullptr);
  EXPECT_TRUE(Contains(report_.Best()->code, "#define A 1"));
}

TEST(TuningKeyTest, OneKeyPerMachineModelNotPerHost) {
  ops::OpSpec op;
  op.name = "swish";
  op.shapes = {{"perf", {{"n", 16}}, {}, true}};
  validator::MachineModel host_a, host_b, other_cpu;
  host_a.machine_id = "host-a";
  host_b.machine_id = "host-b";
  host_a.cpu_key = host_b.cpu_key = "GenuineIntel family 6 model 143, avx512f";
  other_cpu.machine_id = "host-c";
  other_cpu.cpu_key = "AuthenticAMD family 25 model 1, avx2";
  const validator::CompilerConfig compiler;
  const target::Target& cpu = target::Default();
  EXPECT_EQ(engine::TuningKey(op, cpu, host_a, compiler), engine::TuningKey(op, cpu, host_b, compiler));
  EXPECT_NE(engine::TuningKey(op, cpu, host_a, compiler),
            engine::TuningKey(op, cpu, other_cpu, compiler));
}

}  // namespace
}  // namespace cannbot::optimize
