#include "cannbot/ascendc/estimated_profile.h"

#include <algorithm>

#include "cannbot/profile/metric_names.h"

namespace cannbot::ascendc {

namespace {
constexpr const char* kNote = "estimated by cannbot's cost model of the emulated launch";

double Share(double value) { return std::clamp(value, 0.0, 1.0); }
}  // namespace

profile::KernelProfile EstimatedKernel(const std::string& name, const LaunchStats& stats,
                                       const CostEstimate& estimate, const DeviceProfile& device) {
  namespace m = profile::metric;
  profile::KernelProfile k;
  k.name = name;
  k.core_type = stats.UsesCube() ? "AI_CORE" : "AI_VECTOR_CORE";
  k.launches = 1;
  k.duration_us = estimate.total_us;
  k.block_dim = stats.block_dim;
  const double in = static_cast<double>(stats.max_block.gm_to_ub_bytes);
  const double out = static_cast<double>(stats.max_block.ub_to_gm_bytes);
  const double in_share = in + out > 0 ? in / (in + out) : 0.0;
  k.metrics[m::kVecRatio] = {Share(estimate.vector_busy), "ratio", kNote};
  k.metrics[m::kScalarRatio] = {Share(estimate.scalar_busy), "ratio", kNote};
  k.metrics[m::kMte2Ratio] = {Share(estimate.copy_busy * in_share), "ratio", kNote};
  k.metrics[m::kMte3Ratio] = {Share(estimate.copy_busy * (1.0 - in_share)), "ratio", kNote};
  k.metrics[m::kMemoryBandwidth] = {estimate.achieved_gbps, "GB/s", kNote};
  k.metrics[m::kPeakMemoryBandwidth] = {device.hbm_gbps, "GB/s", "the device profile's HBM"};
  k.metrics[m::kMemoryUtilization] = {Share(estimate.achieved_gbps / device.hbm_gbps), "ratio",
                                      kNote};
  if (stats.UsesCube()) {
    k.metrics[m::kMacRatio] = {Share(estimate.cube_busy), "ratio", kNote};
    k.metrics[m::kCoreCount] = {static_cast<double>(device.cube_cores), "count",
                                "the device profile's cube (AI) cores"};
  } else {
    k.metrics[m::kCoreCount] = {static_cast<double>(device.vector_cores), "count",
                                "the device profile's vector cores"};
  }
  return k;
}

}  // namespace cannbot::ascendc
