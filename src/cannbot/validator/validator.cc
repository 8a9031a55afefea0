#include "cannbot/validator/validator.h"

#include <cmath>

#include "cannbot/target/registry.h"
#include "cannbot/util/fs.h"
#include "cannbot/util/utf8.h"
#include "cannbot/validator/edge_check.h"
#include "cannbot/validator/inputs.h"
#include "cannbot/validator/self_profile.h"
#include "cannbot/validator/timing_lock.h"

namespace cannbot::validator {

namespace {

// What an untrusted kernel or its compiler wrote (printed text, a symbol name it chose, a
// compiler's quote of its source, a forged error reply) reaches people, the store and LLM
// prompts only as ShowableText: valid UTF-8, no terminal escapes, and bounded (a 661-byte
// source that named a symbol with 16 MiB made a 38 MB verdict).
constexpr size_t kShownReasonBytes = 4096;
constexpr size_t kShownLogBytes = 64 * 1024;

void MakeShowable(CompileResult* compile) {
  compile->reason = ShowableText(compile->reason, kShownReasonBytes);
  compile->log = ShowableText(compile->log, kShownLogBytes);
}

void MakeShowable(NumericReport* numeric) {
  numeric->reason = ShowableText(numeric->reason, kShownReasonBytes);
  numeric->child_output = ShowableText(numeric->child_output, kShownLogBytes);
  for (auto& c : numeric->cases) c.problem = ShowableText(c.problem, kShownReasonBytes);
}

void MakeShowable(Verdict* verdict) {
  verdict->reason = ShowableText(verdict->reason, kShownReasonBytes);
  MakeShowable(&verdict->compile);
  if (verdict->numeric) MakeShowable(&*verdict->numeric);
  if (verdict->perf) {
    verdict->perf->reason = ShowableText(verdict->perf->reason, kShownReasonBytes);
    verdict->perf->child_output = ShowableText(verdict->perf->child_output, kShownLogBytes);
    verdict->perf->edges.warning = ShowableText(verdict->perf->edges.warning, kShownReasonBytes);
  }
}

ValidatorConfig WithSandboxPolicy(ValidatorConfig config) {
  if (config.insecure_sandbox) {
    config.runner.insecure_sandbox = true;
    config.compiler.insecure_sandbox = true;
  }
  return config;
}

}  // namespace

Validator::Validator(ValidatorConfig config, store::Store* store, const ops::Registry& registry)
    : config_(WithSandboxPolicy(std::move(config))), store_(store), registry_(registry),
      compiler_(config_.compiler, store) {}

const MachineModel& Validator::Machine() {
  std::lock_guard<std::mutex> lock(machine_mutex_);
  if (!machine_) machine_ = LoadOrMeasureMachineModel(store_, config_.runner.cpu);
  return *machine_;
}

Result<profile::Profile> Validator::MeasureProfile(const std::string& op_name,
                                                  const KernelSource& kernel,
                                                  std::optional<uint64_t> seed,
                                                  const ops::OpSpec* spec,
                                                  bool hardware_counters) {
  SelfProfileConfig profile_config;
  profile_config.compiler = config_.compiler;
  profile_config.runner = config_.runner;
  profile_config.seed = seed;
  profile_config.max_seconds = 2;  // a diagnosis needs the regime, not a precise figure
  profile_config.hardware_counters = hardware_counters;
  CANNBOT_ASSIGN_OR_RETURN(TargetPlan plan, Plan(op_name, nullptr, spec));
  CANNBOT_ASSIGN_OR_RETURN(TempDir work, TempDir::Create("cannbot-profile-reference"));
  CANNBOT_ASSIGN_OR_RETURN(auto reference, MakeReference(plan, &kernel, seed.value_or(NewSeed()),
                                                         work.path()));
  profile_config.reference = reference.get();
  std::lock_guard<std::mutex> perf_lock(perf_mutex_);
  return SelfProfile(*plan.spec, kernel, store_, profile_config);
}

Result<Validator::TargetPlan> Validator::Plan(const std::string& op_name,
                                               const target::Target* kind,
                                               const ops::OpSpec* spec) {
  const ops::OpSpec* op = spec != nullptr ? spec : registry_.Find(op_name);
  if (op == nullptr) return Status::NotFound("unknown op '" + op_name + "'");
  TargetPlan plan;
  plan.kind = &target::OrDefault(kind);
  CANNBOT_ASSIGN_OR_RETURN(static_cast<target::Plan&>(plan), plan.kind->MakePlan(*op));
  if (plan.build.device_defines) {
    for (std::string& define : ascendc::CompileDefines(config_.device)) {
      plan.build.flags.push_back(std::move(define));
    }
  }
  return plan;
}

Result<std::unique_ptr<ReferenceOracle>> Validator::MakeReference(const TargetPlan& plan,
                                                                   const KernelSource* baseline,
                                                                   uint64_t seed,
                                                                   const std::string& work_dir) {
  const ops::OpSpec& op = *plan.spec;
  if (op.reference_kind == ops::ReferenceKind::kBuiltIn) return InProcessReference(op);
  SandboxedReferenceConfig sandboxed;
  sandboxed.runner = config_.runner;
  sandboxed.work_dir = work_dir;
  sandboxed.call_timeout = config_.numeric.call_timeout;
  if (op.reference_kind == ops::ReferenceKind::kSource) {
    const ops::OpSpec& own = plan.reference_spec ? *plan.reference_spec : op;
    ops::OpSpec as_reference = own;  // the same contract under the reference's own symbol
    as_reference.name = op.ReferenceSymbol();
    CANNBOT_ASSIGN_OR_RETURN(CompileResult built, compiler_.Compile(as_reference,
                                                                    op.reference_source,
                                                                    work_dir, "reference"));
    if (!built.ok) {
      return Status::InvalidArgument("the reference " + op.reference_file + " of op " + op.name +
                                     " is not usable: " + built.reason);
    }
    sandboxed.shared_object = built.shared_object_path;
    sandboxed.symbol = op.ReferenceSymbol();
    sandboxed.label = "the reference " + op.reference_file + " (sandboxed)";
  } else {
    if (baseline == nullptr) {
      return Status::InvalidArgument(
          "op " + op.name + " is in differential mode (reference = \"baseline\"): give the "
          "kernel it replaces as the baseline (--baseline, or \"baseline\" in the request)");
    }
    CANNBOT_ASSIGN_OR_RETURN(CompileResult built, compiler_.Compile(op, baseline->text, work_dir,
                                                                    "differential-reference",
                                                                    plan.build, baseline->files));
    if (!built.ok) {
      return Status::InvalidArgument("the baseline " + baseline->name +
                                     " is not a valid kernel: " + built.reason);
    }
    sandboxed.shared_object = built.shared_object_path;
    sandboxed.symbol = op.name;
    sandboxed.label = "the baseline " + baseline->name +
                      " (differential mode: correct means the same numbers as the kernel it "
                      "replaces)";
  }
  // A reference source is called with its op's own arguments (the sizes a target appends
  // for its kernels are not the reference's).
  const ops::OpSpec& called =
      op.reference_kind == ops::ReferenceKind::kSource && plan.reference_spec
          ? *plan.reference_spec
          : op;
  std::unique_ptr<ReferenceOracle> oracle = SandboxedReference(called, std::move(sandboxed));
  if (op.reference_kind == ops::ReferenceKind::kSource && plan.input_rounding) {
    oracle = RoundedInputsReference(std::move(oracle), plan.input_rounding,
                                    "fed the inputs as the launch rounds them");
  }
  CANNBOT_RETURN_IF_ERROR(ProbeReference(called, *oracle, seed));
  return oracle;
}

Result<std::string> Validator::BuildBaseline(const TargetPlan& plan,
                                             const ValidationRequest& request,
                                             const ReferenceOracle& reference, uint64_t seed,
                                             const std::string& work_dir) {
  const ops::OpSpec& op = *plan.spec;
  if (!request.baseline) {
    if (!plan.kind->HasReferenceBaseline()) {
      return Status::InvalidArgument("the " + std::string(plan.kind->name()) +
                                     " target has no built-in baseline: give one (--baseline)");
    }
    const bool trusted = op.reference_kind == ops::ReferenceKind::kBuiltIn;
    CANNBOT_ASSIGN_OR_RETURN(
        CompileResult built,
        trusted ? compiler_.CompileReference(op, work_dir, "baseline")
                : compiler_.Compile(op, op.ReferenceAsKernel(), work_dir, "baseline"));
    if (!built.ok) {
      return Status::InvalidArgument("the reference kernel of " + op.name +
                                     " does not compile with these flags: " + built.reason);
    }
    return built.shared_object_path;
  }
  const KernelSource& baseline = *request.baseline;
  CANNBOT_ASSIGN_OR_RETURN(CompileResult built, compiler_.Compile(op, baseline.text, work_dir,
                                                                  "baseline", plan.build,
                                                                  baseline.files));
  if (!built.ok) {
    return Status::InvalidArgument("the baseline " + baseline.name +
                                   " is not a valid kernel: " + built.reason);
  }
  // In differential mode the baseline is the reference: nothing to check it against.
  if (request.baseline_checked || op.reference_kind == ops::ReferenceKind::kBaseline) {
    return built.shared_object_path;
  }
  CANNBOT_ASSIGN_OR_RETURN(NumericReport numeric,
                           RunNumericCheck(op, reference, built.shared_object_path, seed,
                                           config_.runner, config_.numeric, work_dir,
                                           *plan.judge));
  if (!numeric.ok) {
    return Status::InvalidArgument("the baseline " + baseline.name +
                                   " is not a correct kernel: " + numeric.reason);
  }
  return built.shared_object_path;
}

Result<KernelCheck> Validator::CheckKernel(const std::string& op_name, const KernelSource& kernel,
                                           std::optional<uint64_t> seed,
                                           const target::Target* kind,
                                           const ops::OpSpec* spec) {
  CANNBOT_ASSIGN_OR_RETURN(TargetPlan plan, Plan(op_name, kind, spec));
  CANNBOT_ASSIGN_OR_RETURN(TempDir work, TempDir::Create("cannbot-check"));
  KernelCheck check;
  const uint64_t run_seed = seed.value_or(NewSeed());
  CANNBOT_ASSIGN_OR_RETURN(check.compile, compiler_.Compile(*plan.spec, kernel.text, work.path(),
                                                            "kernel", plan.build, kernel.files));
  MakeShowable(&check.compile);
  if (!check.compile.ok) {
    check.layer = Layer::kCompile;
    check.reason = check.compile.reason;
    return check;
  }
  // In differential mode a user's kernel is its own reference: the check is the sandbox's
  // and determinism's.
  CANNBOT_ASSIGN_OR_RETURN(auto reference, MakeReference(plan, &kernel, run_seed, work.path()));
  CANNBOT_ASSIGN_OR_RETURN(NumericReport numeric,
                           RunNumericCheck(*plan.spec, *reference,
                                           check.compile.shared_object_path, run_seed,
                                           config_.runner, config_.numeric, work.path(),
                                           *plan.judge));
  MakeShowable(&numeric);
  check.numeric = numeric;
  check.ok = numeric.ok;
  check.layer = numeric.ok ? Layer::kNone : numeric.layer;
  check.reason = numeric.reason;
  return check;
}

Result<Verdict> Validator::Validate(const ValidationRequest& request) {
  const auto start = SteadyClock::now();
  CANNBOT_ASSIGN_OR_RETURN(TargetPlan plan, Plan(request.op, request.target, request.spec));
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
    MakeShowable(&verdict);
    return verdict;
  };

  // The reference first: a spec whose reference does not build, crashes or is not
  // deterministic is refused before any candidate runs.
  CANNBOT_ASSIGN_OR_RETURN(
      auto reference,
      MakeReference(plan, request.baseline ? &*request.baseline : nullptr, verdict.seed,
                    work.path()));
  verdict.reference = reference->Describe();
  CANNBOT_ASSIGN_OR_RETURN(verdict.compile, compiler_.Compile(op, request.candidate.text,
                                                              work.path(), "candidate",
                                                              plan.build,
                                                              request.candidate.files));
  if (!verdict.compile.ok) return finish(false, Layer::kCompile, verdict.compile.reason);
  CANNBOT_ASSIGN_OR_RETURN(std::string baseline_object,
                           BuildBaseline(plan, request, *reference, verdict.seed, work.path()));

  CANNBOT_ASSIGN_OR_RETURN(NumericReport numeric,
                           RunNumericCheck(op, *reference, verdict.compile.shared_object_path,
                                           verdict.seed, config_.runner, config_.numeric,
                                           work.path(), *plan.judge));
  verdict.numeric = numeric;
  if (!numeric.ok) return finish(false, numeric.layer, numeric.reason);

  CANNBOT_ASSIGN_OR_RETURN(PerfReport perf,
                           MeasurePerf(plan, request, *reference, &verdict, baseline_object,
                                       work.path()));
  verdict.perf = perf;
  if (!perf.ok) return finish(false, perf.layer, perf.reason);
  const size_t cases = numeric.cases.size();
  const std::string matches = op.reference_kind == ops::ReferenceKind::kBaseline
                                  ? "matches the baseline's numbers (differential mode) on "
                                  : "matches the reference on ";
  return finish(true, Layer::kNone, "compiles, " + matches + std::to_string(cases) +
                                        " shapes, and is " + perf.reason);
}

Result<PerfReport> Validator::MeasurePerf(const TargetPlan& plan,
                                          const ValidationRequest& request,
                                          const ReferenceOracle& reference, Verdict* verdict,
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
  job.perf.baseline_is_reference = !request.baseline.has_value();
  job.work_dir = work_dir;
  job.reference = &reference;
  if (!plan.kind->RunsOnThisCpu()) return plan.kind->MeasurePerf(job);
  verdict->machine = Machine();
  job.machine = &*verdict->machine;
  std::lock_guard<std::mutex> perf_lock(perf_mutex_);  // one timing at a time on this machine
  CANNBOT_ASSIGN_OR_RETURN(const int cpu, RunnerCpu(config_.runner));
  const TimingLock machine_lock = TimingLock::Acquire(cpu);  // and across processes
  CANNBOT_ASSIGN_OR_RETURN(PerfReport perf, plan.kind->MeasurePerf(job));
  if (perf.baseline.roofline_fraction > 1 || perf.candidate.roofline_fraction > 1) {
    // A kernel above the roofline: the model was measured in a busy moment. Measure again,
    // keep the better figures, and judge this report by them.
    const ops::OpSpec& op = *plan.spec;
    const ops::Shape& shape = op.PerfShape();
    const MachineModel better = RemeasureKeepingBest(store_, config_.runner.cpu, *verdict->machine);
    const double scale = better.BoundSeconds(op.flops(shape), op.TrafficOf(shape)) /
                         verdict->machine->BoundSeconds(op.flops(shape), op.TrafficOf(shape));
    if (std::isfinite(scale) && scale > 0) {
      perf.baseline.roofline_fraction *= scale;
      perf.candidate.roofline_fraction *= scale;
    }
    verdict->machine = better;
  }
  // A kernel that flushes subnormals itself raises the underflow flag without paying for it.
  perf.edges.candidate.sets_fp_control = SetsFloatingPointControl(request.candidate.text);
  perf.edges.baseline.sets_fp_control =
      request.baseline && SetsFloatingPointControl(request.baseline->text);
  perf.edges.Judge();
  return perf;
}

}  // namespace cannbot::validator
