#include "cannbot/validator/tensor_layout.h"

#include <cstring>

namespace cannbot::validator {
namespace {

size_t AlignUp(size_t value, size_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

// Places one tensor after `*cursor`, guard zone first, and advances the cursor past the
// trailing guard zone.
TensorPlace Place(const std::string& name, int64_t elements, size_t* cursor) {
  TensorPlace place;
  place.name = name;
  place.elements = elements;
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
      layout.inputs.push_back(Place(p.name, p.elements(shape), &cursor));
    }
  }
  for (const ops::Param& p : op.params) {
    if (p.kind == ops::ParamKind::kOutput) {
      layout.outputs.push_back(Place(p.name, p.elements(shape), &cursor));
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
      layout.outputs.push_back(Place(p.name, p.elements(shape), &cursor));
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

float* TensorAt(char* region, const TensorPlace& place) {
  return reinterpret_cast<float*>(region + place.offset);
}

const float* TensorAt(const char* region, const TensorPlace& place) {
  return reinterpret_cast<const float*>(region + place.offset);
}

void PoisonOutputs(char* region, const CallLayout& layout) {
  for (const TensorPlace& out : layout.outputs) {
    float poison;
    std::memcpy(&poison, &kPoisonBits, sizeof(poison));
    float* data = TensorAt(region, out);
    for (int64_t i = 0; i < out.elements; ++i) data[i] = poison;
  }
}

void FillGuards(char* region, const std::vector<TensorPlace>& places) {
  for (const TensorPlace& place : places) {
    std::memset(region + place.offset - kGuardBytes, kGuardByte, kGuardBytes);
    std::memset(region + place.offset + place.bytes(), kGuardByte, kGuardBytes);
  }
}

std::string CheckGuards(const char* region, const std::vector<TensorPlace>& places,
                        const std::string& role) {
  for (const TensorPlace& place : places) {
    const auto* before = reinterpret_cast<const unsigned char*>(region + place.offset - kGuardBytes);
    for (size_t i = 0; i < kGuardBytes; ++i) {
      if (before[i] != kGuardByte) {
        return "wrote before the start of " + role + " " + place.name + " (" +
               std::to_string(kGuardBytes - i) + " bytes before element 0)";
      }
    }
    const auto* after = reinterpret_cast<const unsigned char*>(region + place.offset + place.bytes());
    for (size_t i = 0; i < kGuardBytes; ++i) {
      if (after[i] != kGuardByte) {
        return "wrote past the end of " + role + " " + place.name + " (" +
               std::to_string(i) + " bytes after its last element, index " +
               std::to_string(place.elements - 1) + ")";
      }
    }
  }
  return "";
}

bool IsPoison(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits == kPoisonBits;
}

}  // namespace cannbot::validator
