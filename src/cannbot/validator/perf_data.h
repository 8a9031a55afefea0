// PerfData: the inputs the perf gate times kernels on, new in every round.
//
// A kernel must not be able to reuse work between timed calls. So the gate draws `count` data
// sets once (with the reference's outputs for them, which round 0 checks in full), half of
// them *twins* of the other half (identical in their first and last 32 elements, different in
// about 1% of the interior, so a cache keyed on a cheap fingerprint serves a wrong answer), and
// gives every later round inputs drawn afresh from the op's distributions (fresh_values.h), a
// twin being its sibling's fresh data with interior differences of its own. Nothing of an
// earlier round survives: not the whole input (content-keyed memoisation, which pays on ops
// whose compute dwarfs a read of their inputs, such as matmul), not chunks cut by content, not
// single values, and not structure a transform of old data would keep (row sums and dot
// products carried through a rotation let a reduce_sum claim 124x). Drawing afresh costs a
// pass of counter-based draws over the inputs; recomputing the reference every round would
// cost a reference computation per call, so the gate checks later rounds against the other
// kernel instead (perf_gate.h). Probability rows (each row sums to 1) and perf data that mixes
// in edge values are drawn by GenerateInput.
//
// Ownership: plain values (the sets' tensors). Thread-safety: const methods only after Draw.
#pragma once

#include <cstdint>
#include <vector>

#include "cannbot/ops/op_spec.h"
#include "cannbot/validator/harness.h"
#include "cannbot/validator/reference_oracle.h"

namespace cannbot::validator {

class PerfData {
 public:
  // `count` (even, >= 2) sets on `shape`: the first half drawn from (seed, "perf/<s>"), the
  // second half their twins. Errors are the reference's.
  static Result<PerfData> Draw(const ReferenceOracle& reference, const ops::OpSpec& op,
                               const ops::Shape& shape, uint64_t seed, int count);

  size_t size() const { return sets_.size(); }
  // Set `s` as drawn, with its reference outputs (round 0's data).
  const CallData& Base(size_t s) const { return sets_[s]; }
  // Set `s`'s inputs in round `round`: the base inputs for round 0, else each input drawn
  // afresh from (seed, round, s's pair, input), a twin's differences from (seed, round, s);
  // no expected outputs.
  CallData ForRound(size_t s, int round) const;
  // The same into `data`, reusing its tensors' memory (the gate's every round).
  void ForRound(size_t s, int round, CallData* data) const;

 private:
  PerfData(const ops::OpSpec& op, const ops::Shape& shape, uint64_t seed)
      : op_(&op), shape_(&shape), seed_(seed) {}

  const ops::OpSpec* op_;     // borrowed: outlives the gate
  const ops::Shape* shape_;   // the op's perf shape
  uint64_t seed_;
  std::vector<CallData> sets_;
  std::vector<int64_t> row_elements_;  // per input: a probability row's length (else 1)
};

// `inputs` differing from themselves in about 1% of the interior of every tensor large enough
// to have one, nowhere near either end (a twin).
std::vector<ops::Tensor> MakeTwin(const ops::OpSpec& op, const ops::Shape& shape,
                                  std::vector<ops::Tensor> inputs, uint64_t seed);

}  // namespace cannbot::validator
