#include "cannbot/ops/tensor.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "cannbot/ops/dtype_values.h"

namespace cannbot::ops {

Tensor::Tensor(DType dtype, int64_t elements)
    : dtype_(dtype),
      elements_(elements),
      bytes_(static_cast<size_t>(elements) * DTypeBytes(dtype)) {}

Tensor Tensor::FromFloats(const std::vector<float>& values) {
  return FromBytes(DType::kF32, static_cast<int64_t>(values.size()), values.data());
}

Tensor Tensor::FromBytes(DType dtype, int64_t elements, const void* data) {
  Tensor t(dtype, elements);
  if (t.bytes() > 0) std::memcpy(t.data(), data, t.bytes());
  return t;
}

double Tensor::At(int64_t index) const { return LoadElement(dtype_, bytes_.data(), index); }

void Tensor::Set(int64_t index, double value) {
  StoreElement(dtype_, bytes_.data(), index, value);
}

const float* Tensor::f32() const {
  if (dtype_ != DType::kF32) {
    std::fprintf(stderr, "cannbot: bug: %s tensor read as float\n", DTypeName(dtype_));
    std::abort();
  }
  return reinterpret_cast<const float*>(bytes_.data());
}

float* Tensor::f32() { return const_cast<float*>(static_cast<const Tensor&>(*this).f32()); }

std::vector<float> Tensor::ToFloats() const {
  std::vector<float> out(static_cast<size_t>(elements_));
  if (dtype_ == DType::kF32) {
    if (!out.empty()) std::memcpy(out.data(), bytes_.data(), bytes_.size());
    return out;
  }
  for (int64_t i = 0; i < elements_; ++i) out[static_cast<size_t>(i)] = static_cast<float>(At(i));
  return out;
}

bool Tensor::SameBits(const Tensor& other) const {
  return dtype_ == other.dtype_ && bytes_ == other.bytes_;
}

int64_t Tensor::FirstDifference(const Tensor& other) const {
  const size_t width = DTypeBytes(dtype_);
  for (int64_t i = 0; i < elements_; ++i) {
    const size_t at = static_cast<size_t>(i) * width;
    if (at + width > other.bytes_.size() ||
        std::memcmp(&bytes_[at], &other.bytes_[at], width) != 0) {
      return i;
    }
  }
  return elements_;
}

}  // namespace cannbot::ops
