#include "cannbot/validator/perf_gate.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <optional>
#include <random>

#include "cannbot/validator/compare.h"
#include "cannbot/validator/harness.h"
#include "cannbot/validator/inputs.h"
#include "cannbot/validator/numeric_check.h"
#include "cannbot/validator/perf_data.h"
#include "cannbot/validator/tensor_layout.h"

namespace cannbot::validator {
namespace {

constexpr int kBaseline = 0;
constexpr int kCandidate = 1;
const char* const kRoleName[2] = {"baseline", "candidate"};
// Elements per output that every later round compares between the two kernels, besides
// each output's first and last kSampleEnds: enough that a kernel wrong on 1% of its elements
// is caught with probability 1 - 0.99^4096, cheap beside a call on the perf shape.
constexpr int64_t kSampledElements = 4096;
constexpr int64_t kSampleEnds = 64;
// The chances that a later round compares the two kernels at one position in full (beyond the
// samples, which catch any kernel wrong on more than a sliver of its elements) and that it
// checks one position in full against the reference. The kernel cannot tell which calls: the
// draws come after the calls, from a source the seed does not pin. Both cost a pass over the
// outputs (the reference, a computation), so they are not made every round. With a baseline
// of the user's, agreeing with it proves less (the two could be written together to agree on
// wrong answers: such a pair, wrong on a quarter of the timed calls, was accepted in three
// runs of four at one round in seven), so one round of every later pair (1-2, 3-4, ...),
// drawn at random, checks the reference: a pair wrong in every timed call is caught by round
// 2, and the cost is half a reference computation per round.
constexpr double kFullComparisonChance = 0.25;
constexpr double kReferenceCheckChance = 0.15;

// Distinct data sets of the edge check (each buffer position holds one of them): one, as the
// check informs rather than gates, and each set costs a reference computation.
constexpr int kEdgeSets = 1;

std::string Ratio(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.2fx", value);
  return text;
}

struct Batch {
  double per_call = 0;         // seconds
  uint32_t fp_exceptions = 0;  // what the calls raised
};

class Gate {
 public:
  Gate(const ops::OpSpec& op, const ReferenceOracle& reference, uint64_t seed,
       const MachineModel& machine, const PerfConfig& config)
      : op_(op), reference_(reference), shape_(op.PerfShape()), seed_(seed), machine_(machine),
        config_(config) {}

  Result<PerfReport> Run(const std::string& candidate, const std::string& baseline,
                         const RunnerConfig& runner_config, const std::string& work_dir);

 private:
  Result<size_t> Plan();
  int SetAt(size_t position) const { return static_cast<int>((position + rotation_) % data_->size()); }
  // Stages every position's data for `round` (PerfData::ForRound) in both runners' regions
  // and fills the guards.
  void StageRound(int round);
  // One call per position; returns the time per call.
  Result<Batch> TimedBatch(int role);
  // Round 0: empty when every output of `role`'s batch matches the reference and every input
  // and guard is intact.
  std::string CheckBatch(int role);
  // A later round, after both batches: empty when every input and guard is intact, both
  // kernels agree on every output (sampled everywhere, in full at one position), and, at one
  // position of some rounds, the candidate matches the reference; else the failure, prefixed
  // by the kernel that is wrong (a disagreement is settled by the reference).
  Result<std::string> CheckRound(int round);
  // Who is wrong at position `p` by the reference: "" when neither.
  Result<std::string> Arbitrate(size_t p, int round, bool baseline_too);
  // Empty when every output of `role`'s edge batch matches the reference.
  std::string CheckEdgeBatch(int role, const std::vector<CallData>& edge_sets);
  // Times both kernels on the edge inputs into report_.edges (edge_check.h); a failure report
  // when a kernel fails there, else nullopt.
  Result<std::optional<PerfReport>> RunEdgeCheck(const std::vector<double> (&times)[2]);
  PerfReport Fail(Layer layer, const std::string& reason);
  // A runner failure of `role`: the kernel's (a sandbox report) or cannbot's (an error).
  Result<PerfReport> ChildFailure(int role, const Status& s, const char* when);
  KernelTiming Summarise(const std::vector<double>& per_call) const;

  const ops::OpSpec& op_;
  const ReferenceOracle& reference_;
  const ops::Shape& shape_;
  uint64_t seed_;
  const MachineModel& machine_;
  PerfConfig config_;
  std::optional<PerfData> data_;
  std::vector<CallData> staged_;  // [position] this round's data
  // One layout per buffer position, the same in both runners' regions: each kernel runs in
  // its own process and sees only its own inputs and outputs.
  std::vector<CallLayout> positions_;
  size_t rotation_ = 0;
  std::mt19937_64 checks_{std::random_device{}()};  // which calls are checked how
  int referenced_in_pair_ = 0;  // with a user's baseline: the round of this pair checked
  std::vector<std::vector<ops::Tensor>> edge_answer_[2];   // [role][edge set][output]
  std::unique_ptr<KernelRunner> runners_[2];                // [role]
  double overhead_[2] = {0, 0};  // [role] the channel's round trip
  uint32_t perf_fp_exceptions_[2] = {0, 0};  // [role] raised in the timed rounds
  PerfReport report_;
};

Result<size_t> Gate::Plan() {
  CANNBOT_ASSIGN_OR_RETURN(PerfData data,
                           PerfData::Draw(reference_, op_, shape_, seed_, config_.data_sets));
  data_.emplace(std::move(data));
  size_t cursor = 0;
  for (size_t p = 0; p < data_->size(); ++p) {
    positions_.push_back(CallLayout::Plan(op_, shape_, cursor));
    cursor = positions_.back().end;
  }
  staged_.resize(data_->size());
  return cursor;
}

void Gate::StageRound(int round) {
  for (size_t p = 0; p < positions_.size(); ++p) {
    data_->ForRound(static_cast<size_t>(SetAt(p)), round, &staged_[p]);
  }
  for (const auto& runner : runners_) {
    char* region = runner->region();
    for (size_t p = 0; p < positions_.size(); ++p) {
      const CallLayout& layout = positions_[p];
      StageInputs(region, layout, staged_[p]);
      FillGuards(region, layout.inputs, layout.traps);
      FillGuards(region, layout.outputs, layout.traps);
    }
  }
}

Result<Batch> Gate::TimedBatch(int role) {
  char* region = runners_[role]->region();
  std::vector<std::vector<KernelArg>> args;
  for (const CallLayout& layout : positions_) {
    PoisonOutputs(region, layout);
    args.push_back(layout.Args(op_, shape_));
  }
  const uint32_t calls = static_cast<uint32_t>(args.size());
  CANNBOT_ASSIGN_OR_RETURN(CallTiming timing,
                           runners_[role]->Call(0, args, calls, config_.call_timeout));
  const double net = std::max(timing.wall_seconds - overhead_[role], timing.wall_seconds * 0.5);
  return Batch{net / calls, timing.fp_exceptions};
}

std::string Gate::CheckBatch(int role) {
  char* region = runners_[role]->region();
  for (size_t p = 0; p < positions_.size(); ++p) {
    const CallLayout& layout = positions_[p];
    const CallData& set = staged_[p];
    const std::string problem = CheckAfterCall(region, layout, set);
    if (!problem.empty()) return problem + " during a timed run";
    for (size_t i = 0; i < layout.outputs.size(); ++i) {
      const TensorPlace& out = layout.outputs[i];
      const Comparison c = CompareOutputs(set.expected[i], ReadOutput(region, out, layout.traps),
                                          op_.ToleranceFor(shape_, out.dtype));
      if (!c.ok()) {
        return "wrong results in a timed run on data set " + std::to_string(SetAt(p)) + ": " +
               c.Describe(out.name);
      }
    }
  }
  return "";
}

namespace {

// kSampledElements indices of [0, n) drawn from `engine`, plus both ends.
std::vector<int64_t> SampleIndices(int64_t n, std::mt19937_64& engine) {
  std::vector<int64_t> indices;
  if (n <= kSampledElements + 2 * kSampleEnds) {
    for (int64_t i = 0; i < n; ++i) indices.push_back(i);
    return indices;
  }
  for (int64_t i = 0; i < kSampleEnds; ++i) {
    indices.push_back(i);
    indices.push_back(n - 1 - i);
  }
  std::uniform_int_distribution<int64_t> any(kSampleEnds, n - kSampleEnds - 1);
  for (int64_t k = 0; k < kSampledElements; ++k) indices.push_back(any(engine));
  return indices;
}

}  // namespace

Result<std::string> Gate::Arbitrate(size_t p, int round, bool baseline_too) {
  CallData& set = staged_[p];
  if (set.expected.empty()) {
    CANNBOT_ASSIGN_OR_RETURN(set.expected, reference_.Outputs(shape_, set.inputs));
  }
  const CallLayout& layout = positions_[p];
  for (int role : {kCandidate, kBaseline}) {
    if (role == kBaseline && !baseline_too) break;
    const char* region = runners_[role]->region();
    for (size_t i = 0; i < layout.outputs.size(); ++i) {
      const TensorPlace& out = layout.outputs[i];
      const Comparison c = CompareOutputs(set.expected[i], ReadOutput(region, out, layout.traps),
                                          op_.ToleranceFor(shape_, out.dtype));
      if (c.ok()) continue;
      return std::string(kRoleName[role]) + ": wrong results in a timed run on fresh data (" +
             "round " + std::to_string(round) + ", data set " + std::to_string(SetAt(p)) +
             "): " + c.Describe(out.name);
    }
  }
  return std::string();
}

Result<std::string> Gate::CheckRound(int round) {
  std::uniform_int_distribution<size_t> position(0, positions_.size() - 1);
  std::bernoulli_distribution compared_in_full(kFullComparisonChance);
  const size_t in_full = compared_in_full(checks_) ? position(checks_) : positions_.size();
  bool check_reference = false;
  if (config_.baseline_is_reference) {
    check_reference = std::bernoulli_distribution(kReferenceCheckChance)(checks_);
  } else if (round % 2 == 1) {  // the first of a pair: this one or the next, at random
    referenced_in_pair_ = std::bernoulli_distribution(0.5)(checks_) ? round : round + 1;
    check_reference = referenced_in_pair_ == round;
  } else {
    check_reference = referenced_in_pair_ == round;
  }
  const size_t against_reference = position(checks_);
  const char* regions[2] = {runners_[kBaseline]->region(), runners_[kCandidate]->region()};
  for (size_t p = 0; p < positions_.size(); ++p) {
    const CallLayout& layout = positions_[p];
    for (int role : {kCandidate, kBaseline}) {
      const std::string problem = CheckAfterCall(regions[role], layout, staged_[p]);
      if (!problem.empty()) return std::string(kRoleName[role]) + ": " + problem + " during a timed run";
    }
    bool agree = true;
    for (size_t i = 0; agree && i < layout.outputs.size(); ++i) {
      const TensorPlace& out = layout.outputs[i];
      // The op's own tolerance, not twice it: a kernel off by more than that from the other
      // is settled by the reference (an honest pair rarely is; a kernel 1.5 tolerances off
      // at one position per round passed a comparison at twice the tolerance).
      const ops::Tolerance between = op_.ToleranceFor(shape_, out.dtype);
      if (p == in_full) {
        agree = CompareOutputs(ReadOutput(regions[kBaseline], out, layout.traps),
                               ReadOutput(regions[kCandidate], out, layout.traps), between).ok();
        continue;
      }
      const std::vector<int64_t> at = SampleIndices(out.elements, checks_);
      agree = CompareOutputs(SampleOutput(regions[kBaseline], out, layout.traps, at),
                             SampleOutput(regions[kCandidate], out, layout.traps, at), between).ok();
    }
    if (agree && !(check_reference && p == against_reference)) continue;
    CANNBOT_ASSIGN_OR_RETURN(std::string wrong, Arbitrate(p, round, /*baseline_too=*/!agree));
    if (!wrong.empty()) return wrong;
  }
  return std::string();
}

std::string Gate::CheckEdgeBatch(int role, const std::vector<CallData>& edge_sets) {
  const char* region = runners_[role]->region();
  auto& first = edge_answer_[role];
  first.resize(edge_sets.size());
  for (size_t p = 0; p < positions_.size(); ++p) {
    const CallLayout& layout = positions_[p];
    const size_t s = p % edge_sets.size();
    const CallData& set = edge_sets[s];
    std::string problem = CheckAfterCall(region, layout, set);
    for (size_t i = 0; problem.empty() && i < layout.outputs.size(); ++i) {
      const TensorPlace& out = layout.outputs[i];
      // The first answer for a data set is judged; the rest must repeat it bit for bit.
      if (first[s].size() > i) {
        if (std::memcmp(TensorAt(region, out), first[s][i].data(), out.bytes()) != 0) {
          problem = "a different answer for edge data it had already seen (nondeterministic)";
        }
        continue;
      }
      ops::Tensor got = ReadOutput(region, out, layout.traps);
      const Comparison c =
          CompareOutputs(set.expected[i], got, op_.ToleranceFor(shape_, out.dtype));
      if (!c.ok()) problem = "wrong results: " + c.Describe(out.name);
      first[s].push_back(std::move(got));
    }
    if (!problem.empty()) return problem + " on the perf shape with the op's edge values";
  }
  return "";
}

Result<std::optional<PerfReport>> Gate::RunEdgeCheck(const std::vector<double> (&times)[2]) {
  EdgeCheck& check = report_.edges;
  check.inputs = DescribeEdgeInputs(op_, shape_);
  if (check.inputs.empty()) {
    check.inputs = "the op declares no edge values";
    return std::optional<PerfReport>();
  }
  std::vector<CallData> edge_sets;
  for (int k = 0; k < kEdgeSets; ++k) {
    CANNBOT_ASSIGN_OR_RETURN(
        CallData set, WithReference(reference_, shape_,
                                    GenerateEdgeInputs(op_, shape_, seed_,
                                                       "perf-edges/" + std::to_string(k))));
    edge_sets.push_back(std::move(set));
  }
  check.inputs_subnormal = std::any_of(edge_sets.begin(), edge_sets.end(), [](const CallData& set) {
    return HoldsSubnormals(set.inputs);
  });
  for (const auto& runner : runners_) {
    for (size_t p = 0; p < positions_.size(); ++p) {
      StageInputs(runner->region(), positions_[p], edge_sets[p % edge_sets.size()]);
      FillGuards(runner->region(), positions_[p].inputs, positions_[p].traps);
      FillGuards(runner->region(), positions_[p].outputs, positions_[p].traps);
    }
  }
  std::vector<double> edge_times[2];
  uint32_t edge_fp_exceptions[2] = {0, 0};
  for (int round = 0; round < config_.edge_rounds; ++round) {
    const int first = round % 2 == 0 ? kBaseline : kCandidate;
    for (int role : {first, 1 - first}) {
      auto batch = TimedBatch(role);
      if (!batch.ok()) {
        CANNBOT_ASSIGN_OR_RETURN(PerfReport failed,
                                 ChildFailure(role, batch.status(), " on the edge inputs"));
        return std::optional<PerfReport>(failed);
      }
      const std::string problem = CheckEdgeBatch(role, edge_sets);
      if (!problem.empty()) {
        return std::optional<PerfReport>(
            Fail(Layer::kPerf, std::string(kRoleName[role]) + ": " + problem));
      }
      edge_times[role].push_back(batch->per_call);
      edge_fp_exceptions[role] |= batch->fp_exceptions;
    }
  }
  EdgeTiming* timing[2] = {&check.baseline, &check.candidate};
  for (int role : {kBaseline, kCandidate}) {
    EdgeTiming& t = *timing[role];
    t.perf_seconds = Median(times[role]);
    t.edge_seconds = Median(edge_times[role]);
    t.slowdown = t.perf_seconds > 0 ? t.edge_seconds / t.perf_seconds : 0;
    t.perf_fp_exceptions = perf_fp_exceptions_[role];
    t.edge_fp_exceptions = edge_fp_exceptions[role];
  }
  check.ran = true;
  check.Judge();
  return std::optional<PerfReport>();
}

Result<PerfReport> Gate::ChildFailure(int role, const Status& s, const char* when) {
  if (!KernelFailed(s)) return s;
  return Fail(Layer::kSandbox, std::string(kRoleName[role]) + ": " + s.message() + when);
}

PerfReport Gate::Fail(Layer layer, const std::string& reason) {
  report_.ok = false;
  report_.layer = layer;
  report_.reason = reason;
  for (int role : {kCandidate, kBaseline}) {
    if (runners_[role] && runners_[role]->ChildOutputBytes() > 0) {
      report_.child_output = runners_[role]->ChildOutput();
      break;
    }
  }
  return report_;
}

KernelTiming Gate::Summarise(const std::vector<double>& per_call) const {
  KernelTiming t;
  t.median_seconds = Median(per_call);
  t.calls_per_batch = static_cast<int>(positions_.size());
  if (t.median_seconds > 0) {
    t.gbps = op_.Bytes(shape_) / t.median_seconds / 1e9;
    t.gflops = op_.flops(shape_) / t.median_seconds / 1e9;
    t.roofline_fraction = machine_.BoundSeconds(op_.flops(shape_), op_.TrafficOf(shape_)) /
                          t.median_seconds;
  }
  return t;
}

Result<PerfReport> Gate::Run(const std::string& candidate, const std::string& baseline,
                             const RunnerConfig& runner_config, const std::string& work_dir) {
  report_.shape = shape_.Describe();
  report_.min_speedup = config_.min_speedup;
  CANNBOT_ASSIGN_OR_RETURN(const size_t region_bytes, Plan());

  const auto kinds = ArgKinds(op_);
  const std::string* objects[2] = {&baseline, &candidate};
  for (int role : {kBaseline, kCandidate}) {
    CANNBOT_ASSIGN_OR_RETURN(runners_[role],
                             KernelRunner::Start(runner_config, region_bytes, work_dir));
    Status s = runners_[role]->Load(0, *objects[role], op_.name, kinds);
    if (s.ok()) s = runners_[role]->Seal();
    if (!s.ok()) return ChildFailure(role, s, "");
  }
  StageRound(0);

  // The channel's round trip, measured with empty batches, is subtracted from every batch.
  for (int role : {kBaseline, kCandidate}) {
    std::vector<double> empty;
    for (int i = 0; i < 7; ++i) {
      auto t = runners_[role]->Call(0, {positions_[0].Args(op_, shape_)}, 0, config_.call_timeout);
      if (!t.ok()) return ChildFailure(role, t.status(), "");
      empty.push_back(t->wall_seconds);
    }
    overhead_[role] = Median(empty);
  }
  report_.channel_overhead_seconds = std::max(overhead_[kBaseline], overhead_[kCandidate]);

  std::vector<double> times[2];
  std::vector<double> ratios;
  const auto start = SteadyClock::now();
  // Round 0 is the warm-up: outputs are checked against the reference, nothing is recorded.
  for (int round = 0; round <= config_.max_rounds; ++round) {
    rotation_ = static_cast<size_t>(round) % data_->size();
    StageRound(round);
    double per_call[2] = {0, 0};
    const int first = round % 2 == 0 ? kBaseline : kCandidate;
    for (int role : {first, 1 - first}) {
      auto t = TimedBatch(role);
      if (!t.ok()) return ChildFailure(role, t.status(), " during timed runs");
      if (round == 0) {
        const std::string problem = CheckBatch(role);
        if (!problem.empty()) return Fail(Layer::kPerf, std::string(kRoleName[role]) + ": " + problem);
      }
      per_call[role] = t->per_call;
      perf_fp_exceptions_[role] |= t->fp_exceptions;
    }
    if (round > 0) {
      CANNBOT_ASSIGN_OR_RETURN(const std::string problem, CheckRound(round));
      if (!problem.empty()) return Fail(Layer::kPerf, problem);
    }
    if (round == 0) continue;
    times[kBaseline].push_back(per_call[kBaseline]);
    times[kCandidate].push_back(per_call[kCandidate]);
    ratios.push_back(per_call[kBaseline] / std::max(per_call[kCandidate], 1e-12));
    report_.rounds = round;
    if (report_.rounds < config_.min_rounds) continue;
    Interval ci = MedianConfidenceInterval(ratios);
    const double elapsed = std::chrono::duration<double>(SteadyClock::now() - start).count();
    if (ci.low > config_.min_speedup || ci.high < config_.min_speedup ||
        elapsed > config_.max_seconds) {
      break;
    }
  }
  if (config_.edge_rounds > 0) {
    CANNBOT_ASSIGN_OR_RETURN(std::optional<PerfReport> failed, RunEdgeCheck(times));
    if (failed) return *failed;
  }
  for (int role : {kCandidate, kBaseline}) {
    const KernelRunner& runner = *runners_[role];
    if (runner.ChildOutputBytes() > 0) {
      return Fail(Layer::kSandbox, std::string(kRoleName[role]) + ": " +
                                       PrintedReason(runner.ChildOutputBytes(),
                                                     runner.ChildOutput(80)));
    }
  }

  report_.speedup = Median(ratios);
  report_.speedup_ci = MedianConfidenceInterval(ratios);
  report_.baseline = Summarise(times[kBaseline]);
  report_.candidate = Summarise(times[kCandidate]);
  const std::string ci_text = "(95% CI " + Ratio(report_.speedup_ci.low) + "-" +
                              Ratio(report_.speedup_ci.high) + ")";
  if (report_.speedup_ci.low >= config_.min_speedup) {
    report_.ok = true;
    report_.reason = Ratio(report_.speedup) + " faster than the baseline " + ci_text;
  } else {
    report_.ok = false;
    report_.layer = Layer::kPerf;
    report_.reason = "not measurably faster: speedup " + Ratio(report_.speedup) + " " + ci_text +
                     " does not clear the " + Ratio(config_.min_speedup) + " bar";
  }
  return report_;
}

}  // namespace

Result<PerfReport> RunPerfGate(const ops::OpSpec& op, const std::string& candidate_object,
                               const std::string& baseline_object, uint64_t seed,
                               const MachineModel& machine, const RunnerConfig& runner,
                               const PerfConfig& config, const std::string& work_dir,
                               const ReferenceOracle* reference) {
  std::unique_ptr<ReferenceOracle> built_in;
  if (reference == nullptr) {
    built_in = InProcessReference(op);
    reference = built_in.get();
  }
  Gate gate(op, *reference, seed, machine, config);
  return gate.Run(candidate_object, baseline_object, runner, work_dir);
}

}  // namespace cannbot::validator
