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
  auto v = Validate("rms_norm_custom", "rms_norm_fast", "rms_norm_naive");
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
  const ops::OpSpec* op = registry_->Find("rms_norm_custom");
  EXPECT_DOUBLE_EQ(op->Bytes(op->PerfShape()), 2.0 * (2 * 256 * 4096 + 4096));
}

TEST_F(UserOpsTest, AWrongFp16KernelIsRejectedAtTheNumericLayerWithTheFirstBadIndex) {
  auto v = Validate("rms_norm_custom", "rms_norm_wrong");
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
    request.op = "rms_norm_custom";
    request.candidate = Kernel(UserKernel("rms_norm_fast"));
    request.seed = 7;
    auto v = validator.Validate(request);
    if (v.ok()) return Status::Internal("validated: " + v->reason);
    return v.status();
  }
};

constexpr const char* kSignature =
    "extern \"C\" void rms_norm_custom_reference(const half* x, const half* gamma, half* y, "
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

namespace cannbot::validator {
namespace {

// One op spec with its reference and a candidate, written to a temporary directory.
struct TinyOp {
  std::string spec;
  std::string reference;
  std::string candidate;
};

Result<Verdict> ValidateTinyOp(const TinyOp& op, const std::string& name) {
  CANNBOT_ASSIGN_OR_RETURN(TempDir dir, TempDir::Create("cannbot-tiny-op"));
  CANNBOT_RETURN_IF_ERROR(WriteFile(dir.File(name + ".toml"), op.spec));
  CANNBOT_RETURN_IF_ERROR(WriteFile(dir.File("ref.cpp"), op.reference));
  ops::Registry registry = cannbot_test::BuiltInOps();
  CANNBOT_RETURN_IF_ERROR(ops::AddOpsDirs({dir.path()}, &registry));
  auto store = testing::SharedStore();
  Validator validator(testing::TestConfig(), store.get(), registry);
  ValidationRequest request;
  request.op = name;
  request.candidate = {"candidate.cpp", op.candidate};
  request.seed = 99;
  return validator.Validate(request);
}

// bfloat16 in, bfloat16 out: the prelude's struct converts to and from float.
TEST(UserOpsDtypeTest, ABfloat16KernelPassesTheNumericLayer) {
  const TinyOp op{
      R"(name = "double_bf16"
summary = "y = 2x in bfloat16"
reference = "ref.cpp"
flops = "n"
params = [
  { name = "x", kind = "input", dtype = "bfloat16", extent = "n" },
  { name = "y", kind = "output", dtype = "bfloat16", extent = "n" },
  { name = "n", kind = "size" },
]
shapes = [ { label = "odd", n = 37 }, { label = "perf", perf = true, n = 65536 } ]
[inputs.x]
distribution = "normal"
edges = ["subnormal", "max", "negative_zero"]
[tolerance]
exact = true
)",
      "extern \"C\" void double_bf16_reference(const bfloat16* x, bfloat16* y, int64_t n) {\n"
      "  for (int64_t i = 0; i < n; ++i) y[i] = bfloat16(float(x[i]) * 2.0f);\n}\n",
      "extern \"C\" void double_bf16(const bfloat16* x, bfloat16* y, int64_t n) {\n"
      "  for (int64_t i = 0; i < n; ++i) y[i] = float(x[i]) + float(x[i]);\n}\n"};
  auto v = ValidateTinyOp(op, "double_bf16");
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  ASSERT_TRUE(v->numeric.has_value()) << v->RenderText();
  EXPECT_TRUE(v->numeric->ok) << v->RenderText();
  EXPECT_NE(v->layer, Layer::kCompile);
  EXPECT_NE(v->layer, Layer::kNumeric);
}

// int8 in, int32 out, judged exactly; a kernel that wraps in int8 is caught.
TEST(UserOpsDtypeTest, AnInt8KernelThatOverflowsIsRejectedExactly) {
  TinyOp op{R"(name = "triple_i8"
summary = "y = 3x, int8 in, int32 out"
reference = "ref.cpp"
flops = "n"
params = [
  { name = "x", kind = "input", dtype = "int8_t", extent = "n" },
  { name = "y", kind = "output", dtype = "int32_t", extent = "n" },
  { name = "n", kind = "size" },
]
shapes = [ { label = "odd", n = 301 }, { label = "perf", perf = true, n = 65536 } ]
[inputs.x]
distribution = "integer"
low = -128
high = 127
)",
            "extern \"C\" void triple_i8_reference(const int8_t* x, int32_t* y, int64_t n) {\n"
            "  for (int64_t i = 0; i < n; ++i) y[i] = 3 * int32_t(x[i]);\n}\n",
            "extern \"C\" void triple_i8(const int8_t* x, int32_t* y, int64_t n) {\n"
            "  for (int64_t i = 0; i < n; ++i) y[i] = int8_t(3 * x[i]);\n}\n"};
  auto wrong = ValidateTinyOp(op, "triple_i8");
  ASSERT_TRUE(wrong.ok()) << wrong.status().ToString();
  EXPECT_EQ(wrong->layer, Layer::kNumeric) << wrong->RenderText();
  EXPECT_EQ(wrong->numeric->cases.front().tolerance.kind, ops::Tolerance::Kind::kExact);
  op.candidate = "extern \"C\" void triple_i8(const int8_t* x, int32_t* y, int64_t n) {\n"
                 "  for (int64_t i = 0; i < n; ++i) y[i] = x[i] * 3;\n}\n";
  auto right = ValidateTinyOp(op, "triple_i8");
  ASSERT_TRUE(right.ok()) << right.status().ToString();
  EXPECT_TRUE(right->numeric->ok) << right->RenderText();
}

}  // namespace
}  // namespace cannbot::validator
