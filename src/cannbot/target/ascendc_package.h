// The ascendc target for operator packages: the same emulation, cost model, judge and prompts
// as the `ascendc` target, with a plan whose kernels are operator packages (op_host/ +
// op_kernel/, ascendc/package.h) launched through their own tiling function with each tensor
// in its dtype of one OpDef combination (ascendc/launch_dtype.h).
//
// A sample-style kernel (ascendc/sample.h) takes the same target with its one shape: its
// kernel is launched as its host program launched it (validator/ascendc_sample.h).
//
// Not registered by name: a caller that validates a package makes one per dtype combination
// (engine/package_validation.h) and passes it as the request's target, borrowed for the call.
// Ownership: a plain value. Thread-safety: every method is const.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cannbot/target/target.h"
#include "cannbot/validator/ascendc_target.h"

namespace cannbot::target {

class AscendcPackageTarget : public Target {
 public:
  // `dtypes`: one per tensor of the op, inputs then outputs, by OpDef name ("float32",
  // "int32", ...); MakePlan refuses a dtype the emulation does not launch, with the reason.
  // `sample_shape`: the kernels are samples, launched at that shape only.
  explicit AscendcPackageTarget(std::vector<std::string> dtypes,
                                std::optional<ops::Shape> sample_shape = std::nullopt);

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
  std::vector<std::string> dtypes_;
  std::optional<ops::Shape> sample_shape_;
  validator::AscendcJudge judge_;  // judges each output in its dtype
};

}  // namespace cannbot::target
