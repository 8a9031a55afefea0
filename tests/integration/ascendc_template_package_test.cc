// Operator packages written for tiling template programming, the style of the current public
// CANN operator repositories (examples/ascendc/packages/add_template): the template entry runs
// the instance the tiling key selects in every dtype of the OpDef, and a key no instance has, a
// value the declaration lacks, or a failing tiling are each named.
#include <gtest/gtest.h>

#include "builtin_ops.h"
#include "cannbot/engine/package_validation.h"
#include "integration/package_support.h"
#include "integration/test_support.h"

namespace cannbot::engine {
namespace {

const char* const kTemplate = "add_template";

class TemplatePackageTest : public testing::BuiltInValidatorTest {
 protected:

  Result<PackageReport> Run(const ascendc::PackageFiles& files) {
    PackageRequest request;
    request.op = "add";
    request.seed = 7;
    CANNBOT_ASSIGN_OR_RETURN(request.candidate, ascendc::PackageFromFiles("add_template", files));
    return ValidatePackage(*validator_, cannbot_test::BuiltInOps(), request);
  }

  // The example with its OpDef cut to float32 and `edits` applied.
  static ascendc::PackageFiles FloatOnly(testing::TextEdits edits) {
    edits.insert(edits.begin(),
                 {{"{ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16, ge::DT_INT32}", "{ge::DT_FLOAT}"},
                  {"{ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND}",
                   "{ge::FORMAT_ND}"}});
    return testing::EditedExamplePackage(kTemplate, edits);
  }

  static std::string Failure(const PackageReport& report) {
    EXPECT_EQ(report.runs.size(), 1u) << report.RenderText();
    if (report.runs.empty() || !report.runs[0].check) return "";
    EXPECT_FALSE(report.runs[0].check->ok);
    return report.runs[0].check->reason;
  }

};

// Every dtype of the OpDef passes; with the partial-tail instance made to subtract, the odd
// shapes (whose tensors end inside a 32-byte block) fail and name their case: the launch ran
// the instance the tiling's key selects, not one of them for every shape.
TEST_F(TemplatePackageTest, EachCombinationRunsTheInstanceItsTilingKeySelects) {
  auto every_dtype = Run(testing::EditedExamplePackage(kTemplate, {}));
  ASSERT_TRUE(every_dtype.ok()) << every_dtype.status().ToString();
  EXPECT_EQ(every_dtype->runs.size(), 4u);
  EXPECT_TRUE(every_dtype->ok()) << every_dtype->RenderText();

  auto tail_subtracts = Run(FloatOnly(
      {{"      Add(z, x, y, count);",
        "      if constexpr (PartialTail) {\n        Sub(z, x, y, count);\n      } else {\n"
        "        Add(z, x, y, count);\n      }"}}));
  ASSERT_TRUE(tail_subtracts.ok()) << tail_subtracts.status().ToString();
  const std::string reason = Failure(*tail_subtracts);
  EXPECT_NE(reason.find("on case 'tiny'"), std::string::npos) << reason;
}

TEST_F(TemplatePackageTest, AKeyNoSelectedInstanceHasIsNamed) {
  auto unselected = Run(FloatOnly({{"ASCENDC_TPL_UINT_SEL(TAIL_MODE, ASCENDC_TPL_UI_LIST, "
                                    "ADD_TEMPLATE_WHOLE_BLOCKS,\n                             "
                                    "ADD_TEMPLATE_PARTIAL_TAIL)",
                                    "ASCENDC_TPL_UINT_SEL(TAIL_MODE, ASCENDC_TPL_UI_LIST, "
                                    "ADD_TEMPLATE_WHOLE_BLOCKS)"}}));
  ASSERT_TRUE(unselected.ok()) << unselected.status().ToString();
  EXPECT_NE(Failure(*unselected).find("which no combination of the kernel's ASCENDC_TPL_SEL has"),
            std::string::npos)
      << unselected->RenderText();

  auto undeclared = Run(FloatOnly({{"ASCENDC_TPL_SEL_PARAM(context, static_cast<uint32_t>(dtype), "
                                    "tailMode);",
                                    "ASCENDC_TPL_SEL_PARAM(context, static_cast<uint32_t>(dtype), "
                                    "tailMode + 2);"}}));
  ASSERT_TRUE(undeclared.ok()) << undeclared.status().ToString();
  EXPECT_NE(Failure(*undeclared).find("passed GET_TPL_TILING_KEY a value its "
                                      "ASCENDC_TPL_ARGS_DECL does not declare"),
            std::string::npos)
      << undeclared->RenderText();
}

// A tiling function that fails is reported with the first error it logged (OP_LOGE), the
// reason its author wrote, not only its return code; its TilingParse ran before it.
TEST_F(TemplatePackageTest, AFailingTilingIsReportedWithWhatItLogged) {
  auto report = Run(FloatOnly({{"OP_CHECK_IF(total <= 0,", "OP_CHECK_IF(total < 64,"}}));
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  const std::string reason = Failure(*report);
  EXPECT_NE(reason.find("the tiling function of AddTemplate returned"), std::string::npos)
      << reason;
  EXPECT_NE(reason.find("it logged: AddTemplate: x has 1 elements"), std::string::npos) << reason;

  // The tiling reads what its TilingParse filled (GetCompileInfo): a parse that records no
  // cores makes the tiling fail on its own check.
  auto no_cores = Run(FloatOnly({{"info->coreNum = platform.GetCoreNumAiv();",
                                  "info->coreNum = 0;"}}));
  ASSERT_TRUE(no_cores.ok()) << no_cores.status().ToString();
  EXPECT_NE(Failure(*no_cores).find("it logged: AddTemplate: the platform reports no cores or UB"),
            std::string::npos)
      << no_cores->RenderText();
}

}  // namespace
}  // namespace cannbot::engine
