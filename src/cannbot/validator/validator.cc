#include "cannbot/validator/validator.h"

#include "cannbot/util/fs.h"
#include "cannbot/validator/inputs.h"

namespace cannbot::validator {

Validator::Validator(ValidatorConfig config, store::Store* store, const ops::Registry& registry)
    : config_(std::move(config)), store_(store), registry_(registry),
      compiler_(config_.compiler, store) {}

const MachineModel& Validator::Machine() {
  std::lock_guard<std::mutex> lock(machine_mutex_);
  if (!machine_) machine_ = LoadOrMeasureMachineModel(store_, config_.runner.cpu);
  return *machine_;
}

Result<std::string> Validator::BuildBaseline(const ops::OpSpec& op,
                                             const ValidationRequest& request, uint64_t seed,
                                             const std::string& work_dir) {
  if (!request.baseline) {
    CANNBOT_ASSIGN_OR_RETURN(CompileResult built,
                             compiler_.CompileReference(op, work_dir, "baseline"));
    if (!built.ok) {
      return Status::Internal("the reference kernel of " + op.name +
                              " does not compile with these flags: " + built.reason);
    }
    return built.shared_object_path;
  }
  const KernelSource& baseline = *request.baseline;
  CANNBOT_ASSIGN_OR_RETURN(CompileResult built,
                           compiler_.Compile(op, baseline.text, work_dir, "baseline"));
  if (!built.ok) {
    return Status::InvalidArgument("the baseline " + baseline.name +
                                   " is not a valid kernel: " + built.reason);
  }
  if (request.baseline_checked) return built.shared_object_path;
  CANNBOT_ASSIGN_OR_RETURN(NumericReport numeric,
                           RunNumericCheck(op, built.shared_object_path, seed, config_.runner,
                                           config_.numeric, work_dir));
  if (!numeric.ok) {
    return Status::InvalidArgument("the baseline " + baseline.name +
                                   " is not a correct kernel: " + numeric.reason);
  }
  return built.shared_object_path;
}

Result<KernelCheck> Validator::CheckKernel(const std::string& op_name, const KernelSource& kernel,
                                           std::optional<uint64_t> seed) {
  const ops::OpSpec* op = registry_.Find(op_name);
  if (op == nullptr) return Status::NotFound("unknown op '" + op_name + "'");
  CANNBOT_ASSIGN_OR_RETURN(TempDir work, TempDir::Create("cannbot-check"));
  KernelCheck check;
  CANNBOT_ASSIGN_OR_RETURN(check.compile, compiler_.Compile(*op, kernel.text, work.path(), "kernel"));
  if (!check.compile.ok) {
    check.layer = "compile";
    check.reason = check.compile.reason;
    return check;
  }
  CANNBOT_ASSIGN_OR_RETURN(NumericReport numeric,
                           RunNumericCheck(*op, check.compile.shared_object_path,
                                           seed.value_or(NewSeed()), config_.runner,
                                           config_.numeric, work.path()));
  check.numeric = numeric;
  check.ok = numeric.ok;
  check.layer = numeric.ok ? "" : numeric.layer;
  check.reason = numeric.reason;
  return check;
}

Result<Verdict> Validator::Validate(const ValidationRequest& request) {
  const auto start = SteadyClock::now();
  const ops::OpSpec* op = registry_.Find(request.op);
  if (op == nullptr) return Status::NotFound("unknown op '" + request.op + "'");
  Verdict verdict;
  verdict.op = op->name;
  verdict.seed = request.seed.value_or(NewSeed());
  verdict.candidate_name = request.candidate.name;
  verdict.baseline_name = request.baseline ? request.baseline->name : "reference";
  CANNBOT_ASSIGN_OR_RETURN(TempDir work, TempDir::Create("cannbot-validate"));
  if (config_.keep_work_dir) work.Keep();
  auto finish = [&](bool accepted, std::string layer, std::string reason) {
    verdict.accepted = accepted;
    verdict.layer = std::move(layer);
    verdict.reason = std::move(reason);
    verdict.seconds = std::chrono::duration<double>(SteadyClock::now() - start).count();
    return verdict;
  };

  CANNBOT_ASSIGN_OR_RETURN(verdict.compile, compiler_.Compile(*op, request.candidate.text,
                                                              work.path(), "candidate"));
  if (!verdict.compile.ok) return finish(false, "compile", verdict.compile.reason);
  CANNBOT_ASSIGN_OR_RETURN(std::string baseline_object,
                           BuildBaseline(*op, request, verdict.seed, work.path()));

  CANNBOT_ASSIGN_OR_RETURN(NumericReport numeric,
                           RunNumericCheck(*op, verdict.compile.shared_object_path, verdict.seed,
                                           config_.runner, config_.numeric, work.path()));
  verdict.numeric = numeric;
  if (!numeric.ok) return finish(false, numeric.layer, numeric.reason);

  verdict.machine = Machine();
  PerfConfig perf_config = config_.perf;
  if (request.min_speedup) perf_config.min_speedup = *request.min_speedup;
  std::lock_guard<std::mutex> perf_lock(perf_mutex_);
  CANNBOT_ASSIGN_OR_RETURN(PerfReport perf,
                           RunPerfGate(*op, verdict.compile.shared_object_path, baseline_object,
                                       verdict.seed, *verdict.machine, config_.runner,
                                       perf_config, work.path()));
  verdict.perf = perf;
  if (!perf.ok) return finish(false, perf.layer, perf.reason);
  const size_t cases = numeric.cases.size();
  return finish(true, "", "compiles, matches the reference on " + std::to_string(cases) +
                              " shapes, and is " + perf.reason);
}

}  // namespace cannbot::validator
