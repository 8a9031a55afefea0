#include "cannbot/validator/tensor_layout.h"

#include <algorithm>
#include <cstring>
#include <random>

namespace cannbot::validator {
namespace {

size_t AlignUp(size_t value, size_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

// Places one tensor after `*cursor`, guard zone first, and advances the cursor past the
// trailing guard zone.
TensorPlace Place(const ops::Param& param, const ops::Shape& shape, size_t* cursor) {
  TensorPlace place;
  place.name = param.name;
  place.elements = param.elements(shape);
  place.dtype = param.dtype;
  place.offset = AlignUp(*cursor + kGuardBytes, kTensorAlignment);
  *cursor = place.offset + place.bytes() + kGuardBytes;
  return place;
}

}  // namespace

CallLayout CallLayout::Plan(const ops::OpSpec& op, const ops::Shape& shape, size_t begin) {
  CallLayout layout;
  size_t cursor = begin;
  for (const ops::Param& p : op.params) {
    if (p.kind == ops::ParamKind::kInput) {
      layout.inputs.push_back(Place(p, shape, &cursor));
    }
  }
  for (const ops::Param& p : op.params) {
    if (p.kind == ops::ParamKind::kOutput) {
      layout.outputs.push_back(Place(p, shape, &cursor));
    }
  }
  layout.end = AlignUp(cursor, kTensorAlignment);
  return layout;
}

CallLayout CallLayout::WithOutputsAt(const ops::OpSpec& op, const ops::Shape& shape,
                                     size_t begin) const {
  CallLayout layout;
  layout.inputs = inputs;
  size_t cursor = begin;
  for (const ops::Param& p : op.params) {
    if (p.kind == ops::ParamKind::kOutput) {
      layout.outputs.push_back(Place(p, shape, &cursor));
    }
  }
  layout.end = AlignUp(cursor, kTensorAlignment);
  return layout;
}

std::vector<KernelArg> CallLayout::Args(const ops::OpSpec& op, const ops::Shape& shape) const {
  std::vector<KernelArg> args;
  size_t next_input = 0;
  size_t next_output = 0;
  for (const ops::Param& p : op.params) {
    switch (p.kind) {
      case ops::ParamKind::kInput:
        args.push_back(KernelArg::Tensor(inputs[next_input++].offset));
        break;
      case ops::ParamKind::kOutput:
        args.push_back(KernelArg::Tensor(outputs[next_output++].offset));
        break;
      case ops::ParamKind::kSize: args.push_back(KernelArg::Int64(shape.Size(p.name))); break;
      case ops::ParamKind::kScalar:
        args.push_back(KernelArg::Float32(shape.Scalar(p.name)));
        break;
    }
  }
  return args;
}

void* TensorAt(char* region, const TensorPlace& place) { return region + place.offset; }

const void* TensorAt(const char* region, const TensorPlace& place) {
  return region + place.offset;
}

ops::Tensor ReadTensor(const char* region, const TensorPlace& place) {
  return ops::Tensor::FromBytes(place.dtype, place.elements, TensorAt(region, place));
}

TrapValues TrapValues::Fresh() {
  std::random_device device;
  const uint32_t a = device(), b = device();
  TrapValues t;
  // Quiet NaNs (exponent all ones, top mantissa bit set), random sign, non-zero payload,
  // never the parent's own marker.
  t.f32 = (a & 0x80000000u) | 0x7FC00000u | ((a & 0x3FFFFFu) | 1u);
  if (t.f32 == kPoisonBits) t.f32 ^= 2u;
  t.f16 = static_cast<uint16_t>((b & 0x8000u) | 0x7E00u | ((b & 0x1FFu) | 1u));
  if (t.f16 == kPoisonBitsF16) t.f16 ^= 2u;
  t.bf16 = static_cast<uint16_t>(((b >> 16) & 0x8000u) | 0x7FC0u | (((b >> 16) & 0x3Fu) | 1u));
  if (t.bf16 == kPoisonBitsBF16) t.bf16 ^= 2u;
  t.integer = static_cast<unsigned char>(b >> 10);
  t.guard = static_cast<unsigned char>(a >> 22);
  return t;
}

namespace {

// One float pattern per dtype, picked from three candidates; null for integer dtypes.
const void* PerFloatDType(ops::DType dtype, const void* f32, const void* f16, const void* bf16) {
  switch (dtype) {
    case ops::DType::kF32: return f32;
    case ops::DType::kF16: return f16;
    case ops::DType::kBF16: return bf16;
    default: return nullptr;
  }
}

const void* Marker(ops::DType dtype) {
  return PerFloatDType(dtype, &kPoisonBits, &kPoisonBitsF16, &kPoisonBitsBF16);
}

// Whether element `index` of `data` holds `pattern` (null: never).
bool ElementIs(const void* data, ops::DType dtype, int64_t index, const void* pattern) {
  const size_t width = ops::DTypeBytes(dtype);
  return pattern != nullptr &&
         std::memcmp(static_cast<const char*>(data) + index * static_cast<int64_t>(width),
                     pattern, width) == 0;
}

}  // namespace

const void* TrapValues::Poison(ops::DType dtype) const {
  return PerFloatDType(dtype, &f32, &f16, &bf16);
}

bool TrapValues::Holds(const void* data, ops::DType dtype, int64_t index) const {
  return ElementIs(data, dtype, index, Poison(dtype));
}

namespace {

// Replaces every element of `count` that holds `from` by `to` (Bits: the dtype's width).
template <typename Bits>
void ReplaceElements(char* bytes, int64_t count, const void* from, const void* to) {
  Bits old_bits, new_bits;
  std::memcpy(&old_bits, from, sizeof(Bits));
  std::memcpy(&new_bits, to, sizeof(Bits));
  for (int64_t i = 0; i < count; ++i) {
    Bits element;
    std::memcpy(&element, bytes + i * static_cast<int64_t>(sizeof(Bits)), sizeof(Bits));
    if (element == old_bits) {
      std::memcpy(bytes + i * static_cast<int64_t>(sizeof(Bits)), &new_bits, sizeof(Bits));
    }
  }
}

}  // namespace

ops::Tensor ReadOutput(const char* region, const TensorPlace& place, const TrapValues& traps) {
  ops::Tensor copy = ReadTensor(region, place);
  const void* marker = Marker(place.dtype);
  if (marker == nullptr) return copy;
  char* bytes = static_cast<char*>(copy.data());
  // Float dtypes only (a marker exists): 4 or 2 bytes wide.
  if (ops::DTypeBytes(place.dtype) == 4) {
    ReplaceElements<uint32_t>(bytes, copy.elements(), traps.Poison(place.dtype), marker);
  } else {
    ReplaceElements<uint16_t>(bytes, copy.elements(), traps.Poison(place.dtype), marker);
  }
  return copy;
}

ops::Tensor SampleOutput(const char* region, const TensorPlace& place, const TrapValues& traps,
                         const std::vector<int64_t>& indices) {
  const size_t width = ops::DTypeBytes(place.dtype);
  const char* from = static_cast<const char*>(TensorAt(region, place));
  ops::Tensor sample(place.dtype, static_cast<int64_t>(indices.size()));
  char* to = static_cast<char*>(sample.data());
  const void* marker = Marker(place.dtype);
  for (size_t k = 0; k < indices.size(); ++k) {
    const int64_t i = indices[k];
    if (marker != nullptr && traps.Holds(from, place.dtype, i)) {
      std::memcpy(to + k * width, marker, width);
    } else {
      std::memcpy(to + k * width, from + static_cast<size_t>(i) * width, width);
    }
  }
  return sample;
}

namespace {

// Fills `count` elements of `width` bytes at `data` with `pattern`'s low `width` bytes, by
// doubling what is filled: log2(count) bulk copies instead of a call per element (every
// output is poisoned before every timed batch; per element, that was a quarter of a
// validation's time in the sanitized test build).
void FillPattern(char* data, int64_t count, const void* pattern, size_t width) {
  if (count <= 0) return;
  std::memcpy(data, pattern, width);
  const size_t total = static_cast<size_t>(count) * width;
  for (size_t filled = width; filled < total;) {
    const size_t n = std::min(filled, total - filled);
    std::memcpy(data + filled, data, n);
    filled += n;
  }
}

}  // namespace

void PoisonOutputs(char* region, const CallLayout& layout) {
  const TrapValues& t = layout.traps;
  for (const TensorPlace& out : layout.outputs) {
    char* data = region + out.offset;
    if (const void* poison = t.Poison(out.dtype)) {
      FillPattern(data, out.elements, poison, ops::DTypeBytes(out.dtype));
    } else {
      std::memset(data, t.integer, out.bytes());
    }
  }
}

void FillGuards(char* region, const std::vector<TensorPlace>& places, const TrapValues& traps) {
  for (const TensorPlace& place : places) {
    std::memset(region + place.offset - kGuardBytes, traps.guard, kGuardBytes);
    std::memset(region + place.offset + place.bytes(), traps.guard, kGuardBytes);
  }
}

std::string CheckGuards(const char* region, const std::vector<TensorPlace>& places,
                        const std::string& role, const TrapValues& traps) {
  for (const TensorPlace& place : places) {
    const auto* before = reinterpret_cast<const unsigned char*>(region + place.offset - kGuardBytes);
    for (size_t i = 0; i < kGuardBytes; ++i) {
      if (before[i] != traps.guard) {
        return "wrote before the start of " + role + " " + place.name + " (" +
               std::to_string(kGuardBytes - i) + " bytes before element 0)";
      }
    }
    const auto* after = reinterpret_cast<const unsigned char*>(region + place.offset + place.bytes());
    for (size_t i = 0; i < kGuardBytes; ++i) {
      if (after[i] != traps.guard) {
        return "wrote past the end of " + role + " " + place.name + " (" +
               std::to_string(i) + " bytes after its last element, index " +
               std::to_string(place.elements - 1) + ")";
      }
    }
  }
  return "";
}

bool IsPoison(const void* data, ops::DType dtype, int64_t index) {
  return ElementIs(data, dtype, index, Marker(dtype));
}

}  // namespace cannbot::validator
