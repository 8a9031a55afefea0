// Sample-style kernels on the ascendc target: running a sample's host program once to learn
// its launch, and the build that replays that launch with the op's tensors.
//
// DiscoverSample compiles the sample's host file (its main() renamed) with its kernel file
// and cannbot's CPU-debug runtime (targets/ascendc/cannbot_sample.h) into a program, and runs
// it confined exactly as the compiler runs, among the sample's files and input/ data; what it
// printed is parsed by ascendc::ParseSampleLaunch. MakeAscendcSampleTarget builds the plan for
// that launch: the op with one shape (the sample's), its tensors in the dtypes the kernel used,
// and a wrapper that replays the recorded arguments (ascendc/sample.h, SampleReplayFiles).
//
// Thread-safety: pure functions; DiscoverSample may run concurrently (own directories).
#pragma once

#include <string>
#include <vector>

#include "cannbot/ascendc/device_profile.h"
#include "cannbot/ascendc/sample.h"
#include "cannbot/ops/op_spec.h"
#include "cannbot/validator/ascendc_target.h"
#include "cannbot/validator/compiler.h"

namespace cannbot::validator {

// InvalidArgument (naming the sample and the cause) when the host program does not compile
// against the emulation, fails before its launch, or launches something the op cannot be.
// The host program sees `device` (its core count and UB size) as the replay's kernel does.
Result<ascendc::SampleLaunch> DiscoverSample(const Compiler& compiler,
                                             const ascendc::DeviceProfile& device,
                                             const ascendc::Sample& sample,
                                             const ops::OpSpec& op);

// The ascendc build of `op` at the sample's `shape`, its tensors in `dtypes` (inputs then
// outputs). InvalidArgument for a dtype the launch does not run.
Result<AscendcTarget> MakeAscendcSampleTarget(const ops::OpSpec& op, const ops::Shape& shape,
                                              const std::vector<std::string>& dtypes);

}  // namespace cannbot::validator
