#include "cannbot/engine/estimated_profile.h"

#include "cannbot/ascendc/estimated_profile.h"
#include "cannbot/engine/package_validation.h"

namespace cannbot::engine {
namespace {

profile::Profile Estimated(const std::string& device, const std::string& shape) {
  profile::Profile p;
  p.source_tool = ascendc::kEstimatedProfileTool;
  p.device = device;
  p.notes.push_back("estimated, not measured: the cost model of " + device +
                    " on the perf shape (" + shape + "); docs/ascendc.md says how, and within "
                    "what error of published measurements");
  return p;
}

// Why a verdict carries no estimated profile.
std::string WhyNoProfile(const validator::Verdict& v) {
  return std::string("it did not reach the cost model: rejected at ") +
         validator::LayerName(v.layer) + ": " + v.reason;
}

}  // namespace

Result<profile::Profile> EstimateProfile(validator::Validator& validator,
                                         const target::Target& target, const std::string& op,
                                         const validator::KernelSource& kernel,
                                         const ops::OpSpec* spec) {
  validator::ValidationRequest request;
  request.op = op;
  request.candidate = kernel;
  request.baseline = kernel;
  request.target = &target;
  request.spec = spec;
  CANNBOT_ASSIGN_OR_RETURN(validator::Verdict verdict, validator.Validate(request));
  if (!verdict.perf || !verdict.perf->candidate_profile) {
    const bool reached = verdict.perf && verdict.perf->estimated && verdict.perf->ok;
    return Status::InvalidArgument(
        kernel.name + " has no estimated profile: " +
        (reached || target.RunsOnThisCpu()
             ? "the " + std::string(target.name()) + " target estimates none"
             : WhyNoProfile(verdict)));
  }
  profile::Profile p = Estimated(verdict.perf->device, verdict.perf->shape);
  p.kernels.push_back(*verdict.perf->candidate_profile);
  p.kernels.back().name = kernel.name;
  p.kernels.back().type = op;
  return p;
}

namespace {

// One profile kernel per run of a package's or sample's report against itself.
Result<profile::Profile> ProfileOfReport(const PackageReport& report, const std::string& op,
                                         const std::string& entry, const std::string& who) {
  std::optional<profile::Profile> p;
  std::string why;
  for (const PackageRun& run : report.runs) {
    const std::string name = entry + " (" + run.combo.Describe() + ")";
    if (!run.skipped.empty()) {
      why += (why.empty() ? "" : "; ") + name + " skipped: " + run.skipped;
      continue;
    }
    if (!run.verdict || !run.verdict->perf || !run.verdict->perf->candidate_profile) {
      why += (why.empty() ? "" : "; ") + name + ": " +
             (run.verdict ? WhyNoProfile(*run.verdict) : std::string("no verdict"));
      continue;
    }
    if (!p) p = Estimated(run.verdict->perf->device, run.verdict->perf->shape);
    p->kernels.push_back(*run.verdict->perf->candidate_profile);
    p->kernels.back().name = name;
    p->kernels.back().type = op;
  }
  if (!p) return Status::InvalidArgument(who + " has no estimated profile: " + why);
  if (!why.empty()) p->notes.push_back("not profiled: " + why);
  for (const std::string& note : report.notes) p->notes.push_back(note);
  return *p;
}

}  // namespace

Result<profile::Profile> EstimatePackageProfile(validator::Validator& validator,
                                                const ops::Registry& registry,
                                                const std::string& op,
                                                const ascendc::Package& package) {
  PackageRequest request;
  request.op = op;
  request.candidate = package;
  request.baseline = package;
  CANNBOT_ASSIGN_OR_RETURN(PackageReport report, ValidatePackage(validator, registry, request));
  return ProfileOfReport(report, op, package.entry, package.Describe());
}

Result<profile::Profile> EstimateSampleProfile(validator::Validator& validator,
                                               const ops::Registry& registry,
                                               const std::string& op,
                                               const ascendc::Sample& sample) {
  SampleRequest request;
  request.op = op;
  request.candidate = sample;
  request.baseline = sample;
  CANNBOT_ASSIGN_OR_RETURN(PackageReport report, ValidateSample(validator, registry, request));
  return ProfileOfReport(report, op, sample.entry, sample.Describe());
}

}  // namespace cannbot::engine
