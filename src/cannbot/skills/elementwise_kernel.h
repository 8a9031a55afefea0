// ElementwiseKernel: the kernel of an elementwise op written from its spec's `elementwise`
// expression (ops::OpSpec::elementwise), so one family recipe serves every activation, math and
// binary op in every dtype: a single pass over the output in runs of contiguous elements, a
// tile at a time, 16-bit elements widened to float tiles and rounded back (nearest even),
// large outputs written with non-temporal stores, broadcast inputs read by the spec's
// `broadcast` rule, and the expression's functions taken from cannbot's vector math
// (src/cannbot/skills/cb_math.inc: branch-free, vectorisable, no subnormal results).
//
// With Math::kLibm the same loop calls the C library instead (std::exp, ...): the plain
// version a developer would write, used as a 16-bit variant's baseline where no example file
// exists, and by tests.
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "cannbot/ops/op_spec.h"
#include "cannbot/util/status.h"

namespace cannbot::skills {

enum class Math { kVector, kLibm };

// The kernel source (after the contract prelude, so `half` and `bfloat16` are defined);
// `unroll_macro` names a macro holding the inner loop's unroll count (empty: none) and
// `stream_macro` one that, when nonzero, lets Math::kVector write outputs of 4 MB and more with
// non-temporal stores (empty: never). InvalidArgument when the op has no `elementwise`
// expression.
Result<std::string> ElementwiseKernel(const ops::OpSpec& op, Math math,
                                      const std::string& unroll_macro = "",
                                      const std::string& stream_macro = "");

// The C text generated kernels share, after cb_math and the extent functions: 16-bit
// conversions (ew_half_to_float, ...) and the tile helpers (ew_widen_half, ew_copy_out, ...).
std::string GeneratedKernelSupport();
// "half" or "bf16": the suffix of the support's conversions for a 16-bit dtype
// (ew_widen_half, ew_narrow_bf16, ew_float_to_half, ...).
std::string SixteenBitSuffix(ops::DType dtype);

// The text of cb_math.inc (embedded at build time).
std::string_view VectorMathSource();

}  // namespace cannbot::skills
