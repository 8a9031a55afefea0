// Operator packages written for tiling template programming, the style of the current public
// CANN operator repositories (examples/ascendc/packages/add_template): the template entry runs
// the instance the tiling key selects in every dtype of the OpDef, and a key no instance has, a
// value the declaration lacks, or a failing tiling are each named. Also the tiling class
// framework (TilingBaseClass, REGISTER_TILING_TEMPLATE) of the repositories' bigger operators.
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

// The validator's device profile is the device the package meets: its TilingParse reads the
// profile's core count and UB size from the platform, and its kernel is built for that UB.
// The same package, made to insist on a 40-core device with 128 KB of UB (its tiling fails on
// another, its kernel does not build for another), passes on such a profile and does not
// build on the default 910B one.
TEST_F(TemplatePackageTest, TheConfiguredDeviceReachesTheTilingAndTheKernel) {
  const ascendc::PackageFiles insisting = FloatOnly(
      {{"  platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, info->ubSize);\n",
        "  platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, info->ubSize);\n"
        "  OP_CHECK_IF(info->coreNum != 40 || info->ubSize != 131072,\n"
        "              OP_LOGE(\"AddTemplate\", \"not the test device: %lld cores\",\n"
        "                      static_cast<long long>(info->coreNum)),\n"
        "              return ge::GRAPH_FAILED);\n"},
       {"#include \"kernel_operator.h\"\n",
        "#include \"kernel_operator.h\"\n"
        "static_assert(AscendC::TOTAL_UB_SIZE == 131072,\n"
        "              \"the kernel sees the device's UB\");\n"}});
  validator::ValidatorConfig config = testing::TestConfig();
  config.device.name = "Test NPU";
  config.device.vector_cores = 40;
  config.device.ub_bytes = 131072;
  validator::Validator on_device(config, store_.get(), cannbot_test::BuiltInOps());
  PackageRequest request;
  request.op = "add";
  request.seed = 7;
  auto package = ascendc::PackageFromFiles("add_template", insisting);
  ASSERT_TRUE(package.ok()) << package.status().ToString();
  request.candidate = *package;
  auto there = ValidatePackage(on_device, cannbot_test::BuiltInOps(), request);
  ASSERT_TRUE(there.ok()) << there.status().ToString();
  EXPECT_TRUE(there->ok()) << there->RenderText();

  auto elsewhere = Run(insisting);  // the default profile
  ASSERT_TRUE(elsewhere.ok()) << elsewhere.status().ToString();
  EXPECT_NE(elsewhere->RenderText().find("the kernel sees the device's UB"), std::string::npos)
      << elsewhere->RenderText();
}

// add_custom_fast's tiling as two tiling classes (the framework of the repositories' bigger
// operators): one core for small tensors at priority 100, every core at 200, both through
// the package's own tiling arithmetic; the registry runs them by priority until one handles
// the case.
const char* const kTilingClasses = R"(static ge::graphStatus TilingByHand(gert::TilingContext* context);

class OneCoreTiling : public TilingBaseClass {
 public:
  explicit OneCoreTiling(gert::TilingContext* context) : TilingBaseClass(context) {}

 protected:
  bool IsCapable() override { return total_ <= 8192; }
  ge::graphStatus GetPlatformInfo() override {
    ascendcPlatform_.reset(new platform_ascendc::PlatformAscendC(context_->GetPlatformInfo()));
    return ge::GRAPH_SUCCESS;
  }
  ge::graphStatus GetShapeAttrsInfo() override {
    total_ = context_->GetInputShape(0)->GetStorageShape().GetShapeSize();
    return ge::GRAPH_SUCCESS;
  }
  ge::graphStatus DoOpTiling() override { return TilingByHand(context_); }
  ge::graphStatus DoLibApiTiling() override { return ge::GRAPH_SUCCESS; }
  uint64_t GetTilingKey() const override { return 0; }
  ge::graphStatus GetWorkspaceSize() override { return ge::GRAPH_SUCCESS; }
  ge::graphStatus PostTiling() override { return ge::GRAPH_SUCCESS; }
  int64_t total_ = 0;
};

class EveryCoreTiling : public OneCoreTiling {
 public:
  explicit EveryCoreTiling(gert::TilingContext* context) : OneCoreTiling(context) {}

 protected:
  bool IsCapable() override { return true; }
};

REGISTER_TILING_TEMPLATE("AddCustom", OneCoreTiling, 100);
REGISTER_TILING_TEMPLATE("AddCustom", EveryCoreTiling, 200);

static ge::graphStatus TilingFunc(gert::TilingContext* context) {
  return TilingRegistry::GetInstance().DoTilingImpl(context);
}

static ge::graphStatus TilingByHand(gert::TilingContext* context) {)";

class TilingClassPackageTest : public testing::BuiltInValidatorTest {
 protected:
  // add_custom_fast in float32 with its tiling as classes, and `edits` on top.
  std::string Failure(testing::TextEdits edits) {
    edits.insert(edits.begin(),
                 {{"{ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_BF16, ge::DT_INT32}", "{ge::DT_FLOAT}"},
                  {"{ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND}",
                   "{ge::FORMAT_ND}"},
                  {"#include \"tiling/platform/platform_ascendc.h\"",
                   "#include \"tiling/platform/platform_ascendc.h\"\n"
                   "#include \"tiling/tiling_base.h\"\n#include \"tiling/tiling_templates_registry.h\""},
                  {"static ge::graphStatus TilingFunc(gert::TilingContext* context) {",
                   kTilingClasses}});
    PackageRequest request;
    request.op = "add";
    request.seed = 11;
    auto package = ascendc::PackageFromFiles(
        "add_custom_fast", testing::EditedExamplePackage("add_custom_fast", edits));
    EXPECT_TRUE(package.ok()) << package.status().ToString();
    if (!package.ok()) return "no package";
    request.candidate = *package;
    auto report = ValidatePackage(*validator_, cannbot_test::BuiltInOps(), request);
    EXPECT_TRUE(report.ok()) << report.status().ToString();
    if (!report.ok() || report->runs.size() != 1 || !report->runs[0].check) return "no check";
    return report->runs[0].check->ok ? "" : report->runs[0].check->reason;
  }
};

// Both classes together tile every shape; a one-core class that fails shows that it is tried
// first on the small case, and nowhere once its priority number is above the other's; with
// neither capable of a large case, the tiling fails saying so.
TEST_F(TilingClassPackageTest, ClassesRunInPriorityOrderUntilOneHandlesTheCase) {
  EXPECT_EQ(Failure({}), "");

  const testing::TextEdits refuses = {
      {"  ge::graphStatus DoOpTiling() override { return TilingByHand(context_); }",
       "  ge::graphStatus DoOpTiling() override {\n"
       "    if (!IsEveryCore()) { OP_LOGE(context_, \"the one-core tiling refuses\"); "
       "return ge::GRAPH_FAILED; }\n    return TilingByHand(context_);\n  }\n"
       "  virtual bool IsEveryCore() const { return false; }"},
      {"  bool IsCapable() override { return true; }",
       "  bool IsCapable() override { return true; }\n"
       "  bool IsEveryCore() const override { return true; }"}};
  const std::string first = Failure(refuses);
  EXPECT_NE(first.find("it logged: AddCustom: the one-core tiling refuses"), std::string::npos)
      << first;
  EXPECT_NE(first.find("on case 'tiny'"), std::string::npos) << first;

  testing::TextEdits later = refuses;
  later.push_back({"OneCoreTiling, 100);", "OneCoreTiling, 300);"});
  EXPECT_EQ(Failure(later), "");

  const std::string none =
      Failure({{"  bool IsCapable() override { return true; }",
                "  bool IsCapable() override { return false; }"}});
  EXPECT_NE(none.find("no registered tiling class handles this case (2 tried"),
            std::string::npos)
      << none;
}

}  // namespace
}  // namespace cannbot::engine
