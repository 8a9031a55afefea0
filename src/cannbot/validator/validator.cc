#include "cannbot/validator/validator.h"

#include "cannbot/target/registry.h"
#include "cannbot/util/fs.h"
#include "cannbot/validator/inputs.h"
#include "cannbot/validator/self_profile.h"

namespace cannbot::validator {

Validator::Validator(ValidatorConfig config, store::Store* store, const ops::Registry& registry)
    : config_(std::move(config)), store_(store), registry_(registry),
      compiler_(config_.compiler, store) {}

const MachineModel& Validator::Machine() {
  std::lock_guard<std::mutex> lock(machine_mutex_);
  if (!machine_) machine_ = LoadOrMeasureMachineModel(store_, config_.runner.cpu);
  return *machine_;
}

Result<profile::Profile> Validator::MeasureProfile(const std::string& op_name,
                                                  const KernelSource& kernel,
                                                  std::optional<uint64_t> seed) {
  const ops::OpSpec* op = registry_.Find(op_name);
  if (op == nullptr) return Status::NotFound("unknown op '" + op_name + "'");
  SelfProfileConfig profile_config;
  profile_config.compiler = config_.compiler;
  profile_config.runner = config_.runner;
  profile_config.seed = seed;
  profile_config.max_seconds = 2;  // a diagnosis needs the regime, not a precise figure
  std::lock_guard<std::mutex> perf_lock(perf_mutex_);
  return SelfProfile(*op, kernel, store_, profile_config);
}

Result<Validator::TargetPlan> Validator::Plan(const std::string& op_name,
                                               const target::Target* kind) {
  const ops::OpSpec* op = registry_.Find(op_name);
  if (op == nullptr) return Status::NotFound("unknown op '" + op_name + "'");
  TargetPlan plan;
  plan.kind = &target::OrDefault(kind);
  CANNBOT_ASSIGN_OR_RETURN(static_cast<target::Plan&>(plan), plan.kind->MakePlan(*op));
  return plan;
}

Result<std::string> Validator::BuildBaseline(const TargetPlan& plan,
                                             const ValidationRequest& request, uint64_t seed,
                                             const std::string& work_dir) {
  const ops::OpSpec& op = *plan.spec;
  if (!request.baseline) {
    if (!plan.kind->HasReferenceBaseline()) {
      return Status::InvalidArgument("the " + std::string(plan.kind->name()) +
                                     " target has no built-in baseline: give one (--baseline)");
    }
    CANNBOT_ASSIGN_OR_RETURN(CompileResult built,
                             compiler_.CompileReference(op, work_dir, "baseline"));
    if (!built.ok) {
      return Status::Internal("the reference kernel of " + op.name +
                              " does not compile with these flags: " + built.reason);
    }
    return built.shared_object_path;
  }
  const KernelSource& baseline = *request.baseline;
  CANNBOT_ASSIGN_OR_RETURN(CompileResult built, compiler_.Compile(op, baseline.text, work_dir,
                                                                  "baseline", plan.build));
  if (!built.ok) {
    return Status::InvalidArgument("the baseline " + baseline.name +
                                   " is not a valid kernel: " + built.reason);
  }
  if (request.baseline_checked) return built.shared_object_path;
  CANNBOT_ASSIGN_OR_RETURN(NumericReport numeric,
                           RunNumericCheck(op, built.shared_object_path, seed, config_.runner,
                                           config_.numeric, work_dir, *plan.judge));
  if (!numeric.ok) {
    return Status::InvalidArgument("the baseline " + baseline.name +
                                   " is not a correct kernel: " + numeric.reason);
  }
  return built.shared_object_path;
}

Result<KernelCheck> Validator::CheckKernel(const std::string& op_name, const KernelSource& kernel,
                                           std::optional<uint64_t> seed,
                                           const target::Target* kind) {
  CANNBOT_ASSIGN_OR_RETURN(TargetPlan plan, Plan(op_name, kind));
  CANNBOT_ASSIGN_OR_RETURN(TempDir work, TempDir::Create("cannbot-check"));
  KernelCheck check;
  CANNBOT_ASSIGN_OR_RETURN(check.compile, compiler_.Compile(*plan.spec, kernel.text, work.path(),
                                                            "kernel", plan.build));
  if (!check.compile.ok) {
    check.layer = Layer::kCompile;
    check.reason = check.compile.reason;
    return check;
  }
  CANNBOT_ASSIGN_OR_RETURN(NumericReport numeric,
                           RunNumericCheck(*plan.spec, check.compile.shared_object_path,
                                           seed.value_or(NewSeed()), config_.runner,
                                           config_.numeric, work.path(), *plan.judge));
  check.numeric = numeric;
  check.ok = numeric.ok;
  check.layer = numeric.ok ? Layer::kNone : numeric.layer;
  check.reason = numeric.reason;
  return check;
}

Result<Verdict> Validator::Validate(const ValidationRequest& request) {
  const auto start = SteadyClock::now();
  CANNBOT_ASSIGN_OR_RETURN(TargetPlan plan, Plan(request.op, request.target));
  const ops::OpSpec& op = *plan.spec;
  Verdict verdict;
  verdict.op = op.name;
  verdict.target = plan.kind->name();
  verdict.seed = request.seed.value_or(NewSeed());
  verdict.candidate_name = request.candidate.name;
  verdict.baseline_name = request.baseline ? request.baseline->name : "reference";
  CANNBOT_ASSIGN_OR_RETURN(TempDir work, TempDir::Create("cannbot-validate"));
  if (config_.keep_work_dir) work.Keep();
  auto finish = [&](bool accepted, Layer layer, std::string reason) {
    verdict.accepted = accepted;
    verdict.layer = layer;
    verdict.reason = std::move(reason);
    verdict.seconds = std::chrono::duration<double>(SteadyClock::now() - start).count();
    return verdict;
  };

  CANNBOT_ASSIGN_OR_RETURN(verdict.compile, compiler_.Compile(op, request.candidate.text,
                                                              work.path(), "candidate",
                                                              plan.build));
  if (!verdict.compile.ok) return finish(false, Layer::kCompile, verdict.compile.reason);
  CANNBOT_ASSIGN_OR_RETURN(std::string baseline_object,
                           BuildBaseline(plan, request, verdict.seed, work.path()));

  CANNBOT_ASSIGN_OR_RETURN(NumericReport numeric,
                           RunNumericCheck(op, verdict.compile.shared_object_path, verdict.seed,
                                           config_.runner, config_.numeric, work.path(),
                                           *plan.judge));
  verdict.numeric = numeric;
  if (!numeric.ok) return finish(false, numeric.layer, numeric.reason);

  CANNBOT_ASSIGN_OR_RETURN(PerfReport perf,
                           MeasurePerf(plan, request, &verdict, baseline_object, work.path()));
  verdict.perf = perf;
  if (!perf.ok) return finish(false, perf.layer, perf.reason);
  const size_t cases = numeric.cases.size();
  return finish(true, Layer::kNone, "compiles, matches the reference on " + std::to_string(cases) +
                              " shapes, and is " + perf.reason);
}

Result<PerfReport> Validator::MeasurePerf(const TargetPlan& plan,
                                          const ValidationRequest& request, Verdict* verdict,
                                          const std::string& baseline_object,
                                          const std::string& work_dir) {
  target::PerfJob job;
  job.spec = plan.spec.get();
  job.candidate_object = verdict->compile.shared_object_path;
  job.baseline_object = baseline_object;
  job.seed = verdict->seed;
  job.device = &config_.device;
  job.runner = config_.runner;
  job.perf = config_.perf;
  if (request.min_speedup) job.perf.min_speedup = *request.min_speedup;
  job.work_dir = work_dir;
  if (!plan.kind->RunsOnThisCpu()) return plan.kind->MeasurePerf(job);
  verdict->machine = Machine();
  job.machine = &*verdict->machine;
  std::lock_guard<std::mutex> perf_lock(perf_mutex_);  // one timing at a time on this machine
  return plan.kind->MeasurePerf(job);
}

}  // namespace cannbot::validator
