#include "cannbot/validator/self_profile.h"

#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>

#include "cannbot/profile/import.h"
#include "cannbot/profile/metric_names.h"
#include "cannbot/util/fs.h"
#include "cannbot/util/stats.h"
#include "cannbot/validator/code_report.h"
#include "cannbot/validator/edge_check.h"
#include "cannbot/validator/harness.h"
#include "cannbot/validator/inputs.h"
#include "cannbot/validator/machine_model.h"
#include "cannbot/validator/numeric_check.h"
#include "cannbot/validator/subnormal_probe.h"

namespace cannbot::validator {
namespace {

namespace m = profile::metric;

constexpr const char* kCounterEvents =
    "cycles,instructions,branches,branch-misses,cache-references,cache-misses";

// A kernel's own failure is the user's input problem; anything else is cannbot's.
Status KernelFailure(const Status& s, const std::string& kernel, const std::string& doing) {
  if (!KernelFailed(s)) return s;
  return Status::InvalidArgument(kernel + " " + doing + ": " + s.message());
}

// One checked call: the kernel must write every output within tolerance, stay in bounds and
// leave its inputs alone; the timings that follow are worthless otherwise.
Result<double> CheckedCall(KernelRunner* runner, const ops::OpSpec& op, const ops::Shape& shape,
                           const PreparedCall& call, const std::string& kernel,
                           std::chrono::milliseconds timeout) {
  char* region = runner->region();
  Arm(region, call.layout, call.data);
  auto timing = runner->Call(0, {call.layout.Args(op, shape)}, 1, timeout);
  if (!timing.ok()) return KernelFailure(timing.status(), kernel, "failed on the perf shape");
  std::string problem = CheckAfterCall(region, call.layout, call.data);
  if (problem.empty()) {
    Comparison summary;
    problem = JudgeOutputs(op, shape, call.data, CopyOutputs(region, call.layout),
                           DefaultJudge(), "", &summary);
  }
  if (!problem.empty()) {
    return Status::InvalidArgument(kernel + " is not a correct " + op.name + " kernel on the "
                                   "perf shape (" + shape.Describe() + "): " + problem);
  }
  return timing->wall_seconds;
}

struct Timing {
  double median = 0;  // seconds per call
  Interval ci;
  int calls = 0;
  int batches = 0;
};

Result<Timing> TimeCalls(KernelRunner* runner, const std::vector<KernelArg>& args,
                         double first_call_seconds, const SelfProfileConfig& config,
                         const std::string& kernel) {
  std::vector<double> empty;
  for (int i = 0; i < 7; ++i) {
    auto t = runner->Call(0, {args}, 0, config.call_timeout);
    if (!t.ok()) return KernelFailure(t.status(), kernel, "failed");
    empty.push_back(t->wall_seconds);
  }
  const double overhead = Median(empty);
  const double guess = std::max(first_call_seconds - overhead, 1e-7);
  const uint32_t reps = static_cast<uint32_t>(
      std::clamp(std::ceil(config.min_batch_seconds / guess), 1.0, 1e6));
  Timing timing;
  std::vector<double> per_call;
  const auto start = SteadyClock::now();
  for (int round = 0; round < std::max(config.rounds, 3); ++round) {
    auto t = runner->Call(0, {args}, reps, config.call_timeout);
    if (!t.ok()) return KernelFailure(t.status(), kernel, "failed while being timed");
    const double net = std::max(t->wall_seconds - overhead, t->wall_seconds * 0.5);
    per_call.push_back(net / reps);
    timing.calls += static_cast<int>(reps);
    ++timing.batches;
    const double elapsed = std::chrono::duration<double>(SteadyClock::now() - start).count();
    if (round >= 2 && elapsed > config.max_seconds) break;
  }
  timing.median = Median(per_call);
  timing.ci = MedianConfidenceInterval(per_call);
  return timing;
}

// Children of this process running cannbot-runner (from /proc: the runner does not expose
// its pid).
std::set<pid_t> RunnerChildren() {
  std::set<pid_t> pids;
  DIR* dir = ::opendir("/proc");
  if (dir == nullptr) return pids;
  const pid_t self = ::getpid();
  while (dirent* entry = ::readdir(dir)) {
    char* end = nullptr;
    const long pid = std::strtol(entry->d_name, &end, 10);
    if (end == entry->d_name || *end != '\0') continue;
    std::ifstream stat("/proc/" + std::string(entry->d_name) + "/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    const size_t open = text.find('(');
    const size_t close = text.rfind(')');
    if (open == std::string::npos || close == std::string::npos || close + 4 > text.size()) {
      continue;
    }
    const std::string comm = text.substr(open + 1, close - open - 1);
    const long ppid = std::strtol(text.c_str() + close + 4, nullptr, 10);
    if (ppid == self && comm.rfind("cannbot-runner", 0) == 0) pids.insert(static_cast<pid_t>(pid));
  }
  ::closedir(dir);
  return pids;
}

// Counts hardware events of the runner while it repeats the call; failures become notes.
void AddCounters(KernelRunner* runner, const std::vector<KernelArg>& args, pid_t runner_pid,
                 const SelfProfileConfig& config, const std::string& work_dir,
                 profile::KernelProfile* kernel, std::vector<std::string>* notes) {
  if (FindInPath(config.perf_program).empty()) {
    notes->push_back("no hardware counters: perf is not installed");
    return;
  }
  if (runner_pid <= 0) {
    notes->push_back("no hardware counters: the runner process could not be identified");
    return;
  }
  const std::string output = work_dir + "/perf-stat.csv";
  char seconds[32];
  std::snprintf(seconds, sizeof(seconds), "%.3f", config.counter_seconds);
  SpawnOptions options;
  options.argv = {config.perf_program, "stat", "-x,", "-o", output, "-e", kCounterEvents,
                  "-p", std::to_string(runner_pid), "--", "sleep", seconds};
  auto perf = ChildProcess::Spawn(options);
  if (!perf.ok()) {
    notes->push_back("no hardware counters: " + perf.status().message());
    return;
  }
  const auto deadline = SteadyClock::now() +
                        std::chrono::milliseconds(static_cast<int>(config.counter_seconds * 1e3) +
                                                  5000);
  std::optional<ExitInfo> exit;
  while (!(exit = perf->Poll()) && SteadyClock::now() < deadline) {
    if (!runner->Call(0, {args}, 1, config.call_timeout).ok()) break;
  }
  if (!exit) exit = perf->WaitUntil(deadline);
  if (!exit) {
    perf->Kill();
    notes->push_back("no hardware counters: perf stat did not finish");
    return;
  }
  auto text = ReadFile(output, 1 << 20);
  profile::ImportOptions import;
  import.format = profile::Format::kPerf;
  import.kernel_name = kernel->name;
  auto counted = text.ok() ? profile::ImportProfileText(*text, "perf stat", import)
                           : Result<profile::Profile>(text.status());
  if (!exit->Success() || !counted.ok()) {
    notes->push_back("no hardware counters: perf stat " + exit->Describe());
    return;
  }
  for (const char* name : {m::kIpc, m::kBranchMissRate, m::kCacheMissRate, m::kL1HitRate}) {
    if (const profile::Metric* metric = counted->kernels[0].Find(name)) {
      kernel->metrics[name] = *metric;
    }
  }
  for (const std::string& note : counted->notes) notes->push_back("perf stat: " + note);
}

void AddRoofline(const ops::OpSpec& op, const ops::Shape& shape, const MachineModel& machine,
                 const Timing& t, profile::KernelProfile* k) {
  const ops::Traffic traffic = op.TrafficOf(shape);
  const double bytes = traffic.total();
  const double flops = op.flops(shape);
  const double gbps = bytes / t.median / 1e9;
  const double gflops = flops / t.median / 1e9;
  k->duration_us = t.median * 1e6;
  k->metrics[m::kDurationCiLowUs] = {t.ci.low * 1e6, "us"};
  k->metrics[m::kDurationCiHighUs] = {t.ci.high * 1e6, "us"};
  k->metrics[m::kMemoryBandwidth] = {gbps, "GB/s"};
  k->metrics[m::kGflops] = {gflops, "GFLOP/s"};
  if (bytes > 0) k->metrics[m::kArithmeticIntensity] = {flops / bytes, "flop/byte"};
  if (machine.peak_gflops > 0) {
    k->metrics[m::kPeakGflops] = {machine.peak_gflops, "GFLOP/s"};
    k->metrics[m::kComputeUtilization] = {gflops / machine.peak_gflops, "ratio"};
  }
  // The bandwidth this op's mix of reads and writes can reach, not one pattern's.
  const double peak_gbps = machine.PatternGbps(traffic);
  if (peak_gbps > 0) {
    k->metrics[m::kPeakMemoryBandwidth] = {peak_gbps, "GB/s"};
    k->metrics[m::kMemoryUtilization] = {gbps / peak_gbps, "ratio"};
  }
  const double bound = machine.BoundSeconds(flops, traffic);
  if (bound > 0) k->metrics[m::kRooflineFraction] = {bound / t.median, "ratio"};
}

// What the compiler and the object code say, as metrics with their words in the notes.
void AddCodeEvidence(const CodeReport& code, profile::KernelProfile* k,
                     std::vector<std::string>* notes) {
  if (code.HasLoops()) {
    const std::string scalar = code.WorstScalarLoop();
    k->metrics[m::kVectorizedLoopShare] = {
        code.VectorizedLoopShare(), "ratio",
        scalar.empty() ? "every innermost loop is vectorised" : scalar};
  }
  if (code.disassembled) {
    char mix[96];
    std::snprintf(mix, sizeof(mix), "%d scalar and %d vector floating-point instructions",
                  code.scalar_fp_instructions, code.vector_fp_instructions);
    if (code.HasInstructionMix()) k->metrics[m::kScalarFpShare] = {code.ScalarFpShare(), "ratio", mix};
    std::string calls;
    for (const std::string& f : code.math_calls) calls += (calls.empty() ? "" : ", ") + f;
    k->metrics[m::kMathCalls] = {static_cast<double>(code.math_calls.size()), "count",
                                 calls.empty() ? "no library math calls" : calls};
  }
  for (const std::string& note : code.notes) notes->push_back(note);
}

// The op's edge inputs (else its perf inputs) with and without flush-to-zero.
void AddSubnormalEvidence(KernelRunner* runner, const ops::OpSpec& op, const ops::Shape& shape,
                          const PreparedCall& call, const std::string& inputs,
                          bool sets_fp_control, const SelfProfileConfig& config,
                          profile::KernelProfile* k,
                          std::vector<std::string>* notes) {
  auto probe = ProbeSubnormals(runner, op, shape, call, inputs, config.min_batch_seconds,
                               config.call_timeout, !sets_fp_control);
  if (!probe.ok()) {
    notes->push_back("no subnormal probe: " + probe.status().message());
    return;
  }
  char text[320];
  if (probe->timed) {
    std::snprintf(text, sizeof(text),
                  "on %s: %.3f ms per call, %.3f ms with flush-to-zero (fastest batch of each)",
                  probe->inputs.c_str(), probe->seconds * 1e3, probe->flushed_seconds * 1e3);
  } else {
    std::snprintf(text, sizeof(text),
                  "on %s: no subnormal number made or read (MXCSR flags clean), so flush-to-zero "
                  "changes nothing; not timed",
                  probe->inputs.c_str());
  }
  k->metrics[m::kSubnormalSlowdown] = {probe->Slowdown(), "x", text};
  // A kernel that flushes subnormals itself raises the underflow flag without paying for it.
  const bool made = probe->made_subnormals && !sets_fp_control;
  k->metrics[m::kSubnormalResults] = {
      made ? 1.0 : 0.0, "count",
      (made ? "MXCSR " + DescribeFpExceptions(probe->fp_exceptions) + " on "
            : sets_fp_control ? "the kernel sets its own floating-point control state; "
                                "no evidence from the flags on "
                              : "no subnormal numbers on ") +
          probe->inputs};
}

}  // namespace

Result<profile::Profile> SelfProfile(const ops::OpSpec& op, const KernelSource& kernel,
                                     store::Store* store, const SelfProfileConfig& config) {
  CANNBOT_ASSIGN_OR_RETURN(TempDir work, TempDir::Create("cannbot-self-profile"));
  Compiler compiler(config.compiler, store);
  CANNBOT_ASSIGN_OR_RETURN(CompileResult built,
                           compiler.Compile(op, kernel.text, work.path(), "kernel"));
  if (!built.ok) {
    return Status::InvalidArgument(kernel.name + " does not compile: " + built.reason);
  }
  const MachineModel machine = LoadOrMeasureMachineModel(store, config.runner.cpu);
  const ops::Shape& shape = op.PerfShape();
  std::unique_ptr<ReferenceOracle> built_in;
  const ReferenceOracle* reference = config.reference;
  if (reference == nullptr) {
    built_in = InProcessReference(op);
    reference = built_in.get();
  }
  const uint64_t seed = config.seed.value_or(NewSeed());
  CANNBOT_ASSIGN_OR_RETURN(const PreparedCall staged,
                           PrepareCall(*reference, op, shape, seed, "self-profile", 0));
  // The subnormal probe's call: the op's edge inputs where it has them, placed after the first.
  const std::string edge_values = DescribeEdgeInputs(op, shape);
  PreparedCall probe_call = staged;
  std::string probe_inputs = "the perf inputs";
  if (config.subnormal_probe && !edge_values.empty()) {
    probe_call.layout = CallLayout::Plan(op, shape, staged.layout.end);
    CANNBOT_ASSIGN_OR_RETURN(
        probe_call.data, WithReference(*reference, shape,
                                       GenerateEdgeInputs(op, shape, seed, "self-profile-edges")));
    probe_inputs = "the op's edge inputs (" + edge_values + ")";
  }

  const std::set<pid_t> before = RunnerChildren();
  CANNBOT_ASSIGN_OR_RETURN(
      auto runner, KernelRunner::Start(config.runner,
                                       std::max(staged.layout.end, probe_call.layout.end),
                                       work.path()));
  std::set<pid_t> after = RunnerChildren();
  for (pid_t p : before) after.erase(p);
  Status loaded = runner->Load(0, built.shared_object_path, op.name, ArgKinds(op));
  if (loaded.ok()) loaded = runner->Seal();
  if (!loaded.ok()) return KernelFailure(loaded, kernel.name, "could not be loaded");

  CANNBOT_ASSIGN_OR_RETURN(double first, CheckedCall(runner.get(), op, shape, staged,
                                                     kernel.name, config.call_timeout));
  const std::vector<KernelArg> args = staged.layout.Args(op, shape);
  CANNBOT_ASSIGN_OR_RETURN(Timing timing,
                           TimeCalls(runner.get(), args, first, config, kernel.name));

  profile::Profile result;
  result.source_tool = "self-profile";
  result.device = machine.cpu_name;
  profile::KernelProfile k;
  k.name = op.name;
  k.type = op.name;
  k.core_type = "CPU";
  k.launches = 1;
  k.input_shapes = shape.Describe();
  AddRoofline(op, shape, machine, timing, &k);
  char note[256];
  std::snprintf(note, sizeof(note),
                "duration is the median of %d batches (%d calls) on the perf shape %s, checked "
                "against the reference once; roofline: %.1f GB/s for this op's reads and "
                "writes, %.0f GFLOP/s (%s)",
                timing.batches, timing.calls, shape.Describe().c_str(),
                machine.PatternGbps(op.TrafficOf(shape)), machine.peak_gflops,
                machine.vector_isa.c_str());
  result.notes.push_back(note);
  if (config.hardware_counters) {
    AddCounters(runner.get(), args, after.size() == 1 ? *after.begin() : -1, config,
                work.path(), &k, &result.notes);
  }
  if (config.subnormal_probe) {
    AddSubnormalEvidence(runner.get(), op, shape, probe_call, probe_inputs,
                         SetsFloatingPointControl(kernel.text), config, &k, &result.notes);
  }
  if (config.code_report) {
    AddCodeEvidence(AnalyseKernelCode(compiler, op, kernel.text, work.path()), &k, &result.notes);
  }
  for (const std::string& w : runner->sandbox_warnings()) {
    result.notes.push_back("sandbox: " + w);
  }
  if (runner->ChildOutputBytes() > 0) {
    return Status::InvalidArgument(
        kernel.name + ": " + PrintedReason(runner->ChildOutputBytes(), runner->ChildOutput(80)));
  }
  result.kernels.push_back(std::move(k));
  return result;
}

}  // namespace cannbot::validator
