// NumericCheck: the validator's second layer. Does the kernel compute the reference's numbers?
//
// The kernel runs in a fresh sandboxed runner on every numeric shape of its op (tiny, odd,
// realistic, edge-value cases) with fresh inputs drawn from the run's seed. Before each call
// the validator poisons the outputs with NaN and frames every tensor with guard zones; after
// it, the trusted parent checks the guards, checks the inputs are unchanged, computes the
// reference itself and compares with the op's tolerance. Each case runs twice and must give
// bitwise-identical output. The kernel never sees expected outputs.
//
// A crash, hang, forbidden system call, leftover thread, changed signal handling or any
// printing is reported with layer "sandbox"; wrong numbers, writes out of bounds, modified
// inputs or nondeterminism with layer "numeric".
//
// Thread-safety: each call uses its own runner; safe to run concurrently.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "cannbot/ops/op_spec.h"
#include "cannbot/validator/compare.h"
#include "cannbot/validator/kernel_runner.h"
#include "cannbot/validator/layer.h"
#include "cannbot/validator/output_judge.h"
#include "cannbot/validator/reference_oracle.h"

namespace cannbot::validator {

struct NumericConfig {
  std::chrono::milliseconds call_timeout{10000};  // per call of one case
  bool check_determinism = true;                  // run each case twice, compare bits
};

struct NumericCase {
  std::string label;
  std::string shape;  // "n=1037"
  Comparison comparison;
  ops::Tolerance tolerance;
  std::string problem;  // one sentence when the case failed
  double seconds = 0;   // the kernel's wall time for one call
};

struct NumericReport {
  bool ok = false;
  Layer layer = Layer::kNone;  // kNumeric or kSandbox when !ok
  std::string reason;  // one sentence when !ok
  std::vector<NumericCase> cases;
  std::string child_output;  // what the kernel printed (capped)
  std::vector<std::string> sandbox_warnings;  // confinement the runner could not apply
  // What bounded the kernel's memory (KernelRunner::DescribeMemoryLimit).
  std::string memory_limit;
};

// Runs every numeric (non-perf) shape of `op`, and a random one within the spec's bounds when
// it declares them, against `shared_object`, judging outputs against `reference`'s with
// `judge`. An error Status means the validator itself could not run (not the kernel's
// fault), or the reference misbehaved (InvalidArgument, reference_oracle.h).
Result<NumericReport> RunNumericCheck(const ops::OpSpec& op, const ReferenceOracle& reference,
                                      const std::string& shared_object, uint64_t seed,
                                      const RunnerConfig& runner, const NumericConfig& config,
                                      const std::string& work_dir,
                                      const OutputJudge& judge = DefaultJudge());
// The same with the op's built-in reference.
Result<NumericReport> RunNumericCheck(const ops::OpSpec& op, const std::string& shared_object,
                                      uint64_t seed, const RunnerConfig& runner,
                                      const NumericConfig& config, const std::string& work_dir,
                                      const OutputJudge& judge = DefaultJudge());

// The argument kinds of an op's signature, for KernelRunner::Load.
std::vector<runner_protocol::ArgKind> ArgKinds(const ops::OpSpec& op);
// The rejection reason for a kernel that wrote `bytes` to stdout/stderr.
std::string PrintedReason(size_t bytes, const std::string& start);

}  // namespace cannbot::validator
