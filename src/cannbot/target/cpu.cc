// The cpu target: a plain C++ kernel with the op's C signature (docs/kernel-abi.md), built
// with the configured compiler, timed on this CPU against the baseline by the perf gate.
#include <cstdio>

#include "cannbot/target/target.h"

namespace cannbot::target {
namespace {

class Cpu : public Target {
 public:
  std::string_view name() const override { return "cpu"; }
  std::string_view summary() const override {
    return "C++ kernels for this x86-64 CPU, timed here";
  }

  Result<Plan> MakePlan(const ops::OpSpec& op) const override {
    Plan plan;
    plan.spec = std::make_shared<ops::OpSpec>(op);
    plan.build.name = std::string(name());  // the rest: the compiler's defaults for the op
    plan.judge = &validator::DefaultJudge();
    return plan;
  }

  bool HasReferenceBaseline() const override { return true; }
  bool RunsOnThisCpu() const override { return true; }

  Result<validator::PerfReport> MeasurePerf(const PerfJob& job) const override {
    return validator::RunPerfGate(*job.spec, job.candidate_object, job.baseline_object, job.seed,
                                  *job.machine, job.runner, job.perf, job.work_dir,
                                  job.reference);
  }

  std::string DescribeHardware(const HardwareFacts& facts) const override {
    const validator::MachineModel& machine = facts.machine();
    std::string flags;
    for (const std::string& f : facts.compiler->flags) flags += " " + f;
    char text[1024];
    std::snprintf(text, sizeof(text),
                  "- CPU: %s, %s (%d logical CPUs; the kernel runs single-threaded on one)\n"
                  "- instruction-set features: %s; widest FMA unit: %s\n"
                  "- measured single-core roofline: %.1f GB/s read-only, %.1f GB/s copy, "
                  "%.1f GB/s triad (non-temporal stores count when faster), %.0f GFLOP/s fp32 "
                  "FMA peak\n"
                  "- compiled as: %s%s\n",
                  machine.cpu_name.c_str(), machine.microarchitecture.c_str(),
                  machine.logical_cpus, machine.features.c_str(), machine.vector_isa.c_str(),
                  machine.read_gbps, machine.copy_gbps, machine.stream_gbps,
                  machine.peak_gflops, facts.compiler->compiler.c_str(), flags.c_str());
    return text;
  }

  PromptParts Prompt(const ops::OpSpec&) const override { return {}; }

  std::vector<std::string_view> HardwareWords() const override {
    return {"cpu*", "x86*", "avx*", "neon", "sse*", "aarch64"};
  }
};

}  // namespace

const Target& CpuTarget() {
  static const Cpu target;
  return target;
}

}  // namespace cannbot::target
