// RowReduceKernel: the kernel of a row reduction written from its spec's `reduce` table
// (ops::OpSpec::reduce, reduce_finish), so one family recipe (row-reduce) serves sum, mean, max
// and min over the last axis in fp32, fp16 and bf16: each row is combined into LANES
// independent partial results (a vector's worth of accumulators per chain, several chains, so
// the loop vectorises without reassociating anything the compiler must keep in order and the
// adds overlap), 16-bit rows widened a tile at a time, the partials folded, the finish
// expression applied and the result rounded to the output's dtype.
//
// Thread-safety: pure function.
#pragma once

#include <string>

#include "cannbot/ops/op_spec.h"
#include "cannbot/util/status.h"

namespace cannbot::skills {

// The kernel source (after the contract prelude); `lanes_macro` names a macro holding the
// number of partial results (a multiple of 16 that divides 512; empty: 32). InvalidArgument
// when the op has no `reduce` table or is not [outer, len] -> [outer].
Result<std::string> RowReduceKernel(const ops::OpSpec& op, const std::string& lanes_macro = "");

}  // namespace cannbot::skills
