// Family recipes: an op with no recipe of its own gets those written for its family and
// dtypes, applied to the user's own kernel; an op with recipes of its own keeps them.
#include <gtest/gtest.h>

#include "builtin_ops.h"
#include "cannbot/ops/op_spec_file.h"
#include "cannbot/optimize/offline_provider.h"
#include "cannbot/skills/recipe.h"
#include "cannbot/skills/skill.h"

namespace cannbot::optimize {
namespace {

skills::SkillLibrary BuiltInSkills() {
  std::vector<std::string> warnings;
  return skills::SkillLibrary::Load({std::string(CANNBOT_SOURCE_DIR) + "/skills"}, &warnings);
}

std::vector<Proposal> FirstProposals(const skills::SkillLibrary& library, const ops::OpSpec& op,
                                     const std::string& source) {
  OfflineProvider provider(&library, nullptr, "test", OfflineConfig{});
  ProposalRequest request;
  request.op = &op;
  request.source = source;
  auto proposals = provider.Propose(request);
  return proposals.ok() ? *proposals : std::vector<Proposal>{};
}

TEST(FamilyRecipeTest, AUsersOpGetsItsFamilysRecipeAppliedToItsOwnKernel) {
  const auto library = BuiltInSkills();
  auto op = ops::LoadOpSpecFile(std::string(CANNBOT_SOURCE_DIR) +
                                "/tests/fixtures/user_ops/rms_norm.toml");
  ASSERT_TRUE(op.ok()) << op.status().ToString();
  const std::string kernel = "extern \"C\" void rms_norm_custom() {}  // the user's own kernel\n";
  const auto proposals = FirstProposals(library, *op, kernel);
  ASSERT_FALSE(proposals.empty());
  EXPECT_NE(proposals[0].origin.find("compile-hints"), std::string::npos) << proposals[0].origin;
  // The recipe is a prefix: the kernel as written follows it, unchanged.
  EXPECT_NE(proposals[0].code.find("#pragma GCC optimize"), std::string::npos);
  EXPECT_EQ(proposals[0].code.substr(proposals[0].code.size() - kernel.size()), kernel);
}

TEST(FamilyRecipeTest, AnOpWithItsOwnRecipesDoesNotGetFamilyRecipes) {
  const auto library = BuiltInSkills();
  const ops::OpSpec* relu = cannbot_test::BuiltInOps().Find("relu");
  ASSERT_EQ(relu->family, "activation");  // a family compile-hints covers
  const auto proposals = FirstProposals(library, *relu, "");
  ASSERT_FALSE(proposals.empty());
  for (const Proposal& p : proposals) {
    EXPECT_EQ(p.origin.find("compile-hints"), std::string::npos) << p.origin;
  }
}

TEST(FamilyRecipeTest, AFamilyRecipeAppliesOnlyToItsFamilies) {
  const auto library = BuiltInSkills();
  auto op = ops::LoadOpSpecFile(std::string(CANNBOT_SOURCE_DIR) +
                                "/tests/fixtures/user_ops/rms_norm.toml");
  ASSERT_TRUE(op.ok());
  op->family = "matmul";  // compile-hints is not written for matmuls
  EXPECT_TRUE(FirstProposals(library, *op, "").empty());
}

}  // namespace
}  // namespace cannbot::optimize

namespace cannbot::optimize {
namespace {

// An op whose spec gives an `elementwise` expression gets the generated recipe in the first
// round, in every dtype, with the kernel written from the spec, and before the recipes that
// only change how the user's kernel is compiled (a short time budget may allow one attempt).
TEST(FamilyRecipeTest, AnElementwiseOpGetsTheGeneratedRecipeInEveryDtype) {
  const auto library = BuiltInSkills();
  for (const char* name : {"sigmoid", "sigmoid_fp16", "sub_bf16"}) {
    const ops::OpSpec* op = cannbot_test::BuiltInOps().Find(name);
    ASSERT_NE(op, nullptr) << name;
    const auto proposals = FirstProposals(library, *op, "extern \"C\" void f() {}\n");
    ASSERT_FALSE(proposals.empty()) << name;
    EXPECT_NE(proposals[0].origin.find("elementwise-map"), std::string::npos)
        << name << ": " << proposals[0].origin;
    bool generated = false;
    for (const Proposal& p : proposals) {
      if (p.origin.find("elementwise-map") == std::string::npos) continue;
      generated = true;
      EXPECT_NE(p.code.find("extern \"C\" " + op->CSignature()), std::string::npos) << p.code;
    }
    EXPECT_TRUE(generated) << name;
  }
}

}  // namespace
}  // namespace cannbot::optimize

namespace cannbot::optimize {
namespace {

// A row reduction's spec (`reduce`) gets the generated row-reduce recipe first, in every dtype.
TEST(FamilyRecipeTest, AReductionGetsTheGeneratedRowReduceFirst) {
  const auto library = BuiltInSkills();
  for (const char* name : {"reduce_sum", "reduce_mean_fp16", "reduce_max_bf16"}) {
    const ops::OpSpec* op = cannbot_test::BuiltInOps().Find(name);
    ASSERT_NE(op, nullptr) << name;
    const auto proposals = FirstProposals(library, *op, "extern \"C\" void f() {}\n");
    ASSERT_FALSE(proposals.empty()) << name;
    EXPECT_NE(proposals[0].origin.find("row-reduce"), std::string::npos)
        << name << ": " << proposals[0].origin;
    EXPECT_NE(proposals[0].code.find("extern \"C\" " + op->CSignature()), std::string::npos);
  }
  // An elementwise op does not get it.
  for (const Proposal& p : FirstProposals(library, *cannbot_test::BuiltInOps().Find("relu_fp16"), "")) {
    EXPECT_EQ(p.origin.find("row-reduce"), std::string::npos) << p.origin;
  }
}

}  // namespace
}  // namespace cannbot::optimize

namespace cannbot::optimize {
namespace {

// One recipe written for several ops by name: parsed as a list, offered to each of them (and
// to no other op), instantiated with the macro that picks that op's entry point.
TEST(NamedRecipeTest, ARecipeNamingSeveralOpsServesEachWithItsOwnEntryPoint) {
  auto recipe = skills::ParseRecipe(
      "// cannbot-recipe\n// name: two\n// op: matmul, matmul_bt\n// params: TILE=4,8\n// ---\n"
      "int x;\n",
      "two.cpp");
  ASSERT_TRUE(recipe.ok()) << recipe.status().ToString();
  EXPECT_EQ(recipe->ops, (std::vector<std::string>{"matmul", "matmul_bt"}));
  EXPECT_TRUE(recipe->NamesOp("matmul_bt"));
  EXPECT_FALSE(recipe->NamesOp("batched_matmul"));
  EXPECT_FALSE(recipe->IsFamilyRecipe());
  const ops::OpSpec* bt = cannbot_test::BuiltInOps().Find("matmul_bt");
  ASSERT_NE(bt, nullptr);
  const std::string code = skills::Instantiate(*recipe, skills::Defaults(*recipe), "", bt);
  EXPECT_NE(code.find("#define TILE 4\n#define CANNBOT_OP_matmul_bt 1\n"), std::string::npos)
      << code;

  const auto library = BuiltInSkills();
  for (const char* name : {"matmul", "matmul_bt", "batched_matmul", "matmul_f16_f32"}) {
    const ops::OpSpec* op = cannbot_test::BuiltInOps().Find(name);
    ASSERT_NE(op, nullptr) << name;
    const auto proposals = FirstProposals(library, *op, "");
    ASSERT_FALSE(proposals.empty()) << name;
    EXPECT_NE(proposals[0].origin.find("matmul-packed-microkernel"), std::string::npos)
        << name << ": " << proposals[0].origin;
    EXPECT_NE(proposals[0].code.find(std::string("#define CANNBOT_OP_") + name + " 1"),
              std::string::npos)
        << name;
  }
  // int8 inputs with a dequantising epilogue are another algorithm: the recipe does not name it.
  const ops::OpSpec* int8 = cannbot_test::BuiltInOps().Find("matmul_int8_dequant");
  ASSERT_NE(int8, nullptr);
  for (const Proposal& p : FirstProposals(library, *int8, "")) {
    EXPECT_EQ(p.origin.find("matmul-packed-microkernel"), std::string::npos) << p.origin;
  }
}

}  // namespace
}  // namespace cannbot::optimize
