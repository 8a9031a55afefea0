// The value parts of an op spec file (op_spec_file.h): input distributions with their edge
// values, and tolerances. Internal to the ops module.
//
// Thread-safety: free functions with no shared state.
#pragma once

#include <cstdint>
#include <string>

#include <toml++/toml.h>

#include "cannbot/ops/op_spec.h"
#include "cannbot/ops/spec_reader.h"

namespace cannbot::ops::spec_file {

// [inputs.NAME] tables: a distribution per input tensor (a dtype's default when absent), with
// edge values kept out of the perf shape unless `edges_in_perf`. NaN and infinities are
// accepted as edges only when the op defines them (`nonfinite`).
void ReadInputs(SpecReader& r, const toml::table& root, bool nonfinite, OpSpec* op);
// [tolerance]: standard = "cann", exact = true, or atol/rtol; per-dtype [tolerance.half]
// tables. Absent: the CANN standard for floating outputs, exact for integer ones.
void ReadTolerance(SpecReader& r, const toml::table& root, OpSpec* op);

}  // namespace cannbot::ops::spec_file

namespace cannbot::ops {
// "2.0 GiB", "64.0 MiB", "512 bytes": for limits in messages.
std::string FormatBytes(int64_t bytes);
}  // namespace cannbot::ops
