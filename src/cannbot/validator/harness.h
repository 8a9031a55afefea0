// Harness: the one implementation of "prepare one kernel call, arm its traps, check what the
// kernel did". Every layer that runs a kernel on data (numeric check, perf gate, self
// profile, the ascendc cost estimate) goes through it, so they agree on how inputs are drawn,
// what the reference answers, which traps are set and what counts as tampering.
//
// A call's data (CallData) is kept by the trusted parent: inputs drawn from (seed, stream)
// and the outputs the reference (reference_oracle.h) computes for them; the kernel only ever sees
// the copies staged in the shared region, never the expected outputs. Where the copies live
// is a CallLayout (tensor_layout.h); the two are separate because the perf gate rotates data
// sets between buffer positions.
//
// Ownership: plain values; the functions read and write caller-owned regions that must span
// the layout (CallLayout::end bytes from the region's start).
// Thread-safety: free functions with no state of their own; calls on different regions may
// run concurrently (OpSpecs are immutable).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cannbot/ops/op_spec.h"
#include "cannbot/validator/compare.h"
#include "cannbot/validator/output_judge.h"
#include "cannbot/validator/reference_oracle.h"
#include "cannbot/validator/tensor_layout.h"

namespace cannbot::validator {

// One call's data as the parent keeps it.
struct CallData {
  std::vector<ops::Tensor> inputs;    // in param order
  std::vector<ops::Tensor> expected;  // the reference's outputs, in param order
};

// `inputs` with the reference's outputs for them (e.g. inputs derived from another set).
// Errors are the reference's (reference_oracle.h).
Result<CallData> WithReference(const ReferenceOracle& reference, const ops::Shape& shape,
                               std::vector<ops::Tensor> inputs);
// Inputs drawn from (seed, stream) (see inputs.h) with the reference's outputs for them.
Result<CallData> DrawCallData(const ReferenceOracle& reference, const ops::OpSpec& op,
                              const ops::Shape& shape, uint64_t seed, const std::string& stream);

// A call with a single place in the region: its layout from `begin`, and its data.
struct PreparedCall {
  CallLayout layout;
  CallData data;
};
Result<PreparedCall> PrepareCall(const ReferenceOracle& reference, const ops::OpSpec& op,
                                 const ops::Shape& shape, uint64_t seed,
                                 const std::string& stream, size_t begin);

// Copies the inputs into their places; nothing else.
void StageInputs(char* region, const CallLayout& layout, const CallData& data);
// Before a call: stages the inputs, fills the guard zones of every tensor, poisons outputs.
void Arm(char* region, const CallLayout& layout, const CallData& data);
// After a call: "" when every guard zone is intact and every input holds what was staged,
// else one sentence ("the kernel modified its input x (first at index 5)"). Outputs' guards
// are checked first, then inputs' guards, then input contents.
std::string CheckAfterCall(const char* region, const CallLayout& layout, const CallData& data);
// A snapshot of the outputs, so what is judged cannot change after judging.
std::vector<ops::Tensor> CopyOutputs(const char* region, const CallLayout& layout);
// Judges every output in `got` against the expected one. Returns the first output's reason
// ("" when all are right) and sets `summary` to every output's comparison merged.
std::string JudgeOutputs(const ops::OpSpec& op, const ops::Shape& shape, const CallData& data,
                         const std::vector<ops::Tensor>& got, const OutputJudge& judge,
                         const std::string& printed, Comparison* summary);

}  // namespace cannbot::validator
