// The cost model's estimate as a profile kernel (ascendc/estimated_profile.h): the metrics the
// diagnosis reads, and the diagnosis it leads to for the two kernels every Ascend C developer
// writes first: one core working element by element, and every core streaming.
#include <gtest/gtest.h>

#include "cannbot/ascendc/estimated_profile.h"
#include "cannbot/diagnosis/diagnosis.h"
#include "cannbot/profile/metric_names.h"

namespace cannbot::ascendc {
namespace {

namespace m = profile::metric;

profile::Profile OneKernel(const profile::KernelProfile& k) {
  profile::Profile p;
  p.source_tool = kEstimatedProfileTool;
  p.kernels.push_back(k);
  return p;
}

TEST(AscendcEstimatedProfileTest, MetricsComeFromTheEstimateAndTheLaunch) {
  LaunchStats stats;
  stats.block_dim = 40;
  stats.max_block.gm_to_ub_bytes = 3000;
  stats.max_block.ub_to_gm_bytes = 1000;
  CostEstimate e;
  e.total_us = 120;
  e.copy_busy = 0.8;
  e.vector_busy = 0.3;
  e.scalar_busy = 0.05;
  e.achieved_gbps = 700;
  const DeviceProfile device = Ascend910BProfile();
  const profile::KernelProfile k = EstimatedKernel("add", stats, e, device);
  EXPECT_EQ(k.duration_us, 120);
  EXPECT_EQ(k.block_dim, 40);
  EXPECT_EQ(k.core_type, "AI_VECTOR_CORE");
  EXPECT_DOUBLE_EQ(k.Find(m::kMte2Ratio)->value, 0.6);  // 3/4 of the copy time moves data in
  EXPECT_DOUBLE_EQ(k.Find(m::kMte3Ratio)->value, 0.2);
  EXPECT_DOUBLE_EQ(k.Find(m::kVecRatio)->value, 0.3);
  EXPECT_DOUBLE_EQ(k.Find(m::kScalarRatio)->value, 0.05);
  EXPECT_DOUBLE_EQ(k.Find(m::kMemoryUtilization)->value, 700 / device.hbm_gbps);
  EXPECT_DOUBLE_EQ(k.Find(m::kCoreCount)->value, device.vector_cores);
  EXPECT_NE(k.Find(m::kVecRatio)->note.find("estimated"), std::string::npos);
}

TEST(AscendcEstimatedProfileTest, OneScalarCoreIsDiagnosedAsScalarAndNarrow) {
  LaunchStats stats;
  stats.block_dim = 1;
  CostEstimate e;
  e.total_us = 70000;
  e.copy_busy = 0.01;
  e.vector_busy = 0.0;
  e.scalar_busy = 0.99;
  const auto k = EstimatedKernel("add_slow", stats, e, Ascend910BProfile());
  const diagnosis::Diagnosis d = diagnosis::Diagnose(OneKernel(k), k);
  EXPECT_TRUE(d.Has(diagnosis::kLowVectorization)) << d.RenderText();
  EXPECT_TRUE(d.Has(diagnosis::kControlFlow)) << d.RenderText();
  EXPECT_TRUE(d.Has(diagnosis::kCoreImbalance)) << d.RenderText();
  EXPECT_FALSE(d.Has(diagnosis::kMemoryBound)) << d.RenderText();
}

TEST(AscendcEstimatedProfileTest, EveryCoreStreamingIsDiagnosedAsMemoryBound) {
  LaunchStats stats;
  stats.block_dim = 48;
  stats.max_block.gm_to_ub_bytes = 2 << 20;
  stats.max_block.ub_to_gm_bytes = 1 << 20;
  CostEstimate e;
  e.total_us = 60;
  e.copy_busy = 1.0;
  e.vector_busy = 0.1;
  e.achieved_gbps = 1300;
  const auto k = EstimatedKernel("add_fast", stats, e, Ascend910BProfile());
  const diagnosis::Diagnosis d = diagnosis::Diagnose(OneKernel(k), k);
  EXPECT_TRUE(d.Has(diagnosis::kMemoryBound)) << d.RenderText();
  EXPECT_FALSE(d.Has(diagnosis::kCoreImbalance)) << d.RenderText();
  EXPECT_FALSE(d.Has(diagnosis::kControlFlow)) << d.RenderText();
}

}  // namespace
}  // namespace cannbot::ascendc
