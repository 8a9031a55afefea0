// cannbot_ascendc_reduce.h: the reductions: ReduceSum/ReduceMax/ReduceMin (count forms, with a
// work tensor), WholeReduceSum/Max/Min (one result per repeat, mask-continuous form; with
// isSetMask = false the mask register's lanes, or its element count in counter mode) and
// RepeatReduceSum (WholeReduceSum under its older name and argument order).
//
// Semantics follow the Ascend C documentation for Atlas A2: reductions add pairwise (a binary
// tree) inside each 256-byte repeat; the count forms then add the repeat results in order, and
// half partial sums saturate at +-65504. Destinations need element alignment only.
//
// Written from the public Ascend C documentation; not vendor code. Thread-safety: none.
#ifndef CANNBOT_ASCENDC_REDUCE_H
#define CANNBOT_ASCENDC_REDUCE_H

#include <cstdint>
#include <cstring>

#include "cannbot_ascendc_vector.h"

namespace AscendC {
namespace cannbot_detail {

// a + b in T; half sums that overflow saturate to +-65504, as the reductions document.
template <typename T>
inline T ReduceAdd(T a, T b) {
  const float s = static_cast<float>(a) + static_cast<float>(b);
  T r = static_cast<T>(s);
  if (std::is_same<T, half>::value && std::isinf(static_cast<float>(r)) &&
      std::isfinite(static_cast<float>(a)) && std::isfinite(static_cast<float>(b))) {
    r = static_cast<T>(s > 0 ? 65504.0f : -65504.0f);
  }
  return r;
}

// Pairwise sum of v[0..n): adjacent pairs, level by level (the hardware's binary tree).
template <typename T>
inline T TreeSum(T* v, uint32_t n) {
  if (n == 0) return T(0);
  while (n > 1) {
    const uint32_t half_n = n / 2;
    for (uint32_t i = 0; i < half_n; ++i) v[i] = ReduceAdd(v[2 * i], v[2 * i + 1]);
    if (n % 2 == 1) v[half_n] = v[n - 1];
    n = half_n + n % 2;
  }
  return v[0];
}

}  // namespace cannbot_detail

// ---- reductions over the first `count` elements: the result lands in dst[0] ----
namespace cannbot_detail {
template <typename T>
inline void ReduceOperands(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                           const LocalTensor<T>& work, int32_t count, uint32_t dst_elems,
                           const char* api) {
  RequireVectorFloat<T>(api);
  CheckCount(count, api);
  if (count == 0) cannbot_ascendc::Violation("bad-argument", "%s with count 0", api);
  Operand(src, count, api, Access::kRead);
  Operand(work, 0, api, Access::kReadWrite);
  Operand(dst, dst_elems, api, Access::kWrite, /*element_aligned=*/true);
  const uint64_t epr = cannbot_ascendc::kRepeatBytes / sizeof(T);
  const uint64_t first = static_cast<uint64_t>(count) < epr ? 1 : (count + epr - 1) / epr;
  // First pass over the data, second pass over the per-repeat results.
  cannbot_ascendc::CountVector(static_cast<uint64_t>(count) * sizeof(T), false);
  cannbot_ascendc::CountVector(first * sizeof(T), false);
}

template <typename T, typename Better>
inline void ReduceBest(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                       const LocalTensor<T>& work, int32_t count, bool cal_index, const char* api,
                       Better better) {
  ReduceOperands(dst, src, work, count, cal_index ? 2 : 1, api);
  int32_t best = 0;
  for (int32_t i = 1; i < count; ++i) {
    if (better(static_cast<float>(src.cb_data_[i]), static_cast<float>(src.cb_data_[best])))
      best = i;
  }
  const T value = src.cb_data_[best];
  dst.cb_data_[0] = value;
  if (cal_index) {
    // The index is stored as an integer bit pattern in the second element.
    if constexpr (sizeof(T) == 4) {
      const uint32_t bits = static_cast<uint32_t>(best);
      std::memcpy(&dst.cb_data_[1], &bits, sizeof(bits));
    } else {
      const uint16_t bits = static_cast<uint16_t>(best);
      std::memcpy(&dst.cb_data_[1], &bits, sizeof(bits));
    }
  }
}
}  // namespace cannbot_detail

template <typename T>
inline void ReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                      const LocalTensor<T>& sharedTmpBuffer, const int32_t count) {
  cannbot_detail::ReduceOperands(dst, src, sharedTmpBuffer, count, 1, "ReduceSum");
  const uint32_t epr = cannbot_ascendc::kRepeatBytes / sizeof(T);
  T scratch[cannbot_ascendc::kRepeatBytes / sizeof(T)];
  T total = T(0);
  for (int32_t start = 0; start < count; start += static_cast<int32_t>(epr)) {
    const uint32_t n =
        static_cast<uint32_t>(count - start) < epr ? static_cast<uint32_t>(count - start) : epr;
    std::memcpy(scratch, src.cb_data_ + start, n * sizeof(T));
    const T partial = cannbot_detail::TreeSum(scratch, n);
    total = start == 0 ? partial : cannbot_detail::ReduceAdd(total, partial);
  }
  dst.cb_data_[0] = total;
}
template <typename T>
inline void ReduceMax(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                      const LocalTensor<T>& sharedTmpBuffer, const int32_t count,
                      bool calIndex = false) {
  cannbot_detail::ReduceBest(dst, src, sharedTmpBuffer, count, calIndex, "ReduceMax",
                             [](float a, float b) { return a > b; });
}
template <typename T>
inline void ReduceMin(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                      const LocalTensor<T>& sharedTmpBuffer, const int32_t count,
                      bool calIndex = false) {
  cannbot_detail::ReduceBest(dst, src, sharedTmpBuffer, count, calIndex, "ReduceMin",
                             [](float a, float b) { return a < b; });
}

// ---- per-repeat reductions (mask-continuous form): one result per repeat ----
namespace cannbot_detail {
// Gathers the `mask` elements of repeat r into `out`; returns how many.
template <typename T>
inline uint32_t GatherRepeat(const LocalTensor<T>& src, int32_t mask, int32_t r,
                             int32_t src_blk_stride, int32_t src_rep_stride, T* out,
                             const char* api) {
  const int64_t epb = cannbot_ascendc::kBlockBytes / sizeof(T);
  for (int32_t j = 0; j < mask; ++j) {
    const int64_t index =
        static_cast<int64_t>(r) * src_rep_stride * epb + (j / epb) * src_blk_stride * epb + j % epb;
    if (index < 0 || index >= static_cast<int64_t>(src.cb_size_)) {
      cannbot_ascendc::Violation("ub-out-of-bounds",
                                 "%s reads element %lld of a source that holds %u", api,
                                 static_cast<long long>(index), src.cb_size_);
    }
    out[j] = src.cb_data_[index];
  }
  return static_cast<uint32_t>(mask);
}

// The lanes each repeat of a WholeReduce takes: `mask` as given; with isSetMask = false, the
// mask register's (normal mode: its lanes, which must run contiguously from lane 0; counter
// mode: an element count spread over as many repeats as it fills, the last one partial,
// whatever repeatTime says), as the mask and repeat forms of cannbot_ascendc_repeat.h do.
struct WholeLanes {
  int32_t per_repeat = 0;
  int64_t count = -1;  // counter mode: elements in all
  int32_t repeats = 0;
  int32_t In(int32_t r) const {
    if (count < 0) return per_repeat;
    const int64_t left = count - static_cast<int64_t>(r) * per_repeat;
    return static_cast<int32_t>(left < per_repeat ? left : per_repeat);
  }
};
template <typename T, bool kSetMask>
inline WholeLanes ResolveWholeLanes(int32_t mask, int32_t repeat, const char* api) {
  constexpr int32_t lanes = static_cast<int32_t>(cannbot_ascendc::kRepeatBytes / sizeof(T));
  const cannbot_ascendc::VectorMask& reg = cannbot_ascendc::R().vector_mask();
  WholeLanes w;
  w.per_repeat = mask;
  w.repeats = repeat;
  if (reg.counter) {
    w.count = kSetMask ? mask : static_cast<int64_t>(reg.low);
    w.per_repeat = lanes;
    w.repeats = static_cast<int32_t>((w.count + lanes - 1) / lanes);
    return w;
  }
  if (kSetMask) return w;
  auto on = [&](int32_t j) { return ((j < 64 ? reg.low >> j : reg.high >> (j - 64)) & 1u) != 0; };
  int32_t n = 0;
  while (n < lanes && on(n)) ++n;
  for (int32_t j = n; j < lanes; ++j) {
    if (on(j)) {
      cannbot_ascendc::Violation("bad-argument",
                                 "%s with isSetMask = false reads a mask register whose lanes do "
                                 "not run contiguously from lane 0; the emulation does not have "
                                 "that form",
                                 api);
    }
  }
  w.per_repeat = n;
  return w;
}

template <typename T>
inline void WholeChecks(const LocalTensor<T>& dst, const LocalTensor<T>& src, int32_t mask,
                        int32_t repeat, int32_t dst_elems, const char* api) {
  RequireVectorFloat<T>(api);
  const int32_t epr = static_cast<int32_t>(cannbot_ascendc::kRepeatBytes / sizeof(T));
  if (mask < 1 || mask > epr || repeat < 0 || repeat > 255) {
    cannbot_ascendc::Violation("bad-argument", "%s has mask %d (1..%d) and repeatTime %d (0..255)",
                               api, mask, epr, repeat);
  }
  Operand(src, 0, api, Access::kRead);
  Operand(dst, dst_elems, api, Access::kWrite, /*element_aligned=*/true);
  cannbot_ascendc::CountVectorInstruction(
      static_cast<uint64_t>(repeat),
      static_cast<uint64_t>(repeat) * static_cast<uint64_t>(mask) * sizeof(T), false);
}

template <typename T, typename Better>
inline void WholeBest(const LocalTensor<T>& dst, const LocalTensor<T>& src, const WholeLanes& w,
                      int32_t dst_rep_stride, int32_t src_blk_stride,
                      int32_t src_rep_stride, ReduceOrder order, const char* api, Better better) {
  const bool both =
      order == ReduceOrder::ORDER_VALUE_INDEX || order == ReduceOrder::ORDER_INDEX_VALUE;
  const int32_t width = both ? 2 : 1;
  const int32_t repeat = w.repeats;
  const int32_t last = repeat > 0 ? (repeat - 1) * dst_rep_stride * width + width : 0;
  WholeChecks(dst, src, w.per_repeat, repeat, last, api);
  T values[cannbot_ascendc::kRepeatBytes / sizeof(T)];
  for (int32_t r = 0; r < repeat; ++r) {
    const uint32_t n = GatherRepeat(src, w.In(r), r, src_blk_stride, src_rep_stride, values, api);
    uint32_t best = 0;
    for (uint32_t i = 1; i < n; ++i) {
      if (better(static_cast<float>(values[i]), static_cast<float>(values[best]))) best = i;
    }
    T index_bits;
    if constexpr (sizeof(T) == 4) {
      const uint32_t b = best;
      std::memcpy(&index_bits, &b, sizeof(b));
    } else {
      const uint16_t b = static_cast<uint16_t>(best);
      std::memcpy(&index_bits, &b, sizeof(b));
    }
    T* out = dst.cb_data_ + static_cast<int64_t>(r) * dst_rep_stride * width;
    switch (order) {
      case ReduceOrder::ORDER_VALUE_INDEX:
        out[0] = values[best];
        out[1] = index_bits;
        break;
      case ReduceOrder::ORDER_INDEX_VALUE:
        out[0] = index_bits;
        out[1] = values[best];
        break;
      case ReduceOrder::ORDER_ONLY_VALUE:
        out[0] = values[best];
        break;
      case ReduceOrder::ORDER_ONLY_INDEX:
        out[0] = index_bits;
        break;
    }
  }
}
}  // namespace cannbot_detail

namespace cannbot_detail {
template <typename T, bool isSetMask>
inline void WholeSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t mask,
                     const int32_t repeatTime, const int32_t dstRepStride,
                     const int32_t srcBlkStride, const int32_t srcRepStride, const char* api) {
  const cannbot_detail::WholeLanes w =
      cannbot_detail::ResolveWholeLanes<T, isSetMask>(mask, repeatTime, api);
  const int32_t last = w.repeats > 0 ? (w.repeats - 1) * dstRepStride + 1 : 0;
  cannbot_detail::WholeChecks(dst, src, w.per_repeat, w.repeats, last, api);
  T values[cannbot_ascendc::kRepeatBytes / sizeof(T)];
  for (int32_t r = 0; r < w.repeats; ++r) {
    const uint32_t n =
        cannbot_detail::GatherRepeat(src, w.In(r), r, srcBlkStride, srcRepStride, values, api);
    dst.cb_data_[static_cast<int64_t>(r) * dstRepStride] = cannbot_detail::TreeSum(values, n);
  }
}
}  // namespace cannbot_detail

template <typename T, bool isSetMask = true>
inline void WholeReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t mask,
                           const int32_t repeatTime, const int32_t dstRepStride,
                           const int32_t srcBlkStride, const int32_t srcRepStride) {
  cannbot_detail::WholeSum<T, isSetMask>(dst, src, mask, repeatTime, dstRepStride, srcBlkStride,
                                         srcRepStride, "WholeReduceSum");
}
// WholeReduceSum's continuous-mask form under its older name; dstBlkStride has no effect.
template <typename T, bool isSetMask = true>
inline void RepeatReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                            const int32_t repeatTime, const int32_t mask,
                            const int32_t dstBlkStride, const int32_t srcBlkStride,
                            const int32_t dstRepStride, const int32_t srcRepStride) {
  (void)dstBlkStride;
  cannbot_detail::WholeSum<T, isSetMask>(dst, src, mask, repeatTime, dstRepStride, srcBlkStride,
                                         srcRepStride, "RepeatReduceSum");
}
template <typename T, bool isSetMask = true>
inline void WholeReduceMax(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t mask,
                           const int32_t repeatTime, const int32_t dstRepStride,
                           const int32_t srcBlkStride, const int32_t srcRepStride,
                           ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX) {
  cannbot_detail::WholeBest(
      dst, src, cannbot_detail::ResolveWholeLanes<T, isSetMask>(mask, repeatTime, "WholeReduceMax"),
      dstRepStride, srcBlkStride, srcRepStride, order, "WholeReduceMax",
      [](float a, float b) { return a > b; });
}
template <typename T, bool isSetMask = true>
inline void WholeReduceMin(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t mask,
                           const int32_t repeatTime, const int32_t dstRepStride,
                           const int32_t srcBlkStride, const int32_t srcRepStride,
                           ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX) {
  cannbot_detail::WholeBest(
      dst, src, cannbot_detail::ResolveWholeLanes<T, isSetMask>(mask, repeatTime, "WholeReduceMin"),
      dstRepStride, srcBlkStride, srcRepStride, order, "WholeReduceMin",
      [](float a, float b) { return a < b; });
}

}  // namespace AscendC

#endif  // CANNBOT_ASCENDC_REDUCE_H
