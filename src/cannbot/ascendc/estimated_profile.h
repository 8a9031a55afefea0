// What msprof's op summary would show for an emulated Ascend C launch, as a profile kernel:
// the cost model's estimate (cost_model.h) in the profile model's canonical metrics, so the
// diagnosis rules read an emulated kernel the way they read a measured one
// (`cannbot diagnose --target ascendc`).
//
// The mapping: duration = the estimate; block dim = the launch's; vec_ratio, scalar_ratio =
// the slowest block's vector and scalar shares; its copy share split into mte2_ratio and
// mte3_ratio by the bytes each direction moved; memory_bandwidth = the GM bytes over the
// estimate, against the device's HBM bandwidth; core_count = the device's vector cores.
// Every metric carries the note that it is an estimate.
//
// Thread-safety: pure functions.
#pragma once

#include <string>

#include "cannbot/ascendc/cost_model.h"
#include "cannbot/ascendc/device_profile.h"
#include "cannbot/ascendc/stats.h"
#include "cannbot/profile/profile.h"

namespace cannbot::ascendc {

// The source_tool of profiles made this way.
inline constexpr const char* kEstimatedProfileTool = "cannbot-cost-model";

profile::KernelProfile EstimatedKernel(const std::string& name, const LaunchStats& stats,
                                       const CostEstimate& estimate, const DeviceProfile& device);

}  // namespace cannbot::ascendc
