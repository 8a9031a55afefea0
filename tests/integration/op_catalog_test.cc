// The built-in op catalog end to end: every op's naive example passes the numeric layer
// against its trusted reference, and the kernel cannbot writes from an op's spec (recipe
// elementwise-map from its `elementwise` expression, cannbot's vector math; recipe row-reduce
// from its `reduce` table) passes it in every dtype the op comes in, fp16 and bf16 judged by
// the CANN standard; a recipe written for several ops by name passes on each of them. Real
// compiler, sandboxed runner.
#include <gtest/gtest.h>

#include <filesystem>

#include "builtin_ops.h"
#include "cannbot/skills/recipe.h"
#include "cannbot/skills/skill.h"
#include "cannbot/validator/validator.h"
#include "integration/test_support.h"

namespace cannbot::validator {
namespace {

using testing::Kernel;
using testing::SourcePath;

// Ops with an example naive kernel (examples/<op>/naive.cpp), by base name.
std::vector<std::string> OpsWithExamples() {
  std::vector<std::string> names;
  for (const ops::OpSpec& op : cannbot_test::BuiltInOps().ops()) {
    if (op.name != op.BaseName()) continue;
    if (std::filesystem::exists(SourcePath("examples/" + op.name + "/naive.cpp"))) {
      names.push_back(op.name);
    }
  }
  return names;
}

// Every op (each dtype variant) a generated recipe is written for: an `elementwise`
// expression or a `reduce` table.
std::vector<std::string> GeneratedVariants() {
  std::vector<std::string> names;
  for (const ops::OpSpec& op : cannbot_test::BuiltInOps().ops()) {
    if (!op.elementwise.empty() || !op.reduce.empty()) names.push_back(op.name);
  }
  return names;
}

// The shipped recipe written for `op` by name together with other ops, or null.
const skills::Recipe* SharedRecipeFor(const skills::SkillLibrary& library, const std::string& op) {
  for (const skills::Skill& skill : library.skills()) {
    for (const skills::Recipe& r : skill.recipes) {
      if (r.ops.size() > 1 && r.NamesOp(op)) return &r;
    }
  }
  return nullptr;
}

// Every op such a recipe names.
std::vector<std::string> SharedRecipeOps() {
  std::vector<std::string> names;
  const skills::SkillLibrary library = testing::ShippedSkills();
  for (const skills::Skill& skill : library.skills()) {
    for (const skills::Recipe& r : skill.recipes) {
      if (r.ops.size() > 1) names.insert(names.end(), r.ops.begin(), r.ops.end());
    }
  }
  return names;
}

// With the static source check on, as `cannbot suggest` runs it: a generated kernel must pass
// every check a user's kernel does (it once used cannbot's reserved names).
KernelCheck Check(const std::string& op, const KernelSource& kernel) {
  auto store = testing::SharedStore();
  EXPECT_NE(store, nullptr);
  ValidatorConfig config = testing::TestConfig();
  config.compiler.source_check = true;
  Validator validator(config, store.get(), cannbot_test::BuiltInOps());
  auto check = validator.CheckKernel(op, kernel, 11);
  EXPECT_TRUE(check.ok()) << check.status().ToString();
  return check.ok() ? *check : KernelCheck{};
}

class NaiveExampleTest : public ::testing::TestWithParam<std::string> {};

TEST_P(NaiveExampleTest, PassesItsReference) {
  const std::string op = GetParam();
  const KernelCheck check = Check(op, Kernel(SourcePath("examples/" + op + "/naive.cpp")));
  EXPECT_TRUE(check.ok) << LayerName(check.layer) << ": " << check.reason << "\n"
                        << check.compile.log;
  ASSERT_TRUE(check.numeric.has_value());
  EXPECT_GE(check.numeric->cases.size(), 3u);
}

INSTANTIATE_TEST_SUITE_P(Catalog, NaiveExampleTest, ::testing::ValuesIn(OpsWithExamples()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

TEST(NaiveExampleCatalogTest, EveryOpHasANaiveExample) {
  std::vector<std::string> missing;
  const std::vector<std::string> with = OpsWithExamples();
  for (const ops::OpSpec& op : cannbot_test::BuiltInOps().ops()) {
    if (op.name == op.BaseName() && std::find(with.begin(), with.end(), op.name) == with.end()) {
      missing.push_back(op.name);
    }
  }
  EXPECT_TRUE(missing.empty()) << "no examples/OP/naive.cpp for " << missing.front();
}

class GeneratedKernelTest : public ::testing::TestWithParam<std::string> {};

TEST_P(GeneratedKernelTest, PassesItsReference) {
  const ops::OpSpec* op = cannbot_test::BuiltInOps().Find(GetParam());
  ASSERT_NE(op, nullptr);
  const skills::SkillLibrary library = testing::ShippedSkills();
  const std::string name = op->reduce.empty() ? "elementwise-map" : "row-reduce";
  const skills::Recipe* recipe = nullptr;
  for (const skills::Skill& skill : library.skills()) {
    for (const skills::Recipe& r : skill.recipes) {
      if (r.name == name) recipe = &r;
    }
  }
  ASSERT_NE(recipe, nullptr);
  const std::string code = skills::Instantiate(*recipe, skills::Defaults(*recipe), "", op);
  const KernelCheck check = Check(op->name, {recipe->path, code});
  EXPECT_TRUE(check.ok) << LayerName(check.layer) << ": " << check.reason << "\n"
                        << check.compile.log << "\n" << code;
}

INSTANTIATE_TEST_SUITE_P(Catalog, GeneratedKernelTest, ::testing::ValuesIn(GeneratedVariants()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

class SharedRecipeTest : public ::testing::TestWithParam<std::string> {};

TEST_P(SharedRecipeTest, PassesEachNamedOpsReference) {
  const ops::OpSpec* op = cannbot_test::BuiltInOps().Find(GetParam());
  ASSERT_NE(op, nullptr) << GetParam();
  const skills::SkillLibrary library = testing::ShippedSkills();
  const skills::Recipe* recipe = SharedRecipeFor(library, op->name);
  ASSERT_NE(recipe, nullptr);
  const std::string code = skills::Instantiate(*recipe, skills::Defaults(*recipe), "", op);
  const KernelCheck check = Check(op->name, {recipe->path, code});
  EXPECT_TRUE(check.ok) << LayerName(check.layer) << ": " << check.reason << "\n"
                        << check.compile.log;
  ASSERT_TRUE(check.numeric.has_value());
  EXPECT_GE(check.numeric->cases.size(), 3u);
}

INSTANTIATE_TEST_SUITE_P(Catalog, SharedRecipeTest, ::testing::ValuesIn(SharedRecipeOps()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace cannbot::validator
