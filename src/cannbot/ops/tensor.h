// Tensor: one tensor's values as the trusted validator holds them, in the element type the
// kernel sees (the dtype's own bytes), so staging a tensor for a kernel is a copy and a
// kernel's output is judged from exactly the bits it wrote.
//
// Values are read and written as doubles (dtype_values.h): every value of every dtype but
// int64 beyond 2^53 is exact in a double, so comparisons happen in double whatever the dtype.
//
// Ownership: a value (owns its bytes). Thread-safety: like std::vector.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "cannbot/ops/dtype.h"

namespace cannbot::ops {

class Tensor {
 public:
  Tensor() = default;
  // `elements` zero-valued elements of `dtype`.
  Tensor(DType dtype, int64_t elements);
  // fp32 values (the built-in ops' references, tests).
  static Tensor FromFloats(const std::vector<float>& values);
  // A copy of `bytes` bytes at `data`, read as `elements` elements of `dtype`.
  static Tensor FromBytes(DType dtype, int64_t elements, const void* data);

  DType dtype() const { return dtype_; }
  int64_t elements() const { return elements_; }
  size_t bytes() const { return bytes_.size(); }
  const void* data() const { return bytes_.data(); }
  void* data() { return bytes_.data(); }

  // The element's value (exact, see above) and a store rounded to the dtype (nearest even for
  // floating types; nearest and saturated for integers).
  double At(int64_t index) const;
  void Set(int64_t index, double value);

  // The elements as floats; only for kF32 tensors (aborts otherwise: a caller's bug).
  const float* f32() const;
  float* f32();
  std::vector<float> ToFloats() const;  // any dtype, each value rounded to float

  bool SameBits(const Tensor& other) const;
  // Index of the first element whose bits differ from `other` (elements() when none).
  int64_t FirstDifference(const Tensor& other) const;

 private:
  DType dtype_ = DType::kF32;
  int64_t elements_ = 0;
  std::vector<unsigned char> bytes_;
};

}  // namespace cannbot::ops
