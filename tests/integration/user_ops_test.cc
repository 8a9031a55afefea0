// Users' own ops (docs/op-spec.md) through the real validator: spec files loaded from a
// directory, fp16 tensors, a sandboxed user reference, differential mode, and references that
// misbehave refused before any candidate runs.
#include <gtest/gtest.h>

#include <filesystem>

#include "builtin_ops.h"
#include "cannbot/ops/op_spec_file.h"
#include "cannbot/util/fs.h"
#include "cannbot/validator/validator.h"
#include "integration/test_support.h"

namespace cannbot::validator {
namespace {

using testing::Fixture;
using testing::Kernel;

std::string UserKernel(const std::string& name) {
  return Fixture("user_ops/kernels/" + name + ".cpp");
}

class UserOpsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = testing::SharedStore();
    ASSERT_NE(store_, nullptr);
    registry_ = std::make_unique<ops::Registry>(cannbot_test::BuiltInOps());
    const Status added = ops::AddOpsDirs({Fixture("user_ops")}, registry_.get());
    ASSERT_TRUE(added.ok()) << added.ToString();
    validator_ = std::make_unique<Validator>(testing::TestConfig(), store_.get(), *registry_);
  }

  Result<Verdict> Validate(const std::string& op, const std::string& candidate,
                           const std::string& baseline = "") {
    ValidationRequest request;
    request.op = op;
    request.candidate = Kernel(UserKernel(candidate));
    if (!baseline.empty()) request.baseline = Kernel(UserKernel(baseline));
    request.seed = 4321;
    return validator_->Validate(request);
  }

  std::unique_ptr<store::Store> store_;
  std::unique_ptr<ops::Registry> registry_;
  std::unique_ptr<Validator> validator_;
};

TEST_F(UserOpsTest, AnFp16RmsNormIsAcceptedAgainstItsSandboxedReference) {
  auto v = Validate("rms_norm", "rms_norm_fast", "rms_norm_naive");
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_TRUE(v->accepted) << v->RenderText();
  EXPECT_NE(v->reference.find("rms_norm_ref.cpp (sandboxed)"), std::string::npos) << v->reference;
  ASSERT_TRUE(v->numeric.has_value());
  // The three listed cases and the random one drawn within the declared bounds.
  ASSERT_EQ(v->numeric->cases.size(), 4u);
  EXPECT_EQ(v->numeric->cases.back().label, "random");
  EXPECT_EQ(v->numeric->cases.front().tolerance.kind, ops::Tolerance::Kind::kCann);
  EXPECT_GE(v->perf->speedup_ci.low, 1.05);
  // fp16 traffic: three half tensors' worth, not fp32's.
  const ops::OpSpec* op = registry_->Find("rms_norm");
  EXPECT_DOUBLE_EQ(op->Bytes(op->PerfShape()), 2.0 * (2 * 256 * 4096 + 4096));
}

TEST_F(UserOpsTest, AWrongFp16KernelIsRejectedAtTheNumericLayerWithTheFirstBadIndex) {
  auto v = Validate("rms_norm", "rms_norm_wrong");
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_FALSE(v->accepted);
  EXPECT_EQ(v->layer, Layer::kNumeric) << v->reason;
  EXPECT_NE(v->reason.find("first at index"), std::string::npos) << v->reason;
}

TEST_F(UserOpsTest, ABroadcastAddIsJudgedExactly) {
  auto good = Validate("add_broadcast", "add_broadcast_fast", "add_broadcast_naive");
  ASSERT_TRUE(good.ok()) << good.status().ToString();
  EXPECT_TRUE(good->accepted) << good->RenderText();
  EXPECT_EQ(good->numeric->cases.front().tolerance.kind, ops::Tolerance::Kind::kExact);
  auto wrong = Validate("add_broadcast", "add_broadcast_wrong");
  ASSERT_TRUE(wrong.ok()) << wrong.status().ToString();
  EXPECT_EQ(wrong->layer, Layer::kNumeric) << wrong->reason;
  EXPECT_NE(wrong->reason.find("first at index"), std::string::npos) << wrong->reason;
}

TEST_F(UserOpsTest, DifferentialModeAcceptsAFasterEquivalentAndSaysSo) {
  auto v = Validate("scale_shift", "scale_shift_fast", "scale_shift_naive");
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_TRUE(v->accepted) << v->RenderText();
  EXPECT_NE(v->reference.find("differential mode"), std::string::npos) << v->reference;
  EXPECT_NE(v->reason.find("differential mode"), std::string::npos) << v->reason;
  EXPECT_NE(v->RenderText().find("differential mode"), std::string::npos);
}

TEST_F(UserOpsTest, DifferentialModeRejectsAKernelThatDiffersFromTheBaseline) {
  auto v = Validate("scale_shift", "scale_shift_differs", "scale_shift_naive");
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_FALSE(v->accepted);
  EXPECT_EQ(v->layer, Layer::kNumeric) << v->reason;
}

TEST_F(UserOpsTest, DifferentialModeWithoutABaselineIsRefused) {
  auto v = Validate("scale_shift", "scale_shift_fast");
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().code(), Status::Code::kInvalidArgument);
  EXPECT_NE(v.status().message().find("differential mode"), std::string::npos);
}

// A spec directory with rms_norm.toml whose reference is `reference_source`.
class BadReferenceTest : public UserOpsTest {
 protected:
  Status ValidateWithReference(const std::string& reference_source) {
    auto dir = TempDir::Create("cannbot-bad-reference");
    if (!dir.ok()) return dir.status();
    auto spec = ReadFile(Fixture("user_ops/rms_norm.toml"));
    if (!spec.ok()) return spec.status();
    CANNBOT_RETURN_IF_ERROR(WriteFile(dir->path() + "/rms_norm.toml", *spec));
    CANNBOT_RETURN_IF_ERROR(WriteFile(dir->path() + "/rms_norm_ref.cpp", reference_source));
    ops::Registry registry = cannbot_test::BuiltInOps();
    CANNBOT_RETURN_IF_ERROR(ops::AddOpsDirs({dir->path()}, &registry));
    Validator validator(testing::TestConfig(), store_.get(), registry);
    ValidationRequest request;
    request.op = "rms_norm";
    request.candidate = Kernel(UserKernel("rms_norm_fast"));
    request.seed = 7;
    auto v = validator.Validate(request);
    if (v.ok()) return Status::Internal("validated: " + v->reason);
    return v.status();
  }
};

constexpr const char* kSignature =
    "extern \"C\" void rms_norm_reference(const half* x, const half* gamma, half* y, "
    "int64_t rows, int64_t cols, float eps)";

TEST_F(BadReferenceTest, AReferenceThatDoesNotCompileIsRefusedNamingTheFile) {
  const Status s = ValidateWithReference(std::string(kSignature) + " { this is not C++ }\n");
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << s.ToString();
  EXPECT_NE(s.message().find("rms_norm_ref.cpp"), std::string::npos) << s.ToString();
}

TEST_F(BadReferenceTest, AReferenceThatCrashesIsRefused) {
  const Status s = ValidateWithReference(std::string(kSignature) +
                                         " { (void)x; (void)gamma; (void)rows; (void)cols; "
                                         "(void)eps; y[-100000000] = half(1); }\n");
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << s.ToString();
  EXPECT_NE(s.message().find("the reference rms_norm_ref.cpp"), std::string::npos) << s.ToString();
}

TEST_F(BadReferenceTest, ANonDeterministicReferenceIsRefused) {
  // Reads the clock: two runs differ in their outputs.
  const Status s = ValidateWithReference(
      "#include <x86intrin.h>\n" + std::string(kSignature) +
      " { (void)x; (void)gamma; (void)eps; for (int64_t i = 0; i < rows * cols; ++i) "
      "y[i] = half(float(__rdtsc() % 1000)); }\n");
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << s.ToString();
  EXPECT_NE(s.message().find("not deterministic"), std::string::npos) << s.ToString();
}

TEST_F(BadReferenceTest, AReferenceThatLeavesOutputsUnwrittenIsRefused) {
  const Status s = ValidateWithReference(std::string(kSignature) +
                                         " { (void)x; (void)gamma; (void)eps; "
                                         "for (int64_t i = 1; i < rows * cols; ++i) y[i] = x[i]; }\n");
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << s.ToString();
  EXPECT_NE(s.message().find("never wrote element 0"), std::string::npos) << s.ToString();
}

}  // namespace
}  // namespace cannbot::validator
