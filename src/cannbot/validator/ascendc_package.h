// Operator packages on the ascendc target: reading a package's OpDef by running its own host
// code, and the build that launches its kernel through its own tiling function.
//
// DescribePackage compiles op_host/*.cpp with cannbot's emulated host API and a generated
// main() (ascendc/package.h), and runs the program confined exactly as the compiler runs (no
// network, only the system's directories and its own), to learn the tensors, dtype
// combinations and attributes the OpDef declares. MakeAscendcPackageTarget builds the plan for
// one dtype combination: the spec gains each tensor's element count and dimensions as sizes (computed by
// cannbot, never by the package), and the wrapper calls the package's tiling function per call
// (targets/ascendc/cannbot_package_launch.h) before launching the kernel as written.
//
// Thread-safety: pure functions; DescribePackage may run concurrently (own directories).
#pragma once

#include <string>
#include <vector>

#include "cannbot/ascendc/package.h"
#include "cannbot/ops/op_spec.h"
#include "cannbot/validator/ascendc_target.h"
#include "cannbot/validator/compiler.h"

namespace cannbot::validator {

// The package's OpDef. InvalidArgument (naming the package and the cause) when op_host does
// not compile against the emulated host API, defines no OP_ADD, or its program fails.
Result<ascendc::OpDefinition> DescribePackage(const Compiler& compiler,
                                              const ascendc::Package& package);

// The ascendc build of `op` for packages launched with each tensor in its dtype of `dtypes`
// (one per tensor, inputs then outputs, by OpDef name; ascendc/launch_dtype.h). InvalidArgument
// for a dtype the launch does not run, or a count that is not the op's.
Result<AscendcTarget> MakeAscendcPackageTarget(const ops::OpSpec& op,
                                               const std::vector<std::string>& dtypes);

}  // namespace cannbot::validator
