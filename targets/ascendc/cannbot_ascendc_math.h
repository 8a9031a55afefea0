// cannbot_ascendc_math.h: the elementwise functions of the Ascend C high-level math library
// (Silu, Swish, Sigmoid, Tanh, Gelu, FasterGelu, Log, Log2, Log10), count forms, with and
// without the shared temporary buffer argument (Sigmoid to Log10 also in their whole-tensor
// forms); ArithProgression and Broadcast.
//
// Each is evaluated per element in float and rounded to T once, and counted as the basic
// instructions the library composes it from (an Exp or Div is a complex repeat), so the cost
// model sees a high-level call as what it costs. Gelu follows the documented tanh form
// x / (1 + exp(-sqrt(8/pi) * (x + 0.044715 x^3))), FasterGelu x / (1 + exp(-1.702 x)): an
// erf-exact reference may reject them in fp32, as it would on the device.
//
// Written from the public Ascend C documentation; not vendor code. Thread-safety: none.
#ifndef CANNBOT_ASCENDC_MATH_H
#define CANNBOT_ASCENDC_MATH_H

#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "cannbot_ascendc_vector.h"

namespace AscendC {
namespace cannbot_detail {

// `f` per element, counted as `simple` plain and `complex` complex vector instructions.
template <typename T, typename F>
inline void Composite(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint32_t count,
                      const char* api, int simple, int complex, F f) {
  Unary(dst, src, static_cast<int32_t>(count), api, complex > 0, f);  // counts one instruction
  for (int i = 1; i < simple + complex; ++i) {
    cannbot_ascendc::CountVector(static_cast<uint64_t>(count) * sizeof(T), i < complex);
  }
}

inline float SigmoidOf(float x) { return 1.0f / (1.0f + std::exp(-x)); }

}  // namespace cannbot_detail

template <typename T, bool... kOptions>
inline void Silu(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint32_t count) {
  cannbot_detail::Composite(dst, src, count, "Silu", 2, 2,
                            [](float x) { return x * cannbot_detail::SigmoidOf(x); });
}

template <typename T, bool... kOptions>
inline void Swish(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint32_t count,
                  const T& beta) {
  const float b = static_cast<float>(beta);
  cannbot_detail::Composite(dst, src, count, "Swish", 3, 2,
                            [b](float x) { return x * cannbot_detail::SigmoidOf(b * x); });
}

template <typename T, bool... kOptions>
inline void Sigmoid(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint32_t count) {
  cannbot_detail::Composite(dst, src, count, "Sigmoid", 2, 2, cannbot_detail::SigmoidOf);
}
template <typename T, bool... kOptions>
inline void Sigmoid(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                    const LocalTensor<uint8_t>&, uint32_t count) {
  Sigmoid<T>(dst, src, count);
}

template <typename T, bool... kOptions>
inline void Tanh(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint32_t count) {
  cannbot_detail::Composite(dst, src, count, "Tanh", 3, 2, [](float x) { return std::tanh(x); });
}
template <typename T, bool... kOptions>
inline void Tanh(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                 const LocalTensor<uint8_t>&, uint32_t count) {
  Tanh<T>(dst, src, count);
}

template <typename T, bool... kOptions>
inline void Gelu(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint32_t count) {
  cannbot_detail::Composite(dst, src, count, "Gelu", 5, 2, [](float x) {
    const float k = 1.5957691216057308f;  // sqrt(8 / pi)
    return x / (1.0f + std::exp(-k * (x + 0.044715f * x * x * x)));
  });
}
template <typename T, bool... kOptions>
inline void Gelu(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                 const LocalTensor<uint8_t>&, uint32_t count) {
  Gelu<T>(dst, src, count);
}

template <typename T, bool... kOptions>
inline void FasterGelu(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint32_t count) {
  cannbot_detail::Composite(dst, src, count, "FasterGelu", 2, 2,
                            [](float x) { return x / (1.0f + std::exp(-1.702f * x)); });
}
template <typename T, bool... kOptions>
inline void FasterGelu(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                       const LocalTensor<uint8_t>&, uint32_t count) {
  FasterGelu<T>(dst, src, count);
}

// Log (natural), Log2, Log10: a Ln, and a Muls for the base change.
#define CANNBOT_ASCENDC_LOG_FUNCTION(Name, scale, simple)                                     \
  template <typename T, bool... kOptions>                                                    \
  inline void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint32_t count) {    \
    cannbot_detail::Composite(dst, src, count, #Name, simple, 1,                             \
                              [](float x) { return std::log(x) * (scale); });                \
  }                                                                                          \
  template <typename T, bool... kOptions>                                                    \
  inline void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src,                     \
                   const LocalTensor<uint8_t>&, uint32_t count) {                            \
    Name<T>(dst, src, count);                                                                \
  }
CANNBOT_ASCENDC_LOG_FUNCTION(Log, 1.0f, 0)
CANNBOT_ASCENDC_LOG_FUNCTION(Log2, 1.4426950408889634f, 1)
CANNBOT_ASCENDC_LOG_FUNCTION(Log10, 0.4342944819032518f, 1)
#undef CANNBOT_ASCENDC_LOG_FUNCTION

// The whole-tensor forms the library documents beside the count forms: the count is src's size.
// (Kept defined: cannbot_ascendc_math_unary.h gives its functions the same forms.)
#define CANNBOT_ASCENDC_WHOLE_TENSOR(Name)                                                    \
  template <typename T, bool... kOptions>                                                    \
  inline void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src) {                    \
    Name<T>(dst, src, static_cast<uint32_t>(src.GetSize()));                                 \
  }                                                                                          \
  template <typename T, bool... kOptions>                                                    \
  inline void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src,                     \
                   const LocalTensor<uint8_t>& sharedTmpBuffer) {                            \
    Name<T>(dst, src, sharedTmpBuffer, static_cast<uint32_t>(src.GetSize()));                \
  }
CANNBOT_ASCENDC_WHOLE_TENSOR(Sigmoid)
CANNBOT_ASCENDC_WHOLE_TENSOR(Tanh)
CANNBOT_ASCENDC_WHOLE_TENSOR(Gelu)
CANNBOT_ASCENDC_WHOLE_TENSOR(FasterGelu)
CANNBOT_ASCENDC_WHOLE_TENSOR(Log)
CANNBOT_ASCENDC_WHOLE_TENSOR(Log2)
CANNBOT_ASCENDC_WHOLE_TENSOR(Log10)

// ArithProgression: dst[i] = firstValue + i * diffValue for i < count, built as documented:
// up to 8 elements by the scalar unit, then Adds of 8 x diffValue block by block to 64, then
// Adds of 64 x diffValue (each step adds to the previous block's values, rounded in T).
template <typename T>
inline void ArithProgression(const LocalTensor<T>& dstLocal, const T firstValue,
                             const T diffValue, const int32_t count) {
  static_assert(std::is_same<T, float>::value || std::is_same<T, half>::value ||
                    std::is_same<T, int16_t>::value || std::is_same<T, int32_t>::value,
                "ArithProgression takes half, float, int16_t or int32_t");
  constexpr const char* kApi = "ArithProgression";
  if (count <= 0) cannbot_ascendc::Violation("bad-argument", "%s with count %d", kApi, count);
  cannbot_detail::Operand(dstLocal, count, kApi, cannbot_detail::Access::kWrite);
  T* d = dstLocal.cb_data_;
  if constexpr (std::is_integral<T>::value) {  // integer Adds are exact: the sequence itself
    for (int32_t i = 0; i < count; ++i) {
      d[i] = static_cast<T>(static_cast<int64_t>(firstValue) + int64_t{diffValue} * i);
    }
    cannbot_ascendc::Count(cannbot_ascendc::kScalarOps, static_cast<uint64_t>(count < 8 ? count : 8));
    if (count > 8) {
      cannbot_ascendc::CountVector(static_cast<uint64_t>(count - 8) * sizeof(T), false);
    }
    return;
  }
  const int32_t head = count < 8 ? count : 8;
  for (int32_t i = 0; i < head; ++i) {
    d[i] = static_cast<T>(static_cast<float>(firstValue) + static_cast<float>(diffValue) * i);
  }
  cannbot_ascendc::Count(cannbot_ascendc::kScalarOps, static_cast<uint64_t>(head));
  // Each block of `step` elements up to `end` is the one before it plus step x diffValue.
  auto extend = [&](int32_t step, int32_t end) {
    const float add = static_cast<float>(static_cast<T>(static_cast<float>(diffValue) * step));
    for (int32_t start = step; start < end; start += step) {
      const int32_t n = end - start < step ? end - start : step;
      for (int32_t i = 0; i < n; ++i) {
        d[start + i] = static_cast<T>(static_cast<float>(d[start - step + i]) + add);
      }
      cannbot_ascendc::CountVector(static_cast<uint64_t>(n) * sizeof(T), false);
    }
  };
  extend(8, count < 64 ? count : 64);
  if (count > 64) extend(64, count);
}

// Broadcast (BroadCast in older releases): src of srcShape, 1 along `axis`, repeated along it
// to dstShape; dim 1 ([1] -> [k]) or 2 ([m, 1] -> [m, k] on axis 1, [1, k] -> [m, k] on
// axis 0); both tensors dense, row-major. Counted as the Brcb and copies it is built from.
template <typename T, int32_t dim, int32_t axis, bool isReuseSource = false>
inline void Broadcast(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,
                      const uint32_t dstShape[dim], const uint32_t srcShape[dim],
                      const LocalTensor<uint8_t>& sharedTmpBuffer) {
  (void)sharedTmpBuffer;
  Broadcast<T, dim, axis, isReuseSource>(dstLocal, srcLocal, dstShape, srcShape);
}
template <typename T, int32_t dim, int32_t axis, bool isReuseSource = false>
inline void Broadcast(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,
                      const uint32_t dstShape[dim], const uint32_t srcShape[dim]) {
  static_assert((dim == 1 && axis == 0) || (dim == 2 && (axis == 0 || axis == 1)),
                "Broadcast takes dim 1 (axis 0) or dim 2 (axis 0 or 1)");
  constexpr const char* kApi = "Broadcast";
  const uint32_t rows = dim == 2 ? dstShape[0] : 1;
  const uint32_t cols = dstShape[dim - 1];
  const bool shapes_fit = srcShape[axis] == 1 && (dim == 1 || srcShape[1 - axis] == dstShape[1 - axis]);
  if (!shapes_fit || rows == 0 || cols == 0) {
    cannbot_ascendc::Violation("bad-argument",
                               "%s<dim %d, axis %d> from srcShape [%u, %u] to dstShape [%u, %u] "
                               "(dim 1: the first only): the source must be 1 along the axis "
                               "and match the rest", kApi, dim, axis, srcShape[0],
                               srcShape[dim - 1], dstShape[0], dstShape[dim - 1]);
  }
  const uint64_t src_elems = dim == 1 ? 1 : (axis == 1 ? rows : cols);
  const uint64_t dst_elems = static_cast<uint64_t>(rows) * cols;
  cannbot_detail::Operand(srcLocal, static_cast<int64_t>(src_elems), kApi,
                          cannbot_detail::Access::kRead);
  cannbot_detail::Operand(dstLocal, static_cast<int64_t>(dst_elems), kApi,
                          cannbot_detail::Access::kWrite);
  std::vector<T> src(srcLocal.cb_data_, srcLocal.cb_data_ + src_elems);  // dst may overlap it
  for (uint32_t r = 0; r < rows; ++r) {
    for (uint32_t c = 0; c < cols; ++c) {
      dstLocal.cb_data_[static_cast<uint64_t>(r) * cols + c] =
          src[dim == 1 ? 0 : (axis == 1 ? r : c)];
    }
  }
  cannbot_ascendc::CountVector(src_elems * cannbot_ascendc::kBlockBytes, false);  // Brcb
  cannbot_ascendc::CountVector(dst_elems * sizeof(T), false);                      // copies
}
template <typename T, int32_t dim, int32_t axis, bool isReuseSource = false>
inline void BroadCast(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,
                      const uint32_t dstShape[dim], const uint32_t srcShape[dim],
                      const LocalTensor<uint8_t>& sharedTmpBuffer) {
  Broadcast<T, dim, axis, isReuseSource>(dstLocal, srcLocal, dstShape, srcShape, sharedTmpBuffer);
}
template <typename T, int32_t dim, int32_t axis, bool isReuseSource = false>
inline void BroadCast(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,
                      const uint32_t dstShape[dim], const uint32_t srcShape[dim]) {
  Broadcast<T, dim, axis, isReuseSource>(dstLocal, srcLocal, dstShape, srcShape);
}

}  // namespace AscendC

#endif  // CANNBOT_ASCENDC_MATH_H
