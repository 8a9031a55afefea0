// Input generation: reproducible random tensors from an op's declared distributions.
//
// The values depend only on (seed, stream, distribution, dtype, count): a verdict can be
// replayed with --seed, and different streams (numeric cases, perf sets) never share data.
// Values are drawn in double and rounded to the tensor's dtype, so a half tensor holds
// exactly the halves a kernel sees.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cannbot/ops/op_spec.h"

namespace cannbot::validator {

// Uniform values lie in [a, b) after rounding to the dtype. `stream` names what the data is
// for, e.g. "numeric/odd/x" or "perf/1/x". `row_elements` is the row length of a
// probability-rows distribution (ignored otherwise).
ops::Tensor GenerateInput(const ops::Distribution& distribution, ops::DType dtype,
                          int64_t elements, uint64_t seed, const std::string& stream,
                          int64_t row_elements = 0);
// fp32 values (the built-in ops' dtype).
std::vector<float> GenerateInput(const ops::Distribution& distribution, int64_t elements,
                                 uint64_t seed, const std::string& stream);

// Every input of one call, in param order.
std::vector<ops::Tensor> GenerateInputs(const ops::OpSpec& op, const ops::Shape& shape,
                                        uint64_t seed, const std::string& stream);

// The distribution of `input` on `shape` with the op's edge values put back where the shape
// leaves them out (the perf shape does, unless the spec says edges_in_perf).
ops::Distribution WithEdges(const ops::OpSpec& op, const ops::Shape& shape,
                            const std::string& input);
// Every input of one call drawn from WithEdges (the perf gate's edge check, edge_check.h).
std::vector<ops::Tensor> GenerateEdgeInputs(const ops::OpSpec& op, const ops::Shape& shape,
                                            uint64_t seed, const std::string& stream);

// The largest value of `dtype` below `b` (uniform ranges are half-open after rounding).
double BelowInDType(ops::DType dtype, double b);

// A fresh seed for a run that was not given one.
uint64_t NewSeed();

}  // namespace cannbot::validator
