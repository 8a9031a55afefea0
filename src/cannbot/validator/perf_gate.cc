#include "cannbot/validator/perf_gate.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "cannbot/validator/compare.h"
#include "cannbot/validator/inputs.h"
#include "cannbot/validator/numeric_check.h"
#include "cannbot/validator/tensor_layout.h"

namespace cannbot::validator {
namespace {

constexpr int kBaseline = 0;
constexpr int kCandidate = 1;
const char* const kRoleName[2] = {"baseline", "candidate"};

// One input set: the parent's pristine inputs, the reference outputs, and where the two
// kernels' outputs live.
struct InputSet {
  std::vector<std::vector<float>> inputs;
  std::vector<std::vector<float>> expected;
  CallLayout layout[2];  // per role: shared inputs, own outputs
};

bool ChildFailed(const Status& s) {
  return s.code() == Status::Code::kAborted || s.code() == Status::Code::kTimeout;
}

std::string Ratio(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.2fx", value);
  return text;
}

class Gate {
 public:
  Gate(const ops::OpSpec& op, uint64_t seed, const MachineModel& machine,
       const PerfConfig& config)
      : op_(op), shape_(op.PerfShape()), seed_(seed), machine_(machine), config_(config) {}

  Result<PerfReport> Run(const std::string& candidate, const std::string& baseline,
                         const RunnerConfig& runner_config, const std::string& work_dir);

 private:
  size_t PlanSets();
  void StageInputsAndGuards();
  // Calls `role` `calls` times over every set; on success returns the per-call time.
  Result<double> TimedBatch(int role, uint32_t calls);
  // Empty when every output of `role` is right; the first batch is compared with the
  // reference and becomes the bitwise standard for later ones.
  std::string CheckOutputs(int role, int batch);
  std::string CheckInputs();
  PerfReport Fail(const std::string& layer, const std::string& reason);
  KernelTiming Summarise(const std::vector<double>& per_call, uint32_t calls) const;

  const ops::OpSpec& op_;
  const ops::Shape& shape_;
  uint64_t seed_;
  const MachineModel& machine_;
  PerfConfig config_;
  std::vector<InputSet> sets_;
  std::vector<std::vector<std::vector<float>>> first_outputs_[2];  // [role][set][output]
  std::unique_ptr<KernelRunner> runner_;
  PerfReport report_;
};

size_t Gate::PlanSets() {
  const int count = std::max(1, config_.input_sets);
  size_t cursor = 0;
  for (int s = 0; s < count; ++s) {
    InputSet set;
    set.inputs = GenerateInputs(op_, shape_, seed_, "perf/" + std::to_string(s));
    set.layout[kBaseline] = CallLayout::Plan(op_, shape_, cursor);
    cursor = set.layout[kBaseline].end;
    set.layout[kCandidate] = set.layout[kBaseline].WithOutputsAt(op_, shape_, cursor);
    cursor = set.layout[kCandidate].end;
    ops::TensorArgs args;
    for (const auto& input : set.inputs) args.inputs.push_back(input.data());
    for (const TensorPlace& out : set.layout[kBaseline].outputs) {
      set.expected.emplace_back(static_cast<size_t>(out.elements));
    }
    for (auto& out : set.expected) args.outputs.push_back(out.data());
    op_.reference(args, shape_);
    sets_.push_back(std::move(set));
  }
  return cursor;
}

void Gate::StageInputsAndGuards() {
  char* region = runner_->region();
  for (const InputSet& set : sets_) {
    for (size_t i = 0; i < set.inputs.size(); ++i) {
      std::memcpy(TensorAt(region, set.layout[0].inputs[i]), set.inputs[i].data(),
                  set.layout[0].inputs[i].bytes());
    }
    FillGuards(region, set.layout[0].inputs);
    FillGuards(region, set.layout[kBaseline].outputs);
    FillGuards(region, set.layout[kCandidate].outputs);
  }
}

Result<double> Gate::TimedBatch(int role, uint32_t calls) {
  char* region = runner_->region();
  std::vector<std::vector<KernelArg>> args;
  for (const InputSet& set : sets_) {
    PoisonOutputs(region, set.layout[role]);
    args.push_back(set.layout[role].Args(op_, shape_));
  }
  CANNBOT_ASSIGN_OR_RETURN(CallTiming timing,
                           runner_->Call(role, args, calls, config_.call_timeout));
  const double net = std::max(timing.wall_seconds - report_.channel_overhead_seconds,
                              timing.wall_seconds * 0.5);
  return net / calls;
}

std::string Gate::CheckOutputs(int role, int batch) {
  char* region = runner_->region();
  auto& firsts = first_outputs_[role];
  if (firsts.empty()) firsts.resize(sets_.size());
  for (size_t s = 0; s < sets_.size(); ++s) {
    const CallLayout& layout = sets_[s].layout[role];
    std::string problem = CheckGuards(region, layout.outputs, "output");
    if (!problem.empty()) return problem;
    for (size_t i = 0; i < layout.outputs.size(); ++i) {
      const TensorPlace& out = layout.outputs[i];
      const float* got = TensorAt(region, out);
      if (batch == 0) {
        Comparison c = CompareOutputs(sets_[s].expected[i].data(), got, out.elements,
                                      op_.tolerance(shape_));
        if (!c.ok()) return "wrong results in a timed run: " + c.Describe(out.name);
        firsts[s].emplace_back(got, got + out.elements);
      } else if (std::memcmp(firsts[s][i].data(), got, out.bytes()) != 0) {
        return "timed batch " + std::to_string(batch + 1) +
               " produced different output from the first (output " + out.name + ")";
      }
    }
  }
  return "";
}

std::string Gate::CheckInputs() {
  char* region = runner_->region();
  for (const InputSet& set : sets_) {
    std::string problem = CheckGuards(region, set.layout[0].inputs, "input");
    if (!problem.empty()) return problem;
    for (size_t i = 0; i < set.inputs.size(); ++i) {
      const TensorPlace& place = set.layout[0].inputs[i];
      if (std::memcmp(TensorAt(region, place), set.inputs[i].data(), place.bytes()) != 0) {
        return "input " + place.name + " was modified during timed runs";
      }
    }
  }
  return "";
}

PerfReport Gate::Fail(const std::string& layer, const std::string& reason) {
  report_.ok = false;
  report_.layer = layer;
  report_.reason = reason;
  if (runner_) report_.child_output = runner_->ChildOutput();
  return report_;
}

KernelTiming Gate::Summarise(const std::vector<double>& per_call, uint32_t calls) const {
  KernelTiming t;
  t.median_seconds = Median(per_call);
  t.calls_per_batch = static_cast<int>(calls);
  if (t.median_seconds > 0) {
    t.gbps = op_.Bytes(shape_) / t.median_seconds / 1e9;
    t.gflops = op_.flops(shape_) / t.median_seconds / 1e9;
    t.roofline_fraction = machine_.BoundSeconds(op_.flops(shape_), op_.Bytes(shape_)) /
                          t.median_seconds;
  }
  return t;
}

Result<PerfReport> Gate::Run(const std::string& candidate, const std::string& baseline,
                             const RunnerConfig& runner_config, const std::string& work_dir) {
  report_.shape = shape_.Describe();
  report_.min_speedup = config_.min_speedup;
  const size_t region_bytes = PlanSets();
  CANNBOT_ASSIGN_OR_RETURN(runner_, KernelRunner::Start(runner_config, region_bytes, work_dir));
  const auto kinds = ArgKinds(op_);
  const std::string* objects[2] = {&baseline, &candidate};
  for (int role : {kBaseline, kCandidate}) {
    Status s = runner_->Load(role, *objects[role], op_.name, kinds);
    if (!s.ok()) {
      if (ChildFailed(s)) return Fail("sandbox", std::string(kRoleName[role]) + ": " + s.message());
      return s;
    }
  }
  StageInputsAndGuards();
  const uint32_t sets = static_cast<uint32_t>(sets_.size());

  // The channel's round trip, measured with empty batches, is subtracted from every batch.
  std::vector<double> empty;
  for (int i = 0; i < 7; ++i) {
    auto t = runner_->Call(kBaseline, {sets_[0].layout[0].Args(op_, shape_)}, 0,
                           config_.call_timeout);
    if (!t.ok()) return ChildFailed(t.status()) ? Fail("sandbox", t.status().message())
                                                : Result<PerfReport>(t.status());
    empty.push_back(t->wall_seconds);
  }
  report_.channel_overhead_seconds = Median(empty);

  // Warm-up batch (one call per set): checks outputs against the reference and sizes batches.
  uint32_t calls[2] = {sets, sets};
  for (int role : {kBaseline, kCandidate}) {
    auto per_call = TimedBatch(role, sets);
    if (!per_call.ok()) {
      if (!ChildFailed(per_call.status())) return per_call.status();
      return Fail("sandbox", std::string(kRoleName[role]) + ": " + per_call.status().message() +
                                 " during timed runs");
    }
    std::string problem = CheckOutputs(role, 0);
    if (!problem.empty()) return Fail("perf", std::string(kRoleName[role]) + ": " + problem);
    const double wanted = config_.target_batch_seconds / std::max(*per_call, 1e-9);
    calls[role] = static_cast<uint32_t>(std::clamp(std::ceil(wanted / sets) * sets,
                                                   static_cast<double>(sets), 1e6));
  }

  std::vector<double> times[2];
  std::vector<double> ratios;
  const auto start = SteadyClock::now();
  for (int round = 0; round < config_.max_rounds; ++round) {
    double per_call[2] = {0, 0};
    const int first = round % 2 == 0 ? kBaseline : kCandidate;
    for (int role : {first, 1 - first}) {
      auto t = TimedBatch(role, calls[role]);
      if (!t.ok()) {
        if (!ChildFailed(t.status())) return t.status();
        return Fail("sandbox", std::string(kRoleName[role]) + ": " + t.status().message() +
                                   " during timed runs");
      }
      std::string problem = CheckOutputs(role, round + 1);
      if (!problem.empty()) return Fail("perf", std::string(kRoleName[role]) + ": " + problem);
      per_call[role] = *t;
      times[role].push_back(*t);
    }
    ratios.push_back(per_call[kBaseline] / std::max(per_call[kCandidate], 1e-12));
    report_.rounds = round + 1;
    if (report_.rounds < config_.min_rounds) continue;
    Interval ci = MedianConfidenceInterval(ratios);
    const double elapsed = std::chrono::duration<double>(SteadyClock::now() - start).count();
    if (ci.low > config_.min_speedup || ci.high < config_.min_speedup ||
        elapsed > config_.max_seconds) {
      break;
    }
  }
  std::string problem = CheckInputs();
  if (!problem.empty()) return Fail("perf", problem);

  report_.speedup = Median(ratios);
  report_.speedup_ci = MedianConfidenceInterval(ratios);
  report_.baseline = Summarise(times[kBaseline], calls[kBaseline]);
  report_.candidate = Summarise(times[kCandidate], calls[kCandidate]);
  report_.child_output = runner_->ChildOutput();
  const std::string ci_text = "(95% CI " + Ratio(report_.speedup_ci.low) + "-" +
                              Ratio(report_.speedup_ci.high) + ")";
  if (report_.speedup_ci.low >= config_.min_speedup) {
    report_.ok = true;
    report_.reason = Ratio(report_.speedup) + " faster than the baseline " + ci_text;
  } else {
    report_.ok = false;
    report_.layer = "perf";
    report_.reason = "not measurably faster: speedup " + Ratio(report_.speedup) + " " + ci_text +
                     " does not clear the " + Ratio(config_.min_speedup) + " bar";
  }
  return report_;
}

}  // namespace

Result<PerfReport> RunPerfGate(const ops::OpSpec& op, const std::string& candidate_object,
                               const std::string& baseline_object, uint64_t seed,
                               const MachineModel& machine, const RunnerConfig& runner,
                               const PerfConfig& config, const std::string& work_dir) {
  Gate gate(op, seed, machine, config);
  return gate.Run(candidate_object, baseline_object, runner, work_dir);
}

}  // namespace cannbot::validator
