// The ascendc target through the whole validator: Ascend C kernels built with the emulation,
// run in the sandboxed runner, judged by the CANN precision standard, and compared by the
// cost model's estimates.
#include <gtest/gtest.h>
#include "builtin_ops.h"
#include "cannbot/target/registry.h"

#include "integration/package_support.h"
#include "integration/test_support.h"

namespace cannbot::validator {
namespace {

using testing::Fixture;
using testing::Kernel;
using testing::SourcePath;

class AscendcValidateTest : public testing::BuiltInValidatorTest {
 protected:

  Verdict Validate(const std::string& op, const std::string& candidate,
                   const std::string& baseline) {
    ValidationRequest request;
    request.op = op;
    request.target = *target::Parse("ascendc");
    request.candidate = Kernel(candidate);
    request.baseline = Kernel(baseline);
    request.seed = 77;
    auto verdict = validator_->Validate(request);
    EXPECT_TRUE(verdict.ok()) << verdict.status().ToString();
    return verdict.ok() ? *verdict : Verdict{};
  }

};

class AscendcValidatedExampleTest : public AscendcValidateTest,
                           public ::testing::WithParamInterface<const char*> {};

TEST_P(AscendcValidatedExampleTest, FastBeatsSlowByTheEstimate) {
  const std::string op = GetParam();
  Verdict v = Validate(op, SourcePath("examples/ascendc/" + op + "_fast.cpp"),
                       SourcePath("examples/ascendc/" + op + "_slow.cpp"));
  EXPECT_TRUE(v.accepted) << v.RenderText();
  EXPECT_EQ(v.target, "ascendc");
  ASSERT_TRUE(v.perf.has_value());
  EXPECT_TRUE(v.perf->estimated);
  EXPECT_GT(v.perf->speedup, 10.0);
  EXPECT_NE(v.reason.find("estimated"), std::string::npos) << v.reason;
  const nlohmann::json json = v.ToJson();
  EXPECT_TRUE(json["perf"]["estimated"].get<bool>());
  EXPECT_EQ(json["target"], "ascendc");
}

INSTANTIATE_TEST_SUITE_P(AscendcTarget, AscendcValidatedExampleTest,
                         ::testing::Values("add", "swish", "gelu", "layernorm"));

TEST_F(AscendcValidateTest, UnifiedBufferOverflowNamesTheRule) {
  Verdict v = Validate("add", Fixture("kernels/ascendc/ub_overflow.cpp"),
                       SourcePath("examples/ascendc/add_slow.cpp"));
  EXPECT_FALSE(v.accepted);
  EXPECT_EQ(v.layer, cannbot::validator::Layer::kSandbox);
  EXPECT_NE(v.reason.find("ub-overflow"), std::string::npos) << v.reason;
}

TEST_F(AscendcValidateTest, MisalignedCopyNamesTheRule) {
  Verdict v = Validate("add", Fixture("kernels/ascendc/misaligned_copy.cpp"),
                       SourcePath("examples/ascendc/add_slow.cpp"));
  EXPECT_FALSE(v.accepted);
  EXPECT_EQ(v.layer, cannbot::validator::Layer::kSandbox);
  EXPECT_NE(v.reason.find("copy-misaligned"), std::string::npos) << v.reason;
}

TEST_F(AscendcValidateTest, WrongNumbersFailThePrecisionStandard) {
  Verdict v = Validate("add", Fixture("kernels/ascendc/wrong_numbers.cpp"),
                       SourcePath("examples/ascendc/add_slow.cpp"));
  EXPECT_FALSE(v.accepted);
  EXPECT_EQ(v.layer, cannbot::validator::Layer::kNumeric);
  EXPECT_NE(v.reason.find("CANN precision standard"), std::string::npos) << v.reason;
}

// The estimate is made from the counts the emulation sent down its count channel as the
// kernel ran, never from what the kernel's process printed.
TEST_F(AscendcValidateTest, ACandidateThatWipesTheEmulationsCountersIsCaught) {
  Verdict v = Validate("add", Fixture("kernels/ascendc/wipes_counters.cpp"),
                       SourcePath("examples/ascendc/add_fast.cpp"));
  EXPECT_FALSE(v.accepted);
  EXPECT_EQ(v.layer, Layer::kPerf);
  EXPECT_NE(v.reason.find("candidate: the statistics line printed in the kernel's process "
                          "disagrees with the counts"),
            std::string::npos)
      << v.reason;
  EXPECT_NE(v.reason.find("total vector_repeats: the line says 0"), std::string::npos) << v.reason;
}

TEST_F(AscendcValidateTest, ACandidateThatWritesTheCountChannelIsCaught) {
  Verdict v = Validate("add", Fixture("kernels/ascendc/forges_count_record.cpp"),
                       SourcePath("examples/ascendc/add_fast.cpp"));
  EXPECT_FALSE(v.accepted);
  EXPECT_EQ(v.layer, Layer::kPerf);
  EXPECT_NE(v.reason.find("holds records no launch writes"), std::string::npos) << v.reason;
  EXPECT_NE(v.reason.find("a second launch"), std::string::npos) << v.reason;
}

// The code that sends the counts cannot be patched: no memory may become executable.
TEST_F(AscendcValidateTest, ACandidateThatMakesItsCodeWritableIsStopped) {
  Verdict v = Validate("add", Fixture("kernels/ascendc/rewrites_code.cpp"),
                       SourcePath("examples/ascendc/add_fast.cpp"));
  EXPECT_FALSE(v.accepted);
  EXPECT_EQ(v.layer, Layer::kSandbox);
  EXPECT_NE(v.reason.find("candidate: "), std::string::npos) << v.reason;
  EXPECT_NE(v.reason.find("mprotect (making memory executable (changing code))"),
            std::string::npos)
      << v.reason;
}

TEST_F(AscendcValidateTest, APrintedRuleViolationDoesNotHideATrappedCall) {
  Verdict v = Validate("add", Fixture("kernels/ascendc/hides_socket_behind_a_rule.cpp"),
                       SourcePath("examples/ascendc/add_fast.cpp"));
  EXPECT_FALSE(v.accepted);
  EXPECT_EQ(v.layer, Layer::kSandbox);
  EXPECT_EQ(v.reason.find("the kernel made a forbidden system call: socket (network access)"), 0u)
      << v.reason;
}

TEST_F(AscendcValidateTest, ScalarWorkOnRawUnifiedBufferAddressesGetsNoEstimate) {
  Verdict v = Validate("add", Fixture("kernels/ascendc/raw_ub_scalar_loop.cpp"),
                       SourcePath("examples/ascendc/add_fast.cpp"));
  EXPECT_FALSE(v.accepted);
  EXPECT_EQ(v.layer, Layer::kPerf);
  EXPECT_NE(v.reason.find("candidate: takes 3072 raw Unified Buffer address(es) from "
                          "LocalTensor::GetPhyAddr but issues no register-function instruction"),
            std::string::npos)
      << v.reason;
}

TEST_F(AscendcValidateTest, MissingBaselineIsAnInvalidRequest) {
  ValidationRequest request;
  request.op = "add";
  request.target = *target::Parse("ascendc");
  request.candidate = Kernel(SourcePath("examples/ascendc/add_fast.cpp"));
  auto verdict = validator_->Validate(request);
  ASSERT_FALSE(verdict.ok());
  EXPECT_EQ(verdict.status().code(), Status::Code::kInvalidArgument);
}

TEST_F(AscendcValidateTest, CpuKernelIsNotAnAscendcKernel) {
  Verdict v = Validate("add", SourcePath("examples/add/naive.cpp"),
                       SourcePath("examples/ascendc/add_slow.cpp"));
  EXPECT_EQ(v.layer, cannbot::validator::Layer::kCompile);
  EXPECT_NE(v.reason.find("add_kernel"), std::string::npos) << v.reason;
}

TEST_F(AscendcValidateTest, UnknownTargetIsRefusedNamingTheAllowedOnes) {
  auto target = target::Parse("tpu");
  ASSERT_FALSE(target.ok());
  EXPECT_EQ(target.status().code(), Status::Code::kInvalidArgument);
  EXPECT_NE(target.status().message().find("'target' must be one of: cpu, ascendc (got \"tpu\")"),
            std::string::npos)
      << target.status().message();
}

}  // namespace
}  // namespace cannbot::validator
