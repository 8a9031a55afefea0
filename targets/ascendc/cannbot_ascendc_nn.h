// cannbot_ascendc_nn.h: the normalisation APIs of the Ascend C high-level library: SoftMax
// (with or without its sum and max outputs, half data with float statistics too), LayerNorm
// (the [B, S, H] form with mean and variance outputs) and RmsNorm, each driven by the tiling
// struct its host tiling function fills (cannbot_tiling_types.h, cannbot_host_tiling.h).
//
// Semantics (public Ascend C documentation), each row computed in float and rounded to T once:
// - SoftMax over the last axis of [m, k] (shape from SoftMaxShapeInfo where it is set, else from
//   the tiling): max = rowmax(x), e = exp(x - max), sum = rowsum(e), dst = e / sum. Rows are
//   srcK elements apart (whole 32-byte blocks); oriSrcK, when set, is how many of them are data
//   (the padding is left as it is in dst). sum and max hold each row's value repeated across
//   one 32-byte block ([m, 32 / sizeof(element)]).
// - LayerNorm over H of [B, S, H]: mean and (population) variance per row into outputMean and
//   outputVariance ([B * S]), output = (x - mean) / sqrt(variance + epsilon) * gamma + beta.
// - RmsNorm over H: dst = x / sqrt(mean(x^2) + epsilon) * gamma.
// - Sum and Mean over the last axis of [outter, inner] (inner: n padded to 32 bytes): one value
//   per row, the first n elements summed (in float) or averaged, into dst[0 .. outter).
// - AdjustSoftMaxRes: the rows whose max has the given bits set to a given value.
// The temporary-buffer argument is accepted and must be a valid tensor; nothing is kept in it.
// Each call is counted as the basic instructions the library builds it from (the cost model
// sees a high-level call as what it costs on the vector unit).
//
// Written from the public Ascend C documentation; not vendor code. Thread-safety: none.
#ifndef CANNBOT_ASCENDC_NN_H
#define CANNBOT_ASCENDC_NN_H

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "cannbot_ascendc_vector.h"
#include "cannbot_tiling_types.h"

namespace AscendC {

struct SoftMaxShapeInfo {
  uint32_t srcM = 0;
  uint32_t srcK = 0;
  uint32_t oriSrcM = 0;
  uint32_t oriSrcK = 0;
};

namespace cannbot_detail {

// Rows of a high-level call: `rows` rows `stride` elements apart, the first `valid` of each data.
struct Rows {
  uint32_t rows = 0;
  uint32_t stride = 0;
  uint32_t valid = 0;
};

template <typename T>
inline Rows CheckRows(uint32_t rows, uint32_t stride, uint32_t valid, const char* api) {
  if (rows == 0 || stride == 0) {
    cannbot_ascendc::Violation("bad-argument",
                               "%s on a [%u, %u] tile: its shape comes from the tiling (set by the "
                               "host tiling function) or the shape-info argument",
                               api, rows, stride);
  }
  if (stride * sizeof(T) % cannbot_ascendc::kBlockBytes != 0) {
    cannbot_ascendc::Violation("bad-argument",
                               "%s rows of %u elements are not whole 32-byte blocks; lay rows out "
                               "at a multiple of %u elements and pass the real length as the "
                               "original one",
                               api, stride,
                               static_cast<unsigned>(cannbot_ascendc::kBlockBytes / sizeof(T)));
  }
  Rows r;
  r.rows = rows;
  r.stride = stride;
  r.valid = valid != 0 && valid <= stride ? valid : stride;
  return r;
}

// The passes a library call is built from, each over `elements` floats.
inline void CountPasses(uint64_t elements, int plain, int complex) {
  for (int i = 0; i < plain + complex; ++i) {
    cannbot_ascendc::CountVector(elements * sizeof(float), i < complex);
  }
}

template <typename T, typename U>
inline void SoftMaxRows(const LocalTensor<T>& dst, const LocalTensor<U>* sum,
                        const LocalTensor<U>* max, const LocalTensor<T>& src, Rows r,
                        const char* api) {
  static_assert(kVectorFloat<T> && kVectorFloat<U>, "SoftMax takes half or float");
  const uint64_t n = static_cast<uint64_t>(r.rows) * r.stride;
  constexpr uint32_t kPerBlock = cannbot_ascendc::kBlockBytes / sizeof(U);
  Operand(src, static_cast<int64_t>(n), api, Access::kRead);
  Operand(dst, static_cast<int64_t>(n), api, Access::kWrite);
  if (sum != nullptr) Operand(*sum, static_cast<int64_t>(r.rows) * kPerBlock, api, Access::kWrite);
  if (max != nullptr) Operand(*max, static_cast<int64_t>(r.rows) * kPerBlock, api, Access::kWrite);
  std::vector<float> e(r.valid);
  for (uint32_t row = 0; row < r.rows; ++row) {
    const T* x = src.cb_data_ + static_cast<uint64_t>(row) * r.stride;
    float m = -INFINITY;
    for (uint32_t j = 0; j < r.valid; ++j) m = std::fmax(m, static_cast<float>(x[j]));
    float s = 0.0f;
    for (uint32_t j = 0; j < r.valid; ++j) s += (e[j] = std::exp(static_cast<float>(x[j]) - m));
    T* y = dst.cb_data_ + static_cast<uint64_t>(row) * r.stride;
    for (uint32_t j = 0; j < r.valid; ++j) y[j] = static_cast<T>(e[j] / s);
    for (uint32_t k = 0; k < kPerBlock; ++k) {
      if (sum != nullptr) sum->cb_data_[row * kPerBlock + k] = static_cast<U>(s);
      if (max != nullptr) max->cb_data_[row * kPerBlock + k] = static_cast<U>(m);
    }
  }
  CountPasses(n, 3, 2);  // ReduceMax, Sub, Exp, ReduceSum, Div
}

// LayerNorm (mean and variance outputs) or RmsNorm (neither, beta null) over rows.
template <typename T>
inline void NormRows(const LocalTensor<T>& dst, const LocalTensor<T>* mean,
                     const LocalTensor<T>* variance, const LocalTensor<T>& src,
                     const LocalTensor<T>& gamma, const LocalTensor<T>* beta, float epsilon,
                     Rows r, bool rms, const char* api) {
  static_assert(kVectorFloat<T>, "the normalisation APIs take half or float");
  const uint64_t n = static_cast<uint64_t>(r.rows) * r.stride;
  Operand(src, static_cast<int64_t>(n), api, Access::kRead);
  Operand(gamma, r.stride, api, Access::kRead);
  if (beta != nullptr) Operand(*beta, r.stride, api, Access::kRead);
  Operand(dst, static_cast<int64_t>(n), api, Access::kWrite);
  if (mean != nullptr) Operand(*mean, r.rows, api, Access::kWrite, /*element_aligned=*/true);
  if (variance != nullptr) {
    Operand(*variance, r.rows, api, Access::kWrite, /*element_aligned=*/true);
  }
  for (uint32_t row = 0; row < r.rows; ++row) {
    const T* x = src.cb_data_ + static_cast<uint64_t>(row) * r.stride;
    float mu = 0.0f, squares = 0.0f;
    for (uint32_t j = 0; j < r.valid; ++j) mu += static_cast<float>(x[j]);
    mu = rms ? 0.0f : mu / static_cast<float>(r.valid);
    for (uint32_t j = 0; j < r.valid; ++j) {
      const float d = static_cast<float>(x[j]) - mu;
      squares += d * d;
    }
    const float var = squares / static_cast<float>(r.valid);
    const float scale = 1.0f / std::sqrt(var + epsilon);
    T* y = dst.cb_data_ + static_cast<uint64_t>(row) * r.stride;
    for (uint32_t j = 0; j < r.valid; ++j) {
      const float shift = beta != nullptr ? static_cast<float>(beta->cb_data_[j]) : 0.0f;
      y[j] = static_cast<T>((static_cast<float>(x[j]) - mu) * scale *
                                static_cast<float>(gamma.cb_data_[j]) + shift);
    }
    if (mean != nullptr) mean->cb_data_[row] = static_cast<T>(mu);
    if (variance != nullptr) variance->cb_data_[row] = static_cast<T>(var);
  }
  if (rms) {
    CountPasses(n, 6, 1);  // Mul, ReduceSum, Muls, Adds, Rsqrt, Mul, Mul
  } else {
    CountPasses(n, 11, 2);  // Muls, ReduceSum, Sub, Mul, Muls, ReduceSum, Adds, Ln, Muls, Exp, ...
  }
}

}  // namespace cannbot_detail

// ---- SoftMax ----
template <typename T, bool... kOptions>
inline void SoftMax(const LocalTensor<T>& dstTensor, const LocalTensor<T>& sumTensor,
                    const LocalTensor<T>& maxTensor, const LocalTensor<T>& srcTensor,
                    const cannbot_tiling::SoftMaxTiling& tiling, const SoftMaxShapeInfo& shape = {}) {
  const auto r = cannbot_detail::CheckRows<T>(shape.srcM ? shape.srcM : tiling.srcM,
                                              shape.srcK ? shape.srcK : tiling.srcK,
                                              shape.oriSrcK, "SoftMax");
  cannbot_detail::SoftMaxRows(dstTensor, &sumTensor, &maxTensor, srcTensor, r, "SoftMax");
}
template <typename T = half, bool... kOptions>
inline void SoftMax(const LocalTensor<half>& dstTensor, const LocalTensor<float>& sumTensor,
                    const LocalTensor<float>& maxTensor, const LocalTensor<half>& srcTensor,
                    const cannbot_tiling::SoftMaxTiling& tiling, const SoftMaxShapeInfo& shape = {}) {
  const auto r = cannbot_detail::CheckRows<half>(shape.srcM ? shape.srcM : tiling.srcM,
                                                 shape.srcK ? shape.srcK : tiling.srcK,
                                                 shape.oriSrcK, "SoftMax");
  cannbot_detail::SoftMaxRows(dstTensor, &sumTensor, &maxTensor, srcTensor, r, "SoftMax");
}
template <typename T, bool... kOptions, typename U>
inline void SoftMax(const LocalTensor<T>& dstTensor, const LocalTensor<U>& sumTensor,
                    const LocalTensor<U>& maxTensor, const LocalTensor<T>& srcTensor,
                    const LocalTensor<uint8_t>& sharedTmpBuffer, const cannbot_tiling::SoftMaxTiling& tiling,
                    const SoftMaxShapeInfo& shape = {}) {
  cannbot_detail::Operand(sharedTmpBuffer, 0, "SoftMax", cannbot_detail::Access::kReadWrite);
  const auto r = cannbot_detail::CheckRows<T>(shape.srcM ? shape.srcM : tiling.srcM,
                                              shape.srcK ? shape.srcK : tiling.srcK,
                                              shape.oriSrcK, "SoftMax");
  cannbot_detail::SoftMaxRows(dstTensor, &sumTensor, &maxTensor, srcTensor, r, "SoftMax");
}
// Without the statistics outputs.
template <typename T, bool... kOptions>
inline void SoftMax(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
                    const cannbot_tiling::SoftMaxTiling& tiling, const SoftMaxShapeInfo& shape = {}) {
  const auto r = cannbot_detail::CheckRows<T>(shape.srcM ? shape.srcM : tiling.srcM,
                                              shape.srcK ? shape.srcK : tiling.srcK,
                                              shape.oriSrcK, "SoftMax");
  cannbot_detail::SoftMaxRows<T, T>(dstTensor, nullptr, nullptr, srcTensor, r, "SoftMax");
}

// AdjustSoftMaxRes: every row of softMaxRes whose max equals the float (or half) whose bits are
// `from` becomes `to`; true when some row did. The max of row i is maxTensor's first element
// of block i (stepSizeMode 0) or its element i (any other mode). ND only.
template <typename T1, typename T2, bool isDataFormatNZ = false, uint8_t stepSizeMode = 0>
inline bool AdjustSoftMaxRes(const LocalTensor<T1>& softMaxRes, const LocalTensor<T2>& maxTensor,
                             const uint32_t from, const T1 to, const SoftMaxShapeInfo& shape) {
  static_assert(!isDataFormatNZ, "cannbot ascendc emulation: AdjustSoftMaxRes on NZ data is not "
                                 "emulated");
  static_assert(cannbot_detail::kVectorFloat<T1> && cannbot_detail::kVectorFloat<T2>,
                "AdjustSoftMaxRes takes half or float");
  const auto r = cannbot_detail::CheckRows<T1>(shape.srcM, shape.srcK, shape.oriSrcK,
                                               "AdjustSoftMaxRes");
  const uint32_t step = stepSizeMode == 0 ? cannbot_ascendc::kBlockBytes / sizeof(T2) : 1;
  const uint64_t n = static_cast<uint64_t>(r.rows) * r.stride;
  cannbot_detail::Operand(softMaxRes, static_cast<int64_t>(n), "AdjustSoftMaxRes",
                          cannbot_detail::Access::kReadWrite);
  cannbot_detail::Operand(maxTensor, static_cast<int64_t>(r.rows - 1) * step + 1,
                          "AdjustSoftMaxRes", cannbot_detail::Access::kRead,
                          /*element_aligned=*/step == 1);
  // `from` holds the bits of a T2 value: a float's 32, or a half's low 16.
  bool any = false;
  for (uint32_t row = 0; row < r.rows; ++row) {
    const T2 m = maxTensor.cb_data_[static_cast<uint64_t>(row) * step];
    uint32_t bits = 0;
    std::memcpy(&bits, &m, sizeof(T2));
    if (bits != (sizeof(T2) == 2 ? (from & 0xffffu) : from)) continue;
    any = true;
    T1* y = softMaxRes.cb_data_ + static_cast<uint64_t>(row) * r.stride;
    for (uint32_t j = 0; j < r.stride; ++j) y[j] = to;
  }
  cannbot_detail::CountPasses(n, 2, 0);  // a compare and a select over the result
  return any;
}

// ---- LayerNorm ([B, S, H], mean and variance outputs) ----
template <typename T, bool isReuseSource = false>
inline void LayerNorm(const LocalTensor<T>& output, const LocalTensor<T>& outputMean,
                      const LocalTensor<T>& outputVariance, const LocalTensor<T>& inputX,
                      const LocalTensor<T>& gamma, const LocalTensor<T>& beta,
                      const typename cannbot_detail::NonDeduced<T>::type epsilon,
                      const cannbot_tiling::LayerNormTiling& tiling) {
  const auto r = cannbot_detail::CheckRows<T>(tiling.bLength * tiling.sLength, tiling.hLength,
                                              tiling.originalHLength, "LayerNorm");
  cannbot_detail::NormRows(output, &outputMean, &outputVariance, inputX, gamma, &beta,
                           static_cast<float>(static_cast<T>(epsilon)), r, false, "LayerNorm");
}
template <typename T, bool isReuseSource = false>
inline void LayerNorm(const LocalTensor<T>& output, const LocalTensor<T>& outputMean,
                      const LocalTensor<T>& outputVariance, const LocalTensor<T>& inputX,
                      const LocalTensor<T>& gamma, const LocalTensor<T>& beta,
                      const LocalTensor<uint8_t>& sharedTmpBuffer,
                      const typename cannbot_detail::NonDeduced<T>::type epsilon,
                      const cannbot_tiling::LayerNormTiling& tiling) {
  cannbot_detail::Operand(sharedTmpBuffer, 0, "LayerNorm", cannbot_detail::Access::kReadWrite);
  LayerNorm<T>(output, outputMean, outputVariance, inputX, gamma, beta, epsilon, tiling);
}

// ---- RmsNorm ----
template <typename T, bool isBasicBlock = false>
inline void RmsNorm(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,
                    const LocalTensor<T>& gammaLocal,
                    const typename cannbot_detail::NonDeduced<T>::type epsilon,
                    const cannbot_tiling::RmsNormTiling& tiling) {
  const auto r = cannbot_detail::CheckRows<T>(tiling.bLength * tiling.sLength, tiling.hLength,
                                              tiling.originalHLength, "RmsNorm");
  cannbot_detail::NormRows<T>(dstLocal, nullptr, nullptr, srcLocal, gammaLocal, nullptr,
                              static_cast<float>(static_cast<T>(epsilon)), r, true, "RmsNorm");
}
template <typename T, bool isBasicBlock = false>
inline void RmsNorm(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,
                    const LocalTensor<T>& gammaLocal, const LocalTensor<uint8_t>& sharedTmpBuffer,
                    const typename cannbot_detail::NonDeduced<T>::type epsilon,
                    const cannbot_tiling::RmsNormTiling& tiling) {
  cannbot_detail::Operand(sharedTmpBuffer, 0, "RmsNorm", cannbot_detail::Access::kReadWrite);
  RmsNorm<T>(dstLocal, srcLocal, gammaLocal, epsilon, tiling);
}

// ---- Sum / Mean over the last axis ----
struct SumParams {
  uint32_t outter = 1;
  uint32_t inner = 0;
  uint32_t n = 0;
};
struct MeanParams {
  uint32_t outter = 1;
  uint32_t inner = 0;
  uint32_t n = 0;
};

namespace cannbot_detail {
template <typename T, typename Params>
inline void RowTotals(const LocalTensor<T>& dst, const LocalTensor<T>& src, const Params& p,
                      bool mean, const char* api) {
  static_assert(kVectorFloat<T>, "Sum and Mean take half or float");
  if (p.n == 0 || p.n > p.inner) {
    cannbot_ascendc::Violation("bad-argument", "%s with n = %u of inner = %u: n must be 1..inner",
                               api, p.n, p.inner);
  }
  const Rows r = CheckRows<T>(p.outter, p.inner, p.n, api);
  Operand(src, static_cast<int64_t>(r.rows) * r.stride, api, Access::kRead);
  Operand(dst, r.rows, api, Access::kWrite, /*element_aligned=*/true);
  for (uint32_t row = 0; row < r.rows; ++row) {
    const T* x = src.cb_data_ + static_cast<uint64_t>(row) * r.stride;
    float total = 0.0f;
    for (uint32_t j = 0; j < r.valid; ++j) total += static_cast<float>(x[j]);
    dst.cb_data_[row] = static_cast<T>(mean ? total / static_cast<float>(r.valid) : total);
  }
  CountPasses(static_cast<uint64_t>(r.rows) * r.stride, mean ? 3 : 2, 0);
}
}  // namespace cannbot_detail

template <typename T, int32_t... kOptions>
inline void Sum(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
                const SumParams& sumParams) {
  cannbot_detail::RowTotals(dstTensor, srcTensor, sumParams, false, "Sum");
}
template <typename T, int32_t... kOptions>
inline void Sum(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
                const LocalTensor<uint8_t>& sharedTmpBuffer, const SumParams& sumParams) {
  cannbot_detail::Operand(sharedTmpBuffer, 0, "Sum", cannbot_detail::Access::kReadWrite);
  cannbot_detail::RowTotals(dstTensor, srcTensor, sumParams, false, "Sum");
}
template <typename T, typename accType = T, bool... kOptions>
inline void Mean(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
                 const MeanParams& meanParams) {
  cannbot_detail::RowTotals(dstTensor, srcTensor, meanParams, true, "Mean");
}
template <typename T, typename accType = T, bool... kOptions>
inline void Mean(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
                 const LocalTensor<uint8_t>& sharedTmpBuffer, const MeanParams& meanParams) {
  cannbot_detail::Operand(sharedTmpBuffer, 0, "Mean", cannbot_detail::Access::kReadWrite);
  cannbot_detail::RowTotals(dstTensor, srcTensor, meanParams, true, "Mean");
}

}  // namespace AscendC

#endif  // CANNBOT_ASCENDC_NN_H
