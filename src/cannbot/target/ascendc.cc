// The ascendc target: Ascend C vector kernels run on cannbot's CPU emulation of the
// programming model (validator/ascendc_target.h, docs/ascendc.md); outputs judged with the
// CANN precision standard, speed estimated by the device cost model.
#include "cannbot/ascendc/contract.h"
#include "cannbot/target/target.h"
#include "cannbot/util/data_dir.h"
#include "cannbot/util/fs.h"
#include "cannbot/validator/ascendc_target.h"

namespace cannbot::target {
namespace {

class Ascendc : public Target {
 public:
  std::string_view name() const override { return "ascendc"; }
  std::string_view summary() const override {
    return "Ascend C kernels on cannbot's emulation; speed estimated by the device cost model";
  }

  Result<Plan> MakePlan(const ops::OpSpec& op) const override {
    CANNBOT_RETURN_IF_ERROR(validator::CheckEmulatedOp(op, "the ascendc target", true));
    CANNBOT_ASSIGN_OR_RETURN(validator::AscendcTarget built, validator::MakeAscendcTarget(op));
    Plan plan;
    plan.reference_spec = std::make_shared<ops::OpSpec>(op);
    plan.spec = std::make_shared<ops::OpSpec>(std::move(built.spec));
    plan.build = std::move(built.build);
    plan.build.name = std::string(name());
    plan.judge = &judge_;
    return plan;
  }

  bool HasReferenceBaseline() const override { return false; }
  bool RunsOnThisCpu() const override { return false; }

  Result<validator::PerfReport> MeasurePerf(const PerfJob& job) const override {
    return validator::EstimateAscendcPerf(*job.spec, job.candidate_object, job.baseline_object,
                                          job.seed, *job.device, job.runner, job.perf,
                                          job.work_dir, job.reference);
  }

  std::string DescribeHardware(const HardwareFacts& facts) const override {
    return ascendc::DescribeDevice(*facts.device);
  }

  PromptParts Prompt(const ops::OpSpec& op) const override {
    PromptParts parts;
    parts.contract_note = ascendc::DescribeAscendcContract(op);
    auto format = ReadFile(DataPath("prompts/ascendc/output_format.md"), 1u << 16);
    if (format.ok()) parts.output_format = *format;
    return parts;
  }

  std::vector<std::string_view> HardwareWords() const override {
    return {"ascend*", "ai core", "aicore", "cann", "npu*", "unified buffer", "atlas", "昇腾", "达芬奇"};
  }

 private:
  validator::AscendcJudge judge_;
};

}  // namespace

const Target& AscendcTarget() {
  static const Ascendc target;
  return target;
}

}  // namespace cannbot::target
