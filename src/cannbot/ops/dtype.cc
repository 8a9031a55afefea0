#include "cannbot/ops/dtype.h"

namespace cannbot::ops {
namespace {

struct DTypeInfo {
  DType dtype;
  const char* name;
  const char* c_type;
  size_t bytes;
};

constexpr DTypeInfo kDTypes[] = {
    {DType::kF32, "float", "float", 4},          {DType::kF16, "half", "half", 2},
    {DType::kBF16, "bfloat16", "bfloat16", 2},     {DType::kI8, "int8_t", "int8_t", 1},
    {DType::kU8, "uint8_t", "uint8_t", 1},       {DType::kI32, "int32_t", "int32_t", 4},
    {DType::kI64, "int64_t", "int64_t", 8},
};

const DTypeInfo& Info(DType dtype) {
  for (const DTypeInfo& info : kDTypes) {
    if (info.dtype == dtype) return info;
  }
  return kDTypes[0];  // unreachable: every enumerator has a row
}

}  // namespace

const char* DTypeName(DType dtype) { return Info(dtype).name; }
const char* DTypeCType(DType dtype) { return Info(dtype).c_type; }
size_t DTypeBytes(DType dtype) { return Info(dtype).bytes; }

Result<DType> ParseDType(std::string_view name, std::string_view field) {
  std::string allowed;
  for (const DTypeInfo& info : kDTypes) {
    if (name == info.name) return info.dtype;
    allowed += std::string(allowed.empty() ? "" : ", ") + info.name;
  }
  return Status::InvalidArgument("field '" + std::string(field) + "' must be one of: " + allowed +
                                 " (got \"" + std::string(name) + "\")");
}

}  // namespace cannbot::ops
