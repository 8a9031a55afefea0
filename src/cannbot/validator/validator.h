// Validator: the three-layer gate every kernel passes before cannbot offers it to a person.
//
//   compile  -> the candidate builds against the op's contract (compiler.h)
//   numeric  -> it computes the reference's numbers on several shapes (numeric_check.h)
//   perf     -> it is measurably faster than the baseline (perf_gate.h)
//
// The first failing layer decides the verdict. The baseline is the user's kernel when given
// (it must itself compile and pass the numeric layer, else the request is invalid), otherwise
// the op's reference kernel built with the same compiler and flags.
//
// Ownership: the Validator borrows the Store (compile cache, machine model) and the Registry;
// both must outlive it. Thread-safety: Validate() may be called from several threads; compiles
// and numeric checks run concurrently, perf gates one at a time (an internal lock), because
// two timings at once on a small machine are worthless.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "cannbot/ops/registry.h"
#include "cannbot/profile/profile.h"
#include "cannbot/store/store.h"
#include "cannbot/ascendc/device_profile.h"
#include "cannbot/target/target.h"
#include "cannbot/validator/compiler.h"
#include "cannbot/validator/kernel_runner.h"
#include "cannbot/validator/numeric_check.h"
#include "cannbot/validator/perf_gate.h"
#include "cannbot/validator/reference_oracle.h"
#include "cannbot/validator/verdict.h"

namespace cannbot::validator {

struct ValidatorConfig {
  CompilerConfig compiler;
  RunnerConfig runner;
  NumericConfig numeric;
  PerfConfig perf;
  ascendc::DeviceProfile device;  // what the ascendc target's cost model estimates for
  bool keep_work_dir = false;     // leave the private work directory behind for debugging
  // Run untrusted code where a sandbox layer is missing (the runner's and the compiler's);
  // every verdict then lists what is missing. The Validator applies it to both.
  bool insecure_sandbox = false;
};

struct KernelSource {
  std::string name;  // a path or a label, used in messages
  std::string text;
  SourceFiles files = {};  // what the kernel brings along (an operator package's other files)
};

struct ValidationRequest {
  std::string op;
  KernelSource candidate;
  std::optional<KernelSource> baseline;  // none: the op's reference kernel
  std::optional<uint64_t> seed;          // none: a fresh one, reported in the verdict
  // The baseline already passed CheckKernel with this validator: skip its numeric check.
  bool baseline_checked = false;
  std::optional<double> min_speedup;     // none: config().perf.min_speedup
  const target::Target* target = nullptr;  // null: target::Default() (docs/kernel-abi.md)
  // The op itself when it is not in the validator's registry (a spec sent with a request);
  // borrowed for the call. Null: `op` is looked up.
  const ops::OpSpec* spec = nullptr;
};

class Validator {
 public:
  Validator(ValidatorConfig config, store::Store* store, const ops::Registry& registry);

  // A verdict for the candidate. Errors: NotFound for an unknown op, InvalidArgument for a
  // baseline that is not itself a correct kernel, IoError/Internal when the validator cannot
  // do its job (cannot spawn the runner, cannot write files).
  Result<Verdict> Validate(const ValidationRequest& request);

  // Compile and numeric layers only: used to check a user's own kernel before optimising it
  // (and to tell a kernel author that their change broke the numbers).
  // `spec`: as ValidationRequest::spec.
  Result<KernelCheck> CheckKernel(const std::string& op, const KernelSource& kernel,
                                  std::optional<uint64_t> seed = std::nullopt,
                                  const target::Target* target = nullptr,
                                  const ops::OpSpec* spec = nullptr);

  // The kernel measured on this CPU (SelfProfile with this validator's compiler and runner),
  // for suggestions made without a profiler's output. Timed under the same lock as the perf
  // layer, so it never overlaps another timing of this validator. Errors as SelfProfile.
  // `spec` as ValidationRequest::spec; `hardware_counters`: try `perf stat` on the runner.
  Result<profile::Profile> MeasureProfile(const std::string& op, const KernelSource& kernel,
                                          std::optional<uint64_t> seed = std::nullopt,
                                          const ops::OpSpec* spec = nullptr,
                                          bool hardware_counters = true);

  const ValidatorConfig& config() const { return config_; }
  // The compiler kernels are built with (its confined runs serve other host-side programs,
  // such as an operator package's OpDef reader).
  const Compiler& compiler() const { return compiler_; }
  const MachineModel& Machine();

 private:
  // How one target validates an op (target::Plan) and which target it is.
  struct TargetPlan : target::Plan {
    const target::Target* kind = nullptr;
  };
  Result<TargetPlan> Plan(const std::string& op, const target::Target* kind,
                          const ops::OpSpec* spec);
  Result<std::string> BuildBaseline(const TargetPlan& plan, const ValidationRequest& request,
                                    const ReferenceOracle& reference, uint64_t seed,
                                    const std::string& work_dir);
  // Whose numbers kernels of `plan` must reproduce: the built-in reference, or the op's own
  // reference source / the baseline (differential mode), compiled as untrusted code and
  // probed (it must run and be deterministic) before any candidate runs.
  Result<std::unique_ptr<ReferenceOracle>> MakeReference(const TargetPlan& plan,
                                                         const KernelSource* baseline,
                                                         uint64_t seed,
                                                         const std::string& work_dir);
  Result<PerfReport> MeasurePerf(const TargetPlan& plan, const ValidationRequest& request,
                                 const ReferenceOracle& reference, Verdict* verdict,
                                 const std::string& baseline_object,
                                 const std::string& work_dir);

  ValidatorConfig config_;
  store::Store* store_;
  const ops::Registry& registry_;
  Compiler compiler_;
  std::mutex perf_mutex_;
  std::mutex machine_mutex_;
  std::optional<MachineModel> machine_;
};

}  // namespace cannbot::validator
