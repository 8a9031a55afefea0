// cannbot_host_tiling.h: the host side of the Ascend C high-level APIs an operator package's
// tiling function calls (`tiling/tiling_api.h`): the temporary-buffer size queries and the
// tiling functions of SoftMax, LayerNorm and RmsNorm, filling the structs of
// cannbot_tiling_types.h, named here as a package's tiling header names them: SoftMaxTiling
// at global scope and optiling::SoftMaxTiling (what TILING_DATA_FIELD_DEF_STRUCT uses inside
// `namespace optiling`), and likewise for the others.
//
// The shapes follow the documentation: SoftMax takes [m0, ..., n] as [m, n] (m the product of
// the leading dimensions); LayerNorm and RmsNorm take [B, S, H] (a 2-D shape is [1, S, H]).
// The temporary sizes are cannbot's: the emulation computes in float and needs no scratch, so
// the minimum is one float row and the maximum a float copy of the whole input.
//
// Written from the public Ascend C documentation; not vendor code. Thread-safety: pure
// functions.
#ifndef CANNBOT_HOST_TILING_H
#define CANNBOT_HOST_TILING_H

#include <cstdint>

#include "cannbot_host_api.h"
#include "cannbot_tiling_types.h"

using SoftMaxTiling = cannbot_tiling::SoftMaxTiling;
using LayerNormTiling = cannbot_tiling::LayerNormTiling;
using RmsNormTiling = cannbot_tiling::RmsNormTiling;
namespace optiling {
using SoftMaxTiling = cannbot_tiling::SoftMaxTiling;
using LayerNormTiling = cannbot_tiling::LayerNormTiling;
using RmsNormTiling = cannbot_tiling::RmsNormTiling;
}  // namespace optiling

namespace AscendC {
namespace cannbot_host_detail {

// [m, n]: n is the last dimension, m the product of the others.
inline void RowsAndColumns(const ge::Shape& shape, uint32_t* m, uint32_t* n) {
  const size_t dims = shape.GetDimNum();
  *n = dims == 0 ? 0 : static_cast<uint32_t>(shape.GetDim(dims - 1));
  uint64_t rows = 1;
  for (size_t i = 0; i + 1 < dims; ++i) rows *= static_cast<uint64_t>(shape.GetDim(i));
  *m = dims == 0 ? 0 : static_cast<uint32_t>(rows);
}

// [B, S, H]: H the last dimension, S the one before, B the product of the rest.
inline void Bsh(const ge::Shape& shape, uint32_t* b, uint32_t* s, uint32_t* h) {
  const size_t dims = shape.GetDimNum();
  *h = dims >= 1 ? static_cast<uint32_t>(shape.GetDim(dims - 1)) : 0;
  *s = dims >= 2 ? static_cast<uint32_t>(shape.GetDim(dims - 2)) : 1;
  uint64_t rest = 1;
  for (size_t i = 0; i + 2 < dims; ++i) rest *= static_cast<uint64_t>(shape.GetDim(i));
  *b = static_cast<uint32_t>(rest);
}

}  // namespace cannbot_host_detail

inline uint32_t GetSoftMaxMaxTmpSize(const ge::Shape& srcShape, const uint32_t, const bool) {
  uint32_t m = 0, n = 0;
  cannbot_host_detail::RowsAndColumns(srcShape, &m, &n);
  return m * n * 4u + m * 32u;
}
inline uint32_t GetSoftMaxMinTmpSize(const ge::Shape& srcShape, const uint32_t, const bool) {
  uint32_t m = 0, n = 0;
  cannbot_host_detail::RowsAndColumns(srcShape, &m, &n);
  return n * 4u + 32u;
}
inline void SoftMaxTilingFunc(const ge::Shape& srcShape, const uint32_t dataTypeSize,
                              const uint32_t, optiling::SoftMaxTiling& tiling) {
  uint32_t m = 0, n = 0;
  cannbot_host_detail::RowsAndColumns(srcShape, &m, &n);
  tiling = cannbot_tiling::SoftMaxTiling{};
  tiling.srcM = m;
  tiling.srcK = n;
  tiling.srcSize = m * n;
  tiling.outMaxM = m;
  tiling.outMaxK = dataTypeSize == 0 ? 0 : 32u / dataTypeSize;
  tiling.outMaxSize = m * tiling.outMaxK;
  tiling.splitM = m;
  tiling.splitK = n;
  tiling.splitSize = m * n;
  tiling.reduceM = m;
  tiling.reduceK = tiling.outMaxK;
  tiling.reduceSize = tiling.outMaxSize;
  tiling.rangeM = 1;
}

inline void GetLayerNormMaxMinTmpSize(const ge::Shape& srcShape, const uint32_t, const bool,
                                      uint32_t& maxValue, uint32_t& minValue) {
  uint32_t b = 0, s = 0, h = 0;
  cannbot_host_detail::Bsh(srcShape, &b, &s, &h);
  maxValue = b * s * h * 4u + b * s * 8u;
  minValue = h * 4u + 64u;
}
inline void GetLayerNormNDTilingInfo(const ge::Shape& srcShape, const uint32_t stackBufferSize,
                                     const uint32_t, const bool,
                                     optiling::LayerNormTiling& tiling) {
  uint32_t b = 0, s = 0, h = 0;
  cannbot_host_detail::Bsh(srcShape, &b, &s, &h);
  tiling = cannbot_tiling::LayerNormTiling{};
  tiling.bLength = b;
  tiling.sLength = s;
  tiling.hLength = h;
  tiling.originalHLength = h;
  tiling.inputXSize = b * s * h;
  tiling.meanVarSize = b * s;
  tiling.numberOfTmpBuf = 3;
  tiling.tmpBufSize = stackBufferSize;
  tiling.loopRound = 1;
  tiling.bshCurLength = b * s * h;
  tiling.bsCurLength = b * s;
  tiling.lastDimValueBack = h == 0 ? 0.0f : 1.0f / static_cast<float>(h);
}

inline bool GetRmsNormMaxMinTmpSize(const ge::Shape& srcShape, const uint32_t,
                                    uint32_t& maxValue, uint32_t& minValue,
                                    const bool = false) {
  uint32_t b = 0, s = 0, h = 0;
  cannbot_host_detail::Bsh(srcShape, &b, &s, &h);
  maxValue = b * s * h * 4u + b * s * 4u;
  minValue = h * 4u + 32u;
  return h != 0;
}
inline bool GetRmsNormTilingInfo(const ge::Shape& srcShape, const ge::Shape& originSrcShape,
                                 const uint32_t, const uint32_t, optiling::RmsNormTiling& tiling,
                                 const bool = false) {
  uint32_t b = 0, s = 0, h = 0, ob = 0, os = 0, oh = 0;
  cannbot_host_detail::Bsh(srcShape, &b, &s, &h);
  cannbot_host_detail::Bsh(originSrcShape, &ob, &os, &oh);
  if (h == 0 || oh > h) return false;
  tiling = cannbot_tiling::RmsNormTiling{};
  tiling.bLength = b;
  tiling.sLength = s;
  tiling.hLength = h;
  tiling.originalHLength = oh;
  tiling.reciprocalOfHLength = oh == 0 ? 0.0f : 1.0f / static_cast<float>(oh);
  tiling.mainBshLength = b * s * h;
  tiling.mainBsLength = b * s;
  tiling.mainBsLengthAlign = b * s;
  tiling.loopRound = 1;
  return true;
}

// The elementwise math functions' temporary sizes (shape, element size, reuse the source):
// cannbot's emulation needs none, so the minimum is one repeat and the maximum two float
// copies of the input.
namespace cannbot_detail {
inline void ElementwiseTmpSize(const ge::Shape& srcShape, uint32_t& maxValue,
                               uint32_t& minValue) {
  minValue = 256u;
  maxValue = static_cast<uint32_t>(srcShape.GetShapeSize()) * 8u + 256u;
}
}  // namespace cannbot_detail
#define CANNBOT_HOST_TMP_SIZE(Name)                                                            \
  inline void Get##Name##MaxMinTmpSize(const ge::Shape& srcShape, const uint32_t, const bool, \
                                       uint32_t& maxValue, uint32_t& minValue) {              \
    cannbot_detail::ElementwiseTmpSize(srcShape, maxValue, minValue);                              \
  }
CANNBOT_HOST_TMP_SIZE(Sigmoid)
CANNBOT_HOST_TMP_SIZE(Silu)
CANNBOT_HOST_TMP_SIZE(Swish)
CANNBOT_HOST_TMP_SIZE(Tanh)
CANNBOT_HOST_TMP_SIZE(Gelu)
CANNBOT_HOST_TMP_SIZE(FasterGelu)
CANNBOT_HOST_TMP_SIZE(Log)
CANNBOT_HOST_TMP_SIZE(Ceil)
CANNBOT_HOST_TMP_SIZE(Floor)
CANNBOT_HOST_TMP_SIZE(Round)
CANNBOT_HOST_TMP_SIZE(Trunc)
CANNBOT_HOST_TMP_SIZE(Frac)
CANNBOT_HOST_TMP_SIZE(Sign)
CANNBOT_HOST_TMP_SIZE(Sin)
CANNBOT_HOST_TMP_SIZE(Cos)
CANNBOT_HOST_TMP_SIZE(Tan)
CANNBOT_HOST_TMP_SIZE(Asin)
CANNBOT_HOST_TMP_SIZE(Acos)
CANNBOT_HOST_TMP_SIZE(Atan)
CANNBOT_HOST_TMP_SIZE(Sinh)
CANNBOT_HOST_TMP_SIZE(Cosh)
CANNBOT_HOST_TMP_SIZE(Asinh)
CANNBOT_HOST_TMP_SIZE(Acosh)
CANNBOT_HOST_TMP_SIZE(Atanh)
CANNBOT_HOST_TMP_SIZE(Erf)
CANNBOT_HOST_TMP_SIZE(Erfc)
CANNBOT_HOST_TMP_SIZE(Xor)
CANNBOT_HOST_TMP_SIZE(Clamp)
#undef CANNBOT_HOST_TMP_SIZE
// The newer pages' form, which takes the platform first (Rint, Fma).
#define CANNBOT_HOST_TMP_SIZE_ON(Name)                                                         \
  inline void Get##Name##MaxMinTmpSize(const platform_ascendc::PlatformAscendC&,                \
                                       const ge::Shape& srcShape, const uint32_t, const bool,   \
                                       uint32_t& maxValue, uint32_t& minValue) {                \
    cannbot_detail::ElementwiseTmpSize(srcShape, maxValue, minValue);                              \
  }
CANNBOT_HOST_TMP_SIZE_ON(Rint)
CANNBOT_HOST_TMP_SIZE_ON(Fma)
#undef CANNBOT_HOST_TMP_SIZE_ON

// TensorShape: the high-level APIs' host shape, documented as an alias of ge::Shape.
using TensorShape = ge::Shape;

// Gelu's documented forms take no reuse flag; Silu's and Swish's are also spelled
// Get<Name>TmpSize. The sizes are the ones above.
inline void GetGeluMaxMinTmpSize(const TensorShape& srcShape, const uint32_t typeSize,
                                 uint32_t& maxValue, uint32_t& minValue) {
  GetGeluMaxMinTmpSize(srcShape, typeSize, false, maxValue, minValue);
}
inline uint32_t GetGeluMaxTmpSize(const TensorShape& srcShape, const uint32_t typeSize) {
  uint32_t max_value = 0, min_value = 0;
  GetGeluMaxMinTmpSize(srcShape, typeSize, max_value, min_value);
  return max_value;
}
inline uint32_t GetGeluMinTmpSize(const TensorShape& srcShape, const uint32_t typeSize) {
  uint32_t max_value = 0, min_value = 0;
  GetGeluMaxMinTmpSize(srcShape, typeSize, max_value, min_value);
  return min_value;
}
inline void GetSiluTmpSize(const TensorShape& srcShape, const uint32_t typeSize,
                           const bool isReuseSource, uint32_t& maxValue, uint32_t& minValue) {
  GetSiluMaxMinTmpSize(srcShape, typeSize, isReuseSource, maxValue, minValue);
}
inline void GetSwishTmpSize(const TensorShape& srcShape, const uint32_t typeSize,
                            const bool isReuseSource, uint32_t& maxValue, uint32_t& minValue) {
  GetSwishMaxMinTmpSize(srcShape, typeSize, isReuseSource, maxValue, minValue);
}

// Sum and Mean over rows of n elements: no tiling struct, only the temporary sizes. Sum's
// page takes (n, typeSize, isReuseSource, ...); the form with a second type size stays for
// code written against it.
inline void GetSumMaxMinTmpSize(const uint32_t n, const uint32_t, const bool, uint32_t& maxValue,
                                uint32_t& minValue) {
  minValue = 32u;
  maxValue = n * 4u + 32u;
}
inline void GetSumMaxMinTmpSize(const uint32_t n, const uint32_t typeSize, const uint32_t,
                                const bool isReuseSource, uint32_t& maxValue, uint32_t& minValue) {
  GetSumMaxMinTmpSize(n, typeSize, isReuseSource, maxValue, minValue);
}
inline void GetMeanMaxMinTmpSize(const uint32_t n, const uint32_t, const uint32_t, const bool,
                                 uint32_t& maxValue, uint32_t& minValue) {
  minValue = 32u;
  maxValue = n * 4u + 32u;
}

}  // namespace AscendC

#endif  // CANNBOT_HOST_TILING_H
