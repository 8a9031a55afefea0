// cannbot_ascendc_reduce_by_type.h: ReduceRepeat and ReduceDataBlock, the newer names of the
// repeat reductions, whose reduction (ReduceType::SUM, MAX or MIN) is a template argument:
//   ReduceRepeat<type, T, U[, isSetMask]>(dst, src, mask, repeatTime, dstRepStride,
//                                         srcBlkStride, srcRepStride[, order])
//     is WholeReduceSum / WholeReduceMax / WholeReduceMin (one result, or value and index, per
//     repeat; `order` for MAX and MIN only);
//   ReduceDataBlock<type, T, U[, isSetMask]>(dst, src, mask, repeatTime, dstRepStride,
//                                            srcBlkStride, srcRepStride)
//     is BlockReduceSum / Max / Min (one result per 32-byte block of each repeat), with the
//     mask before the repeat count.
// Written from the public API pages of both. On Atlas A2/A3 the destination and source types
// must be the same (T == U); the bit-by-bit mask form of ReduceRepeat is not emulated.
//
// Thread-safety: as the vector instructions (one block at a time).
#ifndef CANNBOT_ASCENDC_REDUCE_BY_TYPE_H
#define CANNBOT_ASCENDC_REDUCE_BY_TYPE_H

#include <cstdint>
#include <type_traits>

#include "cannbot_ascendc_bitwise.h"
#include "cannbot_ascendc_reduce.h"

namespace AscendC {

enum class ReduceType : uint8_t { SUM, MAX, MIN };

template <ReduceType reduceType, typename T, typename U, bool isSetMask = true>
inline void ReduceRepeat(const LocalTensor<T>& dst, const LocalTensor<U>& src, const int32_t mask,
                         const int32_t repeatTime, const int32_t dstRepStride,
                         const int32_t srcBlkStride, const int32_t srcRepStride,
                         ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX) {
  static_assert(std::is_same_v<T, U>,
                "ReduceRepeat: on Atlas A2/A3 the destination and source types are the same");
  if constexpr (reduceType == ReduceType::SUM) {
    (void)order;  // SUM has no index to place
    cannbot_detail::WholeSum<T, isSetMask>(dst, src, mask, repeatTime, dstRepStride,
                                           srcBlkStride, srcRepStride, "ReduceRepeat");
  } else {
    constexpr bool kMax = reduceType == ReduceType::MAX;
    cannbot_detail::WholeBest(
        dst, src, cannbot_detail::ResolveWholeLanes<T, isSetMask>(mask, repeatTime, "ReduceRepeat"),
        dstRepStride, srcBlkStride, srcRepStride, order, "ReduceRepeat",
        [](float a, float b) { return kMax ? a > b : a < b; });
  }
}
template <ReduceType reduceType, typename T, typename U, bool isSetMask = true>
void ReduceRepeat(const LocalTensor<T>& dst, const LocalTensor<U>& src, const uint64_t mask[],
                  const int32_t repeatTime, const int32_t dstRepStride,
                  const int32_t srcBlkStride, const int32_t srcRepStride,
                  ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX) = delete;

template <ReduceType reduceType, typename T, typename U, bool isSetMask = true,
          typename MaskType>
inline void ReduceDataBlock(const LocalTensor<T>& dst, const LocalTensor<U>& src, MaskType mask,
                            const int32_t repeatTime, const int32_t dstRepStride,
                            const int32_t srcBlkStride, const int32_t srcRepStride) {
  static_assert(std::is_same_v<T, U>,
                "ReduceDataBlock: on Atlas A2/A3 the destination and source types are the same");
  cannbot_detail::BlockReduce<T, isSetMask>(
      dst, src, repeatTime, cannbot_detail::MaskArg(mask), dstRepStride, srcBlkStride,
      srcRepStride, "ReduceDataBlock", [](T* v, uint32_t n) {
        if constexpr (reduceType == ReduceType::SUM) {
          return cannbot_detail::TreeSum(v, n);
        } else {
          return cannbot_detail::BlockBest(v, n, reduceType == ReduceType::MAX);
        }
      });
}

}  // namespace AscendC

#endif  // CANNBOT_ASCENDC_REDUCE_BY_TYPE_H
