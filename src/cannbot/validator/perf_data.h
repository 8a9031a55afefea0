// PerfData: the inputs the perf gate times kernels on, new in every round.
//
// A kernel must not be able to reuse work between timed calls. So the gate draws `count` data
// sets once (with the reference's outputs for them, which round 0 checks in full), half of
// them *twins* of the other half (identical in their first and last 32 elements, different in
// about 1% of the interior, so a cache keyed on a cheap fingerprint serves a wrong answer), and
// gives every later round each set's inputs rotated by offsets drawn for that round: every
// element moves, the values keep their distribution, and no round repeats an earlier one. A
// cache keyed on the whole input (content-keyed memoisation, which pays on ops whose compute
// dwarfs a read of their inputs, such as matmul) never hits; a twin is rotated exactly like its
// sibling, so the fingerprint trap holds in every round. Rotating costs a copy, where drawing
// fresh values and recomputing the reference every round would cost a reference computation
// per call; the gate checks later rounds against the other kernel instead (perf_gate.h).
//
// A tensor of probability rows (each row sums to 1) is rotated by whole rows; a one-element
// tensor cannot change.
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
  // Set `s`'s inputs in round `round`: the base inputs for round 0, else each input rotated by
  // an offset drawn from (seed, round, s's pair, input); no expected outputs.
  CallData ForRound(size_t s, int round) const;
  // The rotation of input `input` of set `s` in `round` (elements; 0 for round 0).
  int64_t Rotation(size_t s, int round, size_t input) const;

 private:
  explicit PerfData(uint64_t seed) : seed_(seed) {}

  uint64_t seed_;
  std::vector<CallData> sets_;
  std::vector<int64_t> row_elements_;  // per input: the rotation step (1, or a row's length)
};

// `inputs` differing from themselves in about 1% of the interior of every tensor large enough
// to have one, nowhere near either end (a twin).
std::vector<ops::Tensor> MakeTwin(const ops::OpSpec& op, const ops::Shape& shape,
                                  std::vector<ops::Tensor> inputs, uint64_t seed);

// `tensor` rotated left by `by` elements (element i of the result is element (i + by) % n).
ops::Tensor Rotated(const ops::Tensor& tensor, int64_t by);

}  // namespace cannbot::validator
