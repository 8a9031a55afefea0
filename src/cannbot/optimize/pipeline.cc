#include "cannbot/optimize/pipeline.h"

#include <cstdio>

#include "cannbot/ascendc/device_profile.h"
#include "cannbot/diagnosis/diagnosis.h"
#include "cannbot/ops/registry.h"

namespace cannbot::optimize {
namespace {

Result<profile::Profile> LoadProfile(const SuggestRequest& request, std::string* source) {
  profile::Format used = profile::Format::kAuto;
  if (!request.profile_path.empty()) {
    CANNBOT_ASSIGN_OR_RETURN(profile::Profile p,
                             profile::ImportProfileFile(request.profile_path,
                                                        request.profile_options, &used));
    *source = std::string(profile::FormatDescription(used)) + " (" + request.profile_path + ")";
    return p;
  }
  CANNBOT_ASSIGN_OR_RETURN(profile::Profile p,
                           profile::ImportProfileText(request.profile_text, "uploaded profile",
                                                      request.profile_options, &used));
  *source = std::string(profile::FormatDescription(used)) + " (uploaded)";
  return p;
}

}  // namespace

std::string DescribeHardware(const validator::MachineModel& machine,
                             const validator::CompilerConfig& compiler) {
  std::string flags;
  for (const std::string& f : compiler.flags) flags += " " + f;
  char text[512];
  std::snprintf(text, sizeof(text),
                "- CPU: %s (%d logical CPUs; the kernel runs single-threaded on one)\n"
                "- widest vector unit: %s\n"
                "- measured single-core roofline: %.1f GB/s streaming bandwidth, %.0f GFLOP/s "
                "fp32 FMA peak\n"
                "- compiled as: %s%s\n",
                machine.cpu_name.c_str(), machine.logical_cpus, machine.vector_isa.c_str(),
                machine.stream_gbps, machine.peak_gflops, compiler.compiler.c_str(),
                flags.c_str());
  return text;
}

Result<SuggestResult> Suggest(const SuggestRequest& request, const SuggestContext& context,
                              const ProgressFn& progress) {
  const auto start = SteadyClock::now();
  const ops::OpSpec* op = ops::Registry::BuiltIn().Find(request.op);
  if (op == nullptr) return Status::NotFound("unknown op '" + request.op + "'");
  SuggestResult result;
  OptimizeReport& report = result.report;
  report.op = op->name;
  report.original_name = request.kernel.name;
  report.original_code = request.kernel.text;
  report.provider = context.provider->Describe();

  CANNBOT_ASSIGN_OR_RETURN(result.kernel_check,
                           context.validator->CheckKernel(op->name, request.kernel, request.seed,
                                                          request.target));
  if (!result.kernel_check.ok) {
    report.seconds = std::chrono::duration<double>(SteadyClock::now() - start).count();
    report.notes.push_back("the kernel to optimise is not correct (" +
                           result.kernel_check.layer + " layer): " + result.kernel_check.reason);
    return result;
  }

  profile::Profile profile;
  if (!request.profile_path.empty() || !request.profile_text.empty()) {
    CANNBOT_ASSIGN_OR_RETURN(profile, LoadProfile(request, &report.profile_source));
  } else if (request.target == "cpu") {
    // No profiler output: measure the kernel here, so the diagnosis (and the recipes and
    // skills it selects) rests on this machine's numbers rather than on nothing.
    auto measured = context.validator->MeasureProfile(op->name, request.kernel, request.seed);
    if (measured.ok()) {
      profile = std::move(*measured);
      report.profile_source = "self-profile on this CPU (no profile given)";
    } else {
      report.profile_source = "none given";
      profile.source_tool = "none";
      report.notes.push_back("self-profile failed: " + measured.status().message());
    }
  } else {
    report.profile_source = "none given";
    profile.source_tool = "none";
  }
  std::string why;
  auto picked = profile.Pick(request.profile_kernel, &why);
  if (picked.ok()) {
    report.diagnosis = diagnosis::Diagnose(profile, **picked);
    report.diagnosis.picked_because = why;
  } else {
    report.diagnosis.unjudged.push_back("no profiled kernel: " + picked.status().message());
  }
  for (const std::string& note : profile.notes) report.notes.push_back("profile: " + note);

  OptimizeRequest optimize;
  optimize.op = op;
  optimize.original = request.kernel;
  optimize.diagnosis = report.diagnosis;
  optimize.skills = context.skills->Select(report.diagnosis, op->name, request.target);
  for (const skills::SkillMatch& m : optimize.skills) {
    report.skills.push_back(m.skill->name + ": " + m.why);
  }
  optimize.hardware = request.target == "ascendc"
                          ? ascendc::DescribeDevice(context.validator->config().device)
                          : DescribeHardware(context.validator->Machine(),
                                             context.validator->config().compiler);
  optimize.target = request.target;
  optimize.seed = request.seed;
  Optimizer optimizer(context.validator, context.provider, context.loop);
  CANNBOT_RETURN_IF_ERROR(optimizer.Run(optimize, &report, progress));
  if (const Attempt* best = report.Best()) {
    context.provider->Finish(best->code, best->verdict->perf->speedup);
  }
  report.seconds = std::chrono::duration<double>(SteadyClock::now() - start).count();
  return result;
}

}  // namespace cannbot::optimize
