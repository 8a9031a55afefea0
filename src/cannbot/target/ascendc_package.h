// The ascendc target for operator packages: the same emulation, cost model, judge and prompts
// as the `ascendc` target, with a plan whose kernels are operator packages (op_host/ +
// op_kernel/, ascendc/package.h) launched through their own tiling function with every tensor
// in one dtype of their OpDef.
//
// Not registered by name: a caller that validates a package makes one per dtype combination
// (engine/package_validation.h) and passes it as the request's target, borrowed for the call.
// Ownership: a plain value. Thread-safety: every method is const.
#pragma once

#include <string>

#include "cannbot/target/target.h"
#include "cannbot/validator/ascendc_target.h"

namespace cannbot::target {

class AscendcPackageTarget : public Target {
 public:
  // `dtype`: "float32", "float16" or "bfloat16" (MakePlan refuses others with the reason).
  explicit AscendcPackageTarget(std::string dtype);

  std::string_view name() const override;
  std::string_view summary() const override;
  Result<Plan> MakePlan(const ops::OpSpec& op) const override;
  bool HasReferenceBaseline() const override { return false; }
  bool RunsOnThisCpu() const override { return false; }
  Result<validator::PerfReport> MeasurePerf(const PerfJob& job) const override;
  std::string DescribeHardware(const HardwareFacts& facts) const override;
  PromptParts Prompt(const ops::OpSpec& op) const override;
  std::vector<std::string_view> HardwareWords() const override;

 private:
  const Target& ascendc_;  // the registered ascendc target, for everything but the plan
  std::string dtype_;
  validator::AscendcJudge judge_;  // judges in dtype_
};

}  // namespace cannbot::target
