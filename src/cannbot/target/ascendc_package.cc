#include "cannbot/target/ascendc_package.h"

#include <algorithm>

#include "cannbot/ascendc/launch_dtype.h"
#include "cannbot/target/registry.h"
#include "cannbot/validator/ascendc_package.h"
#include "cannbot/validator/ascendc_sample.h"

namespace cannbot::target {
namespace {

const Target& RegisteredAscendc() {
  auto found = Parse("ascendc");
  return found.ok() ? **found : Default();  // registered in registry.cc: always found
}

}  // namespace

AscendcPackageTarget::AscendcPackageTarget(std::vector<std::string> dtypes,
                                           std::optional<ops::Shape> sample_shape)
    : ascendc_(RegisteredAscendc()),
      dtypes_(dtypes),
      sample_shape_(std::move(sample_shape)),
      judge_(std::move(dtypes)) {}

std::string_view AscendcPackageTarget::name() const { return ascendc_.name(); }

std::string_view AscendcPackageTarget::summary() const {
  return "Ascend C operator packages on cannbot's emulation, launched through their own tiling";
}

Result<Plan> AscendcPackageTarget::MakePlan(const ops::OpSpec& op) const {
  CANNBOT_RETURN_IF_ERROR(validator::CheckEmulatedOp(op, "operator packages", false, true));
  CANNBOT_ASSIGN_OR_RETURN(validator::AscendcTarget built,
                           sample_shape_
                               ? validator::MakeAscendcSampleTarget(op, *sample_shape_, dtypes_)
                               : validator::MakeAscendcPackageTarget(op, dtypes_));
  Plan plan;
  plan.reference_spec = std::make_shared<ops::OpSpec>(op);
  // The launch converts the fp32 inputs to their tensors' dtypes first; a reference source
  // sees them converted too (the built-in references are recomputed that way by the judge).
  if (std::any_of(dtypes_.begin(), dtypes_.end(),
                  [](const std::string& d) { return d != "float32"; })) {
    std::vector<ascendc::LaunchedValue> launched(dtypes_.begin(), dtypes_.end());
    plan.input_rounding = [launched = std::move(launched)](size_t input, float v) {
      return input < launched.size() ? launched[input](v) : v;
    };
  }
  plan.judge = &judge_;
  plan.spec = std::make_shared<ops::OpSpec>(std::move(built.spec));
  plan.build = std::move(built.build);
  plan.build.name = sample_shape_ ? "ascendc-sample" : "ascendc-package";
  return plan;
}

Result<validator::PerfReport> AscendcPackageTarget::MeasurePerf(const PerfJob& job) const {
  return validator::EstimateAscendcPerf(*job.spec, job.candidate_object, job.baseline_object,
                                        job.seed, *job.device, job.runner, job.perf, job.work_dir,
                                        job.reference, dtypes_);
}

std::string AscendcPackageTarget::DescribeHardware(const HardwareFacts& facts) const {
  return ascendc_.DescribeHardware(facts);
}

PromptParts AscendcPackageTarget::Prompt(const ops::OpSpec& op) const {
  return ascendc_.Prompt(op);
}

std::vector<std::string_view> AscendcPackageTarget::HardwareWords() const {
  return ascendc_.HardwareWords();
}

}  // namespace cannbot::target
