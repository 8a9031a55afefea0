// Input generation: reproducible random tensors from an op's declared distributions.
//
// The values depend only on (seed, stream, distribution, count): a verdict can be replayed
// with --seed, and different streams (numeric cases, perf sets) never share data.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cannbot/ops/op_spec.h"

namespace cannbot::validator {

// Uniform values lie in [a, b) after rounding to float. `stream` names what the data is for, e.g. "numeric/odd/x" or "perf/1/x".
std::vector<float> GenerateInput(const ops::Distribution& distribution, int64_t elements,
                                 uint64_t seed, const std::string& stream);

// Every input of one call, in param order.
std::vector<std::vector<float>> GenerateInputs(const ops::OpSpec& op, const ops::Shape& shape,
                                               uint64_t seed, const std::string& stream);

// A fresh seed for a run that was not given one.
uint64_t NewSeed();

}  // namespace cannbot::validator
