// Target: what a kernel is written for, and everything cannbot does differently because of it:
// how a kernel of the target is built (headers, ABI prelude, wrapper), how its outputs are
// judged, how its speed is measured (timed here, or estimated by a cost model), what the
// prompts tell a model about the hardware and the contract, and which skills and recipes apply.
//
// Targets are registered in one place (target/registry.cc); a new target is one new file
// that implements this interface plus one line there. Everywhere else a target is a
// `const Target&` obtained from ParseTarget at the edge, never a string compared by hand.
//
// Ownership: targets are immutable singletons that live for the whole process.
// Thread-safety: every method is const and safe to call from any thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cannbot/ascendc/device_profile.h"
#include "cannbot/ops/op_spec.h"
#include "cannbot/util/status.h"
#include "cannbot/validator/compiler.h"
#include "cannbot/validator/kernel_runner.h"
#include "cannbot/validator/machine_model.h"
#include "cannbot/validator/output_judge.h"
#include "cannbot/validator/reference_oracle.h"
#include "cannbot/validator/perf_gate.h"

namespace cannbot::target {

// How one op's kernels of a target are validated: the spec they are called with (a target may
// add arguments), how they are built, how their outputs are judged.
struct Plan {
  std::shared_ptr<const ops::OpSpec> spec;
  // The op as its own reference source takes it, where `spec` appends arguments only the
  // kernel's wrapper needs (the ascendc targets' element counts); null: `spec`.
  std::shared_ptr<const ops::OpSpec> reference_spec;
  // What the kernel's launch does to each fp32 value of input `input` (its index among the
  // op's inputs) before the kernel sees it (the ascendc package launch rounds to half, bf16 or
  // an integer type); a reference source is fed the same values, so both compute on the same
  // numbers. Null: inputs as they are.
  std::function<float(size_t input, float value)> input_rounding;
  validator::TargetBuild build;
  const validator::OutputJudge* judge = nullptr;  // owned by the target
};

// One run of the perf layer: two built kernels of the same plan.
struct PerfJob {
  const ops::OpSpec* spec = nullptr;  // the plan's
  std::string candidate_object;
  std::string baseline_object;
  uint64_t seed = 0;
  const validator::MachineModel* machine = nullptr;  // set when RunsOnThisCpu()
  const ascendc::DeviceProfile* device = nullptr;
  validator::RunnerConfig runner;
  validator::PerfConfig perf;
  std::string work_dir;
  // Whose outputs both kernels must reproduce (borrowed); null: the op's built-in reference.
  const validator::ReferenceOracle* reference = nullptr;
};

// What a prompt may say about the hardware; the machine model is measured only when asked.
struct HardwareFacts {
  std::function<const validator::MachineModel&()> machine;
  const validator::CompilerConfig* compiler = nullptr;
  const ascendc::DeviceProfile* device = nullptr;
};

// Target-specific text for prompts ("" = none: the templates' own defaults).
struct PromptParts {
  std::string contract_note;  // after the op's own contract
  std::string output_format;  // how the answer must be shaped
};

class Target {
 public:
  virtual ~Target() = default;

  // How users name the target (--target, the JSON field "target", skill and recipe files).
  virtual std::string_view name() const = 0;
  // One line for help texts and error messages.
  virtual std::string_view summary() const = 0;

  // Errors: the target cannot build this op (missing headers, unsupported signature).
  virtual Result<Plan> MakePlan(const ops::OpSpec& op) const = 0;

  // True when the op's reference kernel, built for this target, can be the baseline when the
  // user gives none.
  virtual bool HasReferenceBaseline() const = 0;

  // True when kernels are timed on this CPU: the perf layer needs the machine model and the
  // machine-wide timing lock, and a kernel can be self-profiled when no profile is given.
  virtual bool RunsOnThisCpu() const = 0;

  // The perf layer. Errors are cannbot's own (cannot start the runner); a slow or misbehaving
  // kernel is a report.
  virtual Result<validator::PerfReport> MeasurePerf(const PerfJob& job) const = 0;

  // Facts about the hardware the kernel will run on, for prompts (a few lines of Markdown).
  virtual std::string DescribeHardware(const HardwareFacts& facts) const = 0;

  virtual PromptParts Prompt(const ops::OpSpec& op) const = 0;

  // Words (lower case; a trailing '*' matches any ending) by which a skill's free text says it
  // is written for this target's hardware, in any language the skill packs use.
  virtual std::vector<std::string_view> HardwareWords() const = 0;
};

}  // namespace cannbot::target
