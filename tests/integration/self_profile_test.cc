// Self-profiling a real kernel in the sandboxed runner: timing, roofline metrics, the
// reference check, and graceful degradation when hardware counters are missing.
#include <gtest/gtest.h>
#include "builtin_ops.h"

#include "cannbot/diagnosis/diagnosis.h"
#include "cannbot/ops/registry.h"
#include "cannbot/profile/metric_names.h"
#include "cannbot/validator/self_profile.h"
#include "integration/test_support.h"

namespace cannbot {
namespace {

namespace m = profile::metric;

validator::SelfProfileConfig ShortConfig() {
  validator::SelfProfileConfig config;
  config.compiler = testing::TestConfig().compiler;
  config.rounds = 5;
  config.max_seconds = 1;
  config.counter_seconds = 0.2;
  config.seed = 11;
  return config;
}

// `op`'s kernel at `path` self-profiled with ShortConfig and no hardware counters.
Result<profile::Profile> ProfileWithoutCounters(const std::string& op, const std::string& path) {
  auto store = testing::SharedStore();
  validator::SelfProfileConfig config = ShortConfig();
  config.hardware_counters = false;
  return validator::SelfProfile(*cannbot_test::BuiltInOps().Find(op), testing::Kernel(path),
                                store.get(), config);
}

TEST(SelfProfileTest, TimesAnElementwiseKernelOnItsPerfShape) {
  auto store = testing::SharedStore();
  const ops::OpSpec* op = cannbot_test::BuiltInOps().Find("swish");
  ASSERT_NE(op, nullptr);
  auto kernel = testing::Kernel(testing::SourcePath("examples/swish/naive.cpp"));
  auto profile = validator::SelfProfile(*op, kernel, store.get(), ShortConfig());
  ASSERT_TRUE(profile.ok()) << profile.status().ToString();

  EXPECT_EQ(profile->source_tool, "self-profile");
  EXPECT_FALSE(profile->device.empty());
  ASSERT_EQ(profile->kernels.size(), 1u);
  const profile::KernelProfile& k = profile->kernels[0];
  EXPECT_EQ(k.name, "swish");
  EXPECT_EQ(k.core_type, "CPU");
  EXPECT_EQ(k.input_shapes, op->PerfShape().Describe());
  EXPECT_GT(k.duration_us, 0);
  for (const char* name : {m::kMemoryBandwidth, m::kGflops, m::kArithmeticIntensity,
                           m::kComputeUtilization, m::kMemoryUtilization, m::kRooflineFraction,
                           m::kPeakGflops, m::kPeakMemoryBandwidth}) {
    ASSERT_NE(k.Find(name), nullptr) << name;
    EXPECT_GT(k.Find(name)->value, 0) << name;
  }
  EXPECT_LE(k.Find(m::kDurationCiLowUs)->value, k.duration_us);
  EXPECT_GE(k.Find(m::kDurationCiHighUs)->value, k.duration_us);
  // GB/s, time and bytes agree.
  EXPECT_NEAR(k.Find(m::kMemoryBandwidth)->value * 1e3 * k.duration_us,
              op->Bytes(op->PerfShape()), op->Bytes(op->PerfShape()) * 1e-6);
  EXPECT_LE(k.Find(m::kRooflineFraction)->value, 1.5);
  // Counters either arrived or the notes say why not (virtual machines: "<not supported>").
  bool counters = k.Find(m::kIpc) != nullptr;
  bool explained = false;
  for (const std::string& note : profile->notes) {
    explained |= note.find("hardware counters") != std::string::npos ||
                 note.find("counters not available") != std::string::npos;
  }
  EXPECT_TRUE(counters || explained);

  diagnosis::Diagnosis d = diagnosis::Diagnose(*profile, k);
  EXPECT_FALSE(d.findings.empty()) << d.RenderText();
  EXPECT_NO_THROW(profile->ToJson().dump());
}

// Without counters the code is the evidence: the naive swish's loop calls expf per element,
// so GCC leaves it scalar; the diagnosis says that, with the skills' remedy, not "latency".
TEST(SelfProfileTest, TheNaiveSwishIsDiagnosedFromItsCode) {
  auto profile = ProfileWithoutCounters("swish", testing::SourcePath("examples/swish/naive.cpp"));
  ASSERT_TRUE(profile.ok()) << profile.status().ToString();
  const profile::KernelProfile& k = profile->kernels[0];
  ASSERT_NE(k.Find(m::kVectorizedLoopShare), nullptr);
  EXPECT_EQ(k.Find(m::kVectorizedLoopShare)->value, 0);
  EXPECT_NE(k.Find(m::kVectorizedLoopShare)->note.find("the call to expf blocks it"),
            std::string::npos)
      << k.Find(m::kVectorizedLoopShare)->note;
  ASSERT_NE(k.Find(m::kMathCalls), nullptr);
  EXPECT_EQ(k.Find(m::kMathCalls)->note, "expf");
  ASSERT_NE(k.Find(m::kScalarFpShare), nullptr);
  EXPECT_GE(k.Find(m::kScalarFpShare)->value, 0.9);
  // The subnormal probe ran on the op's edge inputs.
  ASSERT_NE(k.Find(m::kSubnormalSlowdown), nullptr);
  EXPECT_GT(k.Find(m::kSubnormalSlowdown)->value, 0);
  EXPECT_NE(k.Find(m::kSubnormalSlowdown)->note.find("edge inputs"), std::string::npos);

  const diagnosis::Diagnosis d = diagnosis::Diagnose(*profile, k);
  ASSERT_NE(d.Top(), nullptr);
  EXPECT_EQ(d.Top()->bottleneck, diagnosis::kLowVectorization) << d.RenderText();
  EXPECT_NE(d.Top()->summary.find("expf"), std::string::npos) << d.Top()->summary;
  EXPECT_NE(d.Top()->summary.find("vectorised polynomial"), std::string::npos);
  EXPECT_FALSE(d.Has(diagnosis::kLatencyBound)) << d.RenderText();
}

// The optimized example is vector code (intrinsics and a vectorised tail): no finding says
// otherwise, and it makes no subnormal numbers on the edge inputs.
TEST(SelfProfileTest, TheOptimizedSwishIsNotCalledScalar) {
  auto profile =
      ProfileWithoutCounters("swish", testing::SourcePath("examples/swish/optimized.cpp"));
  ASSERT_TRUE(profile.ok()) << profile.status().ToString();
  const profile::KernelProfile& k = profile->kernels[0];
  ASSERT_NE(k.Find(m::kVectorizedLoopShare), nullptr);
  EXPECT_EQ(k.Find(m::kVectorizedLoopShare)->value, 1) << k.Find(m::kVectorizedLoopShare)->note;
  EXPECT_EQ(k.Find(m::kMathCalls)->value, 0);
  EXPECT_EQ(k.Find(m::kSubnormalResults)->value, 0) << k.Find(m::kSubnormalResults)->note;
  // Clean MXCSR flags: flush-to-zero would change nothing, so nothing is timed (a timing of
  // two identical runs read 2x under a loaded suite).
  ASSERT_NE(k.Find(m::kSubnormalSlowdown), nullptr);
  EXPECT_EQ(k.Find(m::kSubnormalSlowdown)->value, 1);
  EXPECT_NE(k.Find(m::kSubnormalSlowdown)->note.find("not timed"), std::string::npos)
      << k.Find(m::kSubnormalSlowdown)->note;
  const diagnosis::Diagnosis d = diagnosis::Diagnose(*profile, k);
  EXPECT_FALSE(d.Has(diagnosis::kLowVectorization)) << d.RenderText();
  EXPECT_FALSE(d.Has(diagnosis::kSubnormalNumbers)) << d.RenderText();
}

// A kernel that makes subnormal numbers on its edge inputs is timed both ways; the figure is
// the CPU's (about 1x on AMD cores, far more on Intel ones), the flags say so on any CPU.
TEST(SelfProfileTest, AKernelMakingSubnormalsIsTimedWithAndWithoutFlushToZero) {
  auto profile =
      ProfileWithoutCounters("softmax", testing::Fixture("kernels/softmax/subnormal_trap.cpp"));
  ASSERT_TRUE(profile.ok()) << profile.status().ToString();
  const profile::KernelProfile& k = profile->kernels[0];
  EXPECT_EQ(k.Find(m::kSubnormalResults)->value, 1) << k.Find(m::kSubnormalResults)->note;
  ASSERT_NE(k.Find(m::kSubnormalSlowdown), nullptr);
  EXPECT_GT(k.Find(m::kSubnormalSlowdown)->value, 0);
  EXPECT_NE(k.Find(m::kSubnormalSlowdown)->note.find("fastest batch"), std::string::npos)
      << k.Find(m::kSubnormalSlowdown)->note;
}

TEST(SelfProfileTest, AWrongKernelIsNotProfiled) {
  auto wrong = ProfileWithoutCounters("swish", testing::Fixture("kernels/swish/wrong_formula.cpp"));
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.status().code(), Status::Code::kInvalidArgument);
  EXPECT_NE(wrong.status().message().find("is not a correct swish kernel"), std::string::npos)
      << wrong.status().message();

  auto broken =
      ProfileWithoutCounters("swish", testing::Fixture("kernels/swish/compile_error.cpp"));
  ASSERT_FALSE(broken.ok());
  EXPECT_NE(broken.status().message().find("does not compile"), std::string::npos);
}

}  // namespace
}  // namespace cannbot
