// PackageOperators: which operator of an operator package cannbot runs.
//
// A custom operator project keeps several operators side by side: op_host/add_custom.cpp with
// OP_ADD(AddCustom), op_host/add_custom_unalign.cpp with OP_ADD(AddCustomUnalign), and in
// op_kernel/ one entry for each, named after its type in snake case (add_custom,
// add_custom_unalign). cannbot runs one operator at a time: the only one, or the one the user
// names (`--operator`, "operator" in a JobSpec's package or a CI package rule). The host units
// that define the others are left out of the build, and so are their tiling registrations.
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "cannbot/util/status.h"

namespace cannbot::ascendc {

// The kernel entry an OpDef type names: "AddCustom" -> "add_custom", "LayerNormV4" ->
// "layer_norm_v4", "Conv2DBackpropInput" -> "conv2d_backprop_input" (an underscore before each
// capital that follows a lower-case letter, or that starts a word after an acronym or digit).
std::string KernelEntryName(const std::string& op_type);

struct OperatorChoice {
  std::string type;   // "AddCustomUnalign"; "" when the host code has no OP_ADD
  std::string entry;  // KernelEntryName(type); "" with type
  bool several = false;  // the package defines more than one operator
  // Host units that define only other operators: not part of the build.
  std::vector<std::string> left_out;
  // Whether a registration made for `op` (REGISTER_TILING_DATA_CLASS's first argument,
  // "AddCustom" or "AddCustom_1" for a tiling key; a tiling class's op type) is this one's.
  bool Owns(const std::string& op) const;
};

// Chooses among the operators `host_units` (path, code without comments) define. `wanted`: ""
// (the package's only operator), an OpDef type or its kernel entry name. InvalidArgument,
// naming the package and its operators, when `wanted` is none of them, or when the package
// defines several and `wanted` is "".
Result<OperatorChoice> ChooseOperator(
    const std::vector<std::pair<std::string, std::string>>& host_units, const std::string& wanted,
    const std::string& label);

}  // namespace cannbot::ascendc
