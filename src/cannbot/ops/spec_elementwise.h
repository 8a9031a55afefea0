// The `elementwise`, `broadcast` and `reduce` keys of an op spec file (op_spec_file.h): an
// elementwise op's scalar function as a C++ float expression, which cannbot's vectorised family
// recipe is instantiated from (skills/elementwise_kernel.h), the inputs it broadcasts, and a row
// reduction's combine and finish (skills/reduce_kernel.h). Internal to the ops module.
//
// The expression becomes code in a generated kernel, so it is held to a small language: float
// literals, the op's input and scalar names, arithmetic, comparisons, `?:` and cannbot's
// vector math functions (kVectorMathFunctions); anything else (a `;`, a brace, a call to any
// other function) is refused with the token named.
//
// Thread-safety: free functions with no shared state.
#pragma once

#include <string>
#include <vector>

#include <toml++/toml.h>

#include "cannbot/ops/op_spec.h"
#include "cannbot/ops/spec_reader.h"

namespace cannbot::ops {

// The functions an `elementwise` expression may call (src/cannbot/skills/cb_math.inc).
const std::vector<std::string>& VectorMathFunctions();

// OK when `expression` uses only the language above with `names` as its variables; else
// InvalidArgument naming the first token that is not allowed.
Status CheckElementwiseExpression(const std::string& expression,
                                  const std::vector<std::string>& names);

namespace spec_file {
// Reads `elementwise` and `broadcast` into op (after the params and shapes).
void ReadElementwise(SpecReader& r, const toml::table& root, OpSpec* op);
// Reads `reduce = { combine = "sum" | "max" | "min", finish = "<expression>" }` into op.
void ReadReduce(SpecReader& r, const toml::table& root, OpSpec* op);
}  // namespace spec_file

}  // namespace cannbot::ops
