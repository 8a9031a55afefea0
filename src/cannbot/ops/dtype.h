// DType: the element types a tensor parameter may have, with their names as users write them
// (op spec files, JSON), their C type in a kernel's signature and their size. Parsed once at
// the edge (ParseDType); everywhere else a DType is a value, never a string.
//
// Adding a dtype is one row in dtype.cc's table (and whatever its arithmetic needs in the
// harness and the references).
//
// Thread-safety: pure functions over an immutable table.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "cannbot/util/status.h"

namespace cannbot::ops {

enum class DType { kF32, kF16, kBF16, kI8, kU8, kI32, kI64 };

// "float", "half", "bfloat16", "int8_t", "uint8_t", "int32_t", "int64_t": the name in spec
// files and JSON.
const char* DTypeName(DType dtype);
// The element's C++ type in a kernel's signature ("float", "half", "bfloat16", "int8_t", ...);
// half and bfloat16 are defined by the kernel prelude (docs/kernel-abi.md).
const char* DTypeCType(DType dtype);
size_t DTypeBytes(DType dtype);
// Inverse of DTypeName. InvalidArgument naming `field` and the allowed values otherwise.
Result<DType> ParseDType(std::string_view name, std::string_view field = "dtype");

}  // namespace cannbot::ops
