// The trusted C++ references of cannbot's own ops (reference/*.h), bound to the op specs
// that name them (`reference = "builtin"` in ops/*.toml). A reference is called in the
// validating process, so its binding checks that the function takes exactly the spec's
// signature, parameter by parameter, before it is ever called.
//
// Thread-safety: pure functions; the returned ReferenceFn is immutable.
#pragma once

#include "cannbot/ops/op_spec.h"

namespace cannbot::ops {

// The reference named op.name bound to op's params; null when there is none, or when its C++
// signature is not the spec's (every tensor must be fp32: `const float*` inputs, `float*`
// outputs, `int64_t` sizes, `float` scalars, in the spec's order).
ReferenceFn BuiltInReference(const OpSpec& op);

}  // namespace cannbot::ops
