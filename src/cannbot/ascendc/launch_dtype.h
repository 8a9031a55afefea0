// The element types an operator package's launch gives its tensors, by the OpDef's dtype
// names ("float32", "float16", "bfloat16", "int8", "uint8", "int16", "uint16", "int32",
// "uint32", "int64", "uint64", "bool"): what the generated wrapper passes to the emulated
// tiling context (ge::DataType), how the launch converts the validator's fp32 input values
// (targets/ascendc/cannbot_launch.h, StoreElem), and how an output of that type is judged.
//
// The reference computes in fp32 on the values as the launch converted them, so both sides
// see the same numbers: half and bf16 round to nearest even (half saturates finite values at
// +-65504), integers round to nearest and saturate to the type's range (NaN: 0), bool is
// value != 0.
//
// Thread-safety: pure functions over a constant table.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cannbot::ascendc {

// Whether cannbot's emulation launches tensors of `dtype`.
bool IsLaunchable(const std::string& dtype);
// The ge::DataType enumerator for `dtype` ("DT_FLOAT", "DT_INT32", ...); "" when not launchable.
std::string GeDataTypeName(const std::string& dtype);
// Integers and bool: outputs are compared exactly, not by the CANN float precision standard.
bool IsIntegerDtype(const std::string& dtype);
// Width in bits (0 when not launchable).
uint32_t DtypeBits(const std::string& dtype);
// One fp32 value as the launch stores it in a tensor of `dtype`, read back as fp32.
float AsLaunched(const std::string& dtype, float value);

// AsLaunched with `dtype` looked up once, for loops over every element of a tensor (the
// judge converts millions). Copyable, immutable: safe to share between threads.
class LaunchedValue {
 public:
  explicit LaunchedValue(const std::string& dtype);
  float operator()(float value) const;

 private:
  enum class Kind { kAsIs, kHalf, kBfloat16, kBool, kInteger };
  Kind kind_ = Kind::kAsIs;
  double lowest_ = 0;  // kInteger: the range a value saturates to
  float top_ = 0;
};
// What an integer output of `dtype` holds for the reference's fp32 `value`: the nearest
// integer, wrapped to the type's width as two's complement hardware wraps (so do NumPy and
// PyTorch integer ops; kernels that widen int8 to add emulate exactly that). bool: value != 0.
// Other dtypes: AsLaunched.
float AsIntegerResult(const std::string& dtype, float value);
// AsIntegerResult of each of `values`, in place.
void AsIntegerResults(const std::string& dtype, std::vector<float>* values);
// The first dtype in `dtypes` the emulation does not launch; "" when all are launchable.
std::string FirstUnlaunchable(const std::vector<std::string>& dtypes);

}  // namespace cannbot::ascendc
