// TensorLayout: where each tensor of a call lives in the shared region, and the traps
// around it.
//
// Every tensor starts on a 64-byte boundary (the ABI promises aligned base pointers) and is
// framed by guard zones filled with a byte pattern, so a kernel that writes past either end of
// any buffer is caught. Floating-point outputs are poisoned with a NaN payload of their dtype
// before each call, so an element the kernel never wrote is recognisable as such; integer
// outputs get a byte pattern (any integer is a valid value, so "never written" shows only as
// a wrong value there). The patterns (TrapValues) are drawn afresh for every layout, so a
// kernel cannot tell the harness by a constant; the parent's copies of outputs (ReadOutput)
// mark never-written elements with the fixed markers below, which IsPoison recognises.
//
// Thread-safety: plain values and free functions over caller-owned memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cannbot/ops/op_spec.h"
#include "cannbot/validator/kernel_runner.h"

namespace cannbot::validator {

inline constexpr size_t kTensorAlignment = 64;
inline constexpr size_t kGuardBytes = 4096;
// The markers of a never-written element in the parent's copies (never shown to a kernel).
inline constexpr uint32_t kPoisonBits = 0x7FC0DEADu;  // fp32: a quiet NaN with a payload
inline constexpr uint16_t kPoisonBitsF16 = 0x7E5Du;     // fp16: a quiet NaN with a payload
inline constexpr uint16_t kPoisonBitsBF16 = 0x7FDEu;    // bfloat16: a quiet NaN with a payload

// The patterns planted in one layout's buffers: quiet NaNs with a random sign and a random
// non-zero payload (a computed NaN has payload zero), a random byte for integer outputs and
// one for the guard zones.
struct TrapValues {
  uint32_t f32 = 0;
  uint16_t f16 = 0;
  uint16_t bf16 = 0;
  unsigned char integer = 0;
  unsigned char guard = 0;
  static TrapValues Fresh();
  // The poison pattern of a float dtype (DTypeBytes wide); null for integer dtypes.
  const void* Poison(ops::DType dtype) const;
  // Whether element `index` of a kernel's output still holds this layout's poison.
  bool Holds(const void* data, ops::DType dtype, int64_t index) const;
};

struct TensorPlace {
  std::string name;
  size_t offset = 0;  // bytes from the region's start
  int64_t elements = 0;
  ops::DType dtype = ops::DType::kF32;
  size_t bytes() const { return static_cast<size_t>(elements) * ops::DTypeBytes(dtype); }
};

struct CallLayout {
  std::vector<TensorPlace> inputs;   // in param order
  std::vector<TensorPlace> outputs;  // in param order
  size_t end = 0;                    // first byte after the last guard zone
  TrapValues traps = TrapValues::Fresh();

  // Inputs at `begin`, then outputs; each framed by guards.
  static CallLayout Plan(const ops::OpSpec& op, const ops::Shape& shape, size_t begin);
  // The same inputs with fresh outputs placed from `begin` (a second kernel's outputs).
  CallLayout WithOutputsAt(const ops::OpSpec& op, const ops::Shape& shape, size_t begin) const;
  // Arguments in the op's param order.
  std::vector<KernelArg> Args(const ops::OpSpec& op, const ops::Shape& shape) const;
};

void* TensorAt(char* region, const TensorPlace& place);
const void* TensorAt(const char* region, const TensorPlace& place);
// A copy of the tensor at `place`.
ops::Tensor ReadTensor(const char* region, const TensorPlace& place);
// A copy of the output at `place` with every element still holding `traps`' poison replaced
// by the fixed marker (kPoisonBits...).
ops::Tensor ReadOutput(const char* region, const TensorPlace& place, const TrapValues& traps);
// ReadOutput's values at `indices` only (each < place.elements), in that order.
ops::Tensor SampleOutput(const char* region, const TensorPlace& place, const TrapValues& traps,
                         const std::vector<int64_t>& indices);
void PoisonOutputs(char* region, const CallLayout& layout);
void FillGuards(char* region, const std::vector<TensorPlace>& places, const TrapValues& traps);
// Empty when intact, else "wrote past the end of output y (2 bytes after element 1036)".
std::string CheckGuards(const char* region, const std::vector<TensorPlace>& places,
                        const std::string& role, const TrapValues& traps);
// Whether element `index` of a parent's copy (ReadOutput) holds the never-written marker
// (never for integer dtypes).
bool IsPoison(const void* data, ops::DType dtype, int64_t index);

}  // namespace cannbot::validator
