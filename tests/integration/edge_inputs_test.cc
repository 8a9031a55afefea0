// The perf gate times realistic inputs and reports, separately, how kernels fare on the op's
// edge values (edge_check.h): a subnormal trap is visible on any machine through the MXCSR
// flags, a kernel slow on edge values through its slowdown, and every recipe cannbot ships
// for an op with edge values keeps its speed there and makes no subnormal numbers.
#include <gtest/gtest.h>

#include <set>

#include "builtin_ops.h"
#include "cannbot/optimize/offline_provider.h"
#include "cannbot/skills/skill.h"
#include "cannbot/util/data_dir.h"
#include "cannbot/validator/validator.h"
#include "integration/test_support.h"

namespace cannbot::validator {
namespace {

using testing::Fixture;
using testing::Kernel;
using testing::SourcePath;
using testing::ShippedSkills;

class EdgeInputsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = testing::SharedStore();
    ASSERT_NE(store_, nullptr);
    validator_ = std::make_unique<Validator>(testing::TestConfig(), store_.get(),
                                             cannbot_test::BuiltInOps());
  }

  Verdict Validate(const std::string& op, const KernelSource& candidate) {
    ValidationRequest request;
    request.op = op;
    request.candidate = candidate;
    request.baseline = Kernel(SourcePath("examples/" + op + "/naive.cpp"));
    request.seed = 77;
    auto verdict = validator_->Validate(request);
    EXPECT_TRUE(verdict.ok()) << verdict.status().ToString();
    return verdict.ok() ? *verdict : Verdict{};
  }

  std::unique_ptr<store::Store> store_;
  std::unique_ptr<Validator> validator_;
};

const skills::Recipe* FindRecipe(const skills::SkillLibrary& library, const std::string& name) {
  for (const skills::Skill& skill : library.skills()) {
    for (const skills::Recipe& recipe : skill.recipes) {
      if (recipe.name == name) return &recipe;
    }
  }
  return nullptr;
}

// The fast softmax that clamps exp at -104 makes subnormal results on the +-1000 edge inputs:
// on Intel cores that made it slower than naive. Here the flags show it whatever the CPU.
TEST_F(EdgeInputsTest, ASubnormalTrapIsReportedOnAnyMachine) {
  const Verdict v = Validate("softmax", Kernel(Fixture("kernels/softmax/subnormal_trap.cpp")));
  ASSERT_TRUE(v.perf.has_value()) << v.RenderText();
  const EdgeCheck& edges = v.perf->edges;
  ASSERT_TRUE(edges.ran) << edges.inputs;
  EXPECT_FALSE(edges.inputs_subnormal);
  EXPECT_TRUE(edges.MadeSubnormals(edges.candidate)) << v.RenderText();
  EXPECT_NE(edges.warning.find("subnormal"), std::string::npos) << edges.warning;
  // On Intel cores the trap is also slow there ("the candidate is 9x slower ... and produced
  // subnormal numbers"); either way the report carries the warning.
  const std::string text = v.RenderText();
  EXPECT_NE(text.find("WARNING: the candidate "), std::string::npos) << text;
  EXPECT_NE(text.find("produced subnormal numbers on the edge inputs"), std::string::npos) << text;
  // The naive kernel's std::exp makes them too (it is not the candidate's warning).
  EXPECT_TRUE(edges.MadeSubnormals(edges.baseline));
}

// The offline search's remedy for a flagged variant: the same kernel with flush-to-zero set
// around the call. It still validates (the caller's state is restored), and its underflow
// flags are not called a trap.
TEST_F(EdgeInputsTest, TheTrapWithFlushToZeroAroundItValidatesAndIsNotFlagged) {
  const ops::OpSpec* softmax = cannbot_test::BuiltInOps().Find("softmax");
  const KernelSource trap = Kernel(Fixture("kernels/softmax/subnormal_trap.cpp"));
  const Verdict v =
      Validate("softmax", {"trap+ftz", optimize::WithFlushToZero(*softmax, trap.text)});
  ASSERT_TRUE(v.numeric.has_value() && v.numeric->ok) << v.RenderText() << v.compile.log;
  ASSERT_TRUE(v.perf.has_value() && v.perf->edges.ran) << v.RenderText();
  EXPECT_TRUE(v.perf->edges.candidate.sets_fp_control);
  EXPECT_FALSE(v.perf->edges.MadeSubnormals(v.perf->edges.candidate)) << v.RenderText();
  EXPECT_EQ(v.perf->edges.warning.find("subnormal"), std::string::npos) << v.perf->edges.warning;
}

// Edge values stay out of the timed inputs (a kernel slow only on them is still faster than
// naive at the gate), and the edge check says how much slower it is there.
TEST_F(EdgeInputsTest, AKernelSlowOnlyOnEdgeValuesIsReportedNotRejected) {
  const Verdict v = Validate("swish", Kernel(Fixture("kernels/swish/slow_on_edges.cpp")));
  ASSERT_TRUE(v.perf.has_value()) << v.RenderText();
  EXPECT_TRUE(v.accepted) << v.RenderText();
  const EdgeCheck& edges = v.perf->edges;
  ASSERT_TRUE(edges.ran);
  EXPECT_GT(edges.candidate.slowdown, EdgeCheck::kTrapSlowdown) << v.RenderText();
  EXPECT_NE(edges.warning.find("slower on the op's edge inputs"), std::string::npos)
      << edges.warning;
}

// (The fixed softmax example is held to no subnormals by ExampleTest in validator_test.cc.)

TEST_F(EdgeInputsTest, AnOpWithoutEdgeValuesSaysSo) {
  const skills::SkillLibrary library = ShippedSkills();
  const skills::Recipe* recipe = FindRecipe(library, "add-stream");
  ASSERT_NE(recipe, nullptr);
  const Verdict v = Validate("add", {recipe->path, skills::Instantiate(*recipe, skills::Defaults(*recipe))});
  ASSERT_TRUE(v.perf.has_value()) << v.RenderText();
  EXPECT_FALSE(v.perf->edges.ran);
  EXPECT_EQ(v.perf->edges.inputs, "the op declares no edge values");
}

// --- every shipped recipe for an op with edge values ------------------------------------------

// Recipes for ops whose specs declare edge values; the guard test below keeps it complete.
const char* const kEdgeRecipes[] = {"relu-stream",   "prelu-stream",  "swish-poly-exp",
                                    "gelu-erf-as28", "gelu-erfc-as", "softmax-rowwise-exp",
                                    "matmul-packed-microkernel"};

bool HasEdgeValues(const ops::OpSpec& op) {
  for (const auto& [name, d] : op.inputs) {
    if (!d.edge_values.empty()) return true;
  }
  return false;
}

// The op a recipe's edge test runs on: the first it names whose inputs declare edge values.
const ops::OpSpec* EdgeOpOf(const skills::Recipe& recipe) {
  for (const std::string& name : recipe.ops) {
    const ops::OpSpec* op = cannbot_test::BuiltInOps().Find(name);
    if (op != nullptr && HasEdgeValues(*op)) return op;
  }
  return nullptr;
}

TEST(EdgeRecipeListTest, EveryRecipeForAnOpWithEdgeValuesIsChecked) {
  const std::set<std::string> listed(std::begin(kEdgeRecipes), std::end(kEdgeRecipes));
  const skills::SkillLibrary library = ShippedSkills();
  for (const skills::Skill& skill : library.skills()) {
    for (const skills::Recipe& recipe : skill.recipes) {
      if (!recipe.target.empty() && recipe.target != "cpu") continue;
      if (EdgeOpOf(recipe) != nullptr) {
        EXPECT_EQ(listed.count(recipe.name), 1u) << recipe.name << " is not checked";
      }
    }
  }
}

// What every shipped or generated recipe must show against its naive example: it reaches the
// timed layer (accepted, or rejected only at the perf bar) with a point estimate of at least
// `min_speedup`, and on the op's edge inputs no subnormal numbers and no trap-sized slowdown.
void ExpectAWinWithoutTrapsOnEdgeInputs(const Verdict& v, double min_speedup) {
  ASSERT_TRUE(v.perf.has_value()) << v.RenderText();
  EXPECT_TRUE(v.accepted || v.layer == Layer::kPerf) << v.RenderText();
  EXPECT_GT(v.perf->speedup, min_speedup) << v.RenderText();
  const EdgeCheck& edges = v.perf->edges;
  ASSERT_TRUE(edges.ran) << edges.inputs;
  EXPECT_FALSE(edges.MadeSubnormals(edges.candidate)) << v.RenderText();
  EXPECT_LE(edges.candidate.slowdown, EdgeCheck::kTrapSlowdown) << v.RenderText();
}

class RecipeEdgeTest : public EdgeInputsTest, public ::testing::WithParamInterface<const char*> {};

// At its default parameters the recipe passes the numeric layer and reaches the timed one,
// makes no subnormal numbers on the edge inputs and is not trapped there; one that wins big on
// the perf inputs keeps at least 2x there too (a trap on an Intel core costs more than that).
// Whether a memory-bound recipe wins at all on a loaded shared machine is not this test's
// question either: prelu-stream measures 1.09x-1.25x here alone and once fell below 1.0x in CI
// with another test beside it (docs/benchmarks.md carries the wins). What it must not be is a
// loss beyond that noise, which is what a trap or a broken fast path would show.
TEST_P(RecipeEdgeTest, DefaultVariantKeepsItsSpeedOnEdgeInputs) {
  const skills::SkillLibrary library = ShippedSkills();
  const skills::Recipe* recipe = FindRecipe(library, GetParam());
  ASSERT_NE(recipe, nullptr) << GetParam();
  const ops::OpSpec* op = EdgeOpOf(*recipe);
  ASSERT_NE(op, nullptr) << GetParam() << " names no op with edge values";
  const Verdict v = Validate(op->name, {recipe->path, skills::Instantiate(
                                                         *recipe, skills::Defaults(*recipe), "", op)});
  ASSERT_NO_FATAL_FAILURE(ExpectAWinWithoutTrapsOnEdgeInputs(v, /*min_speedup=*/0.8));
  const EdgeCheck& edges = v.perf->edges;
  if (v.perf->speedup >= 4) {
    EXPECT_GE(edges.baseline.edge_seconds / edges.candidate.edge_seconds, 2.0) << v.RenderText();
  }
}

INSTANTIATE_TEST_SUITE_P(Recipes, RecipeEdgeTest, ::testing::ValuesIn(kEdgeRecipes),
                         [](const auto& info) {
                           std::string name = info.param;
                           for (char& c : name) c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
                           return name;
                         });

}  // namespace
}  // namespace cannbot::validator

namespace cannbot::validator {
namespace {

// The generated recipe (elementwise-map, the kernel written from an op's `elementwise`
// expression with cannbot's vector math) on ops whose edges overflow, underflow and saturate,
// against their naive examples: faster, and no subnormal numbers anywhere (not even in lanes
// whose results are selected away).
class GeneratedRecipeEdgeTest : public EdgeInputsTest,
                                public ::testing::WithParamInterface<const char*> {};

TEST_P(GeneratedRecipeEdgeTest, MakesNoSubnormalsAndStaysFastOnEdgeInputs) {
  const skills::SkillLibrary library = ShippedSkills();
  const skills::Recipe* recipe = FindRecipe(library, "elementwise-map");
  ASSERT_NE(recipe, nullptr);
  const ops::OpSpec* op = cannbot_test::BuiltInOps().Find(GetParam());
  ASSERT_NE(op, nullptr) << GetParam();
  const Verdict v = Validate(op->name, {recipe->path, skills::Instantiate(
                                                          *recipe, skills::Defaults(*recipe), "", op)});
  // exp and softplus are compute-bound: the generated kernel wins by several times, so a
  // point estimate under 1x is a real regression, not noise.
  ASSERT_NO_FATAL_FAILURE(ExpectAWinWithoutTrapsOnEdgeInputs(v, /*min_speedup=*/1.0));
}

INSTANTIATE_TEST_SUITE_P(Generated, GeneratedRecipeEdgeTest,
                         ::testing::Values("exp_op", "softplus"),
                         [](const auto& info) { return std::string(info.param); });

}  // namespace
}  // namespace cannbot::validator
