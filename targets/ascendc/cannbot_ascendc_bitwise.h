// cannbot_ascendc_bitwise.h: the integer instructions (ShiftLeft, ShiftRight, And, Or, Not),
// BlockReduceSum/Max/Min, and the queue-free pipe synchronisation TQueSync.
//
// Semantics (public Ascend C documentation):
// - ShiftLeft/ShiftRight shift each element by a scalar; ShiftRight is arithmetic on signed
//   types and logical on unsigned ones. Count forms and mask/repeat forms (the lane model of
//   cannbot_ascendc_repeat.h). And, Or, Not: count forms, bit by bit.
// - BlockReduceSum/Max/Min reduce each 32-byte block of every repeat (its active lanes) to one
//   element: 8 results per repeat, repeat r's written from element r * dstRepStride * 8. Sums
//   add pairwise, as the other reductions do (half sums saturate at +-65504).
// - TQueSync<src, dst> names the hand-off between two pipes; its SetFlag/WaitFlag are the
//   HardEvent flags of that pair.
//
// Written from the public Ascend C documentation; not vendor code. Thread-safety: none.
#ifndef CANNBOT_ASCENDC_BITWISE_H
#define CANNBOT_ASCENDC_BITWISE_H

#include <cstdint>
#include <type_traits>

#include "cannbot_ascendc_queue.h"
#include "cannbot_ascendc_reduce.h"
#include "cannbot_ascendc_repeat.h"

namespace AscendC {
namespace cannbot_detail {

template <typename T, typename F>
inline void IntegerLanes(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LanePlan& p,
                         Stride ds, Stride ss, const char* api, F f) {
  static_assert(kVectorInteger<T>, "cannbot ascendc emulation: shifts and bitwise instructions "
                                   "take 16- or 32-bit integers");
  MapLanes(dst, ds, src, ss, p, api, false, f);
}

template <typename T, typename F>
inline void IntegerBinary(const LocalTensor<T>& dst, const LocalTensor<T>& src0,
                          const LocalTensor<T>& src1, int32_t count, const char* api, F f) {
  static_assert(kVectorInteger<T>, "cannbot ascendc emulation: bitwise instructions take 16- or "
                                   "32-bit integers");
  CheckCount(count, api);
  Operand(src0, count, api, Access::kRead);
  Operand(src1, count, api, Access::kRead);
  Operand(dst, count, api, Access::kWrite);
  for (int32_t i = 0; i < count; ++i) dst.cb_data_[i] = f(src0.cb_data_[i], src1.cb_data_[i]);
  cannbot_ascendc::CountVector(static_cast<uint64_t>(count) * sizeof(T), false);
}

}  // namespace cannbot_detail

// ---- shifts ----
namespace cannbot_detail {
// Shift counts of the element's width or more shift every bit out: 0, or the sign for an
// arithmetic right shift (the cann-ops int32 Abs takes a value's sign mask with ShiftRight by
// 32). Negative counts are refused.
inline void CheckShift(int64_t s, const char* api) {
  if (s < 0) cannbot_ascendc::Violation("bad-argument", "%s by a negative count (%lld)", api,
                                        static_cast<long long>(s));
}
template <typename T>
inline T ShiftedLeft(T v, int64_t s) {
  using U = typename std::make_unsigned<T>::type;
  if (s >= static_cast<int64_t>(sizeof(T) * 8)) return 0;
  return static_cast<T>(static_cast<U>(static_cast<U>(v) << s));
}
template <typename T>
inline T ShiftedRight(T v, int64_t s) {
  if (s >= static_cast<int64_t>(sizeof(T) * 8)) {
    if constexpr (std::is_signed<T>::value) return v < 0 ? static_cast<T>(-1) : T(0);
    return T(0);
  }
  return static_cast<T>(v >> s);
}
}  // namespace cannbot_detail

#define CANNBOT_ASCENDC_SHIFT(Name, Shifted)                                                     \
  template <typename T, bool isSetMask = true>                                                   \
  inline void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src,                         \
                   const typename cannbot_detail::NonDeduced<T>::type& scalarValue,              \
                   const int32_t& count) {                                                       \
    cannbot_detail::CheckCount(count, #Name);                                                    \
    const int64_t s = static_cast<int64_t>(scalarValue);                                         \
    cannbot_detail::CheckShift(s, #Name);                                                        \
    cannbot_detail::IntegerLanes(dst, src,                                                       \
                                 cannbot_detail::CountPlan(count, cannbot_detail::kLanes<T>),    \
                                 {}, {}, #Name,                                                  \
                                 [s](T v) { return cannbot_detail::Shifted(v, s); });            \
  }                                                                                              \
  template <typename T, bool isSetMask = true, typename MaskType>                                \
  inline void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src,                         \
                   const typename cannbot_detail::NonDeduced<T>::type& scalarValue,              \
                   MaskType mask, const uint8_t repeatTimes, const UnaryRepeatParams& rp) {      \
    const int64_t s = static_cast<int64_t>(scalarValue);                                         \
    cannbot_detail::CheckShift(s, #Name);                                                        \
    const auto plan = cannbot_detail::MaskPlan<isSetMask>(cannbot_detail::MaskArg(mask),          \
                                                          repeatTimes,                           \
                                                          cannbot_detail::kLanes<T>, #Name);     \
    cannbot_detail::IntegerLanes(dst, src, plan, {rp.dstBlkStride, rp.dstRepStride},             \
                                 {rp.srcBlkStride, rp.srcRepStride}, #Name,                      \
                                 [s](T v) { return cannbot_detail::Shifted(v, s); });            \
  }
CANNBOT_ASCENDC_SHIFT(ShiftLeft, ShiftedLeft)
CANNBOT_ASCENDC_SHIFT(ShiftRight, ShiftedRight)
#undef CANNBOT_ASCENDC_SHIFT

// ---- bitwise ----
template <typename T>
inline void And(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                const int32_t& count) {
  cannbot_detail::IntegerBinary(dst, src0, src1, count, "And",
                                [](T a, T b) { return static_cast<T>(a & b); });
}
template <typename T>
inline void Or(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
               const int32_t& count) {
  cannbot_detail::IntegerBinary(dst, src0, src1, count, "Or",
                                [](T a, T b) { return static_cast<T>(a | b); });
}
template <typename T>
inline void Not(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count) {
  cannbot_detail::CheckCount(count, "Not");
  cannbot_detail::IntegerLanes(dst, src, cannbot_detail::CountPlan(count, cannbot_detail::kLanes<T>),
                               {}, {}, "Not", [](T v) { return static_cast<T>(~v); });
}

// ---- BlockReduceSum / Max / Min ----
namespace cannbot_detail {
template <typename T, bool kSetMask, typename Combine>
inline void BlockReduce(const LocalTensor<T>& dst, const LocalTensor<T>& src, int32_t repeat,
                        const MaskArg& mask, int32_t dst_rep_stride, int32_t src_blk_stride,
                        int32_t src_rep_stride, const char* api, Combine combine) {
  RequireVectorFloat<T>(api);
  if (repeat < 0 || repeat > 255 || dst_rep_stride < 0 || src_blk_stride < 0 || src_rep_stride < 0) {
    cannbot_ascendc::Violation("bad-argument", "%s has repeatTime %d (0..255) or a negative stride",
                               api, repeat);
  }
  const LanePlan p = MaskPlan<kSetMask>(mask, static_cast<uint8_t>(repeat), kLanes<T>, api);
  const Stride ss{static_cast<uint32_t>(src_blk_stride), static_cast<uint32_t>(src_rep_stride)};
  StridedOperand(src, p, ss, api, Access::kRead);
  const int64_t reach = p.repeats == 0 ? 0 : (static_cast<int64_t>(p.repeats) - 1) * dst_rep_stride * 8 + 8;
  Operand(dst, reach, api, Access::kWrite, /*element_aligned=*/true);
  constexpr uint32_t e = cannbot_ascendc::kBlockBytes / sizeof(T);
  for (uint64_t r = 0; r < p.repeats; ++r) {
    for (uint32_t b = 0; b < 8; ++b) {
      T values[e];
      uint32_t n = 0;
      for (uint32_t k = 0; k < e; ++k) {
        const uint32_t j = b * e + k;
        if (p.On(r, j)) values[n++] = src.cb_data_[LaneIndex<T>(r, j, ss)];
      }
      dst.cb_data_[r * static_cast<uint64_t>(dst_rep_stride) * 8 + b] = combine(values, n);
    }
  }
  CountRepeats(p, sizeof(T), false);
}
template <typename T>
inline T BlockBest(const T* v, uint32_t n, bool max) {
  if (n == 0) return T(0);
  T best = v[0];
  for (uint32_t i = 1; i < n; ++i) {
    const bool better = max ? static_cast<float>(v[i]) > static_cast<float>(best)
                            : static_cast<float>(v[i]) < static_cast<float>(best);
    if (better) best = v[i];
  }
  return best;
}
}  // namespace cannbot_detail

#define CANNBOT_ASCENDC_BLOCK_REDUCE(Name, combine)                                              \
  template <typename T, bool isSetMask = true, typename MaskType>                                \
  inline void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime, \
                   MaskType mask, const int32_t dstRepStride, const int32_t srcBlkStride,        \
                   const int32_t srcRepStride) {                                                 \
    cannbot_detail::BlockReduce<T, isSetMask>(dst, src, repeatTime, cannbot_detail::MaskArg(mask), \
                                              dstRepStride, srcBlkStride, srcRepStride, #Name,   \
                                              combine);                                          \
  }
CANNBOT_ASCENDC_BLOCK_REDUCE(BlockReduceSum, [](T* v, uint32_t n) {
  return cannbot_detail::TreeSum(v, n);
})
CANNBOT_ASCENDC_BLOCK_REDUCE(BlockReduceMax, [](T* v, uint32_t n) {
  return cannbot_detail::BlockBest(v, n, true);
})
CANNBOT_ASCENDC_BLOCK_REDUCE(BlockReduceMin, [](T* v, uint32_t n) {
  return cannbot_detail::BlockBest(v, n, false);
})
#undef CANNBOT_ASCENDC_BLOCK_REDUCE

// ---- TQueSync: SetFlag/WaitFlag between two named pipes ----
using TEventID = int8_t;
namespace cannbot_detail {
constexpr HardEvent EventBetween(pipe_t src, pipe_t dst) {
  return src == PIPE_MTE2 && dst == PIPE_V      ? HardEvent::MTE2_V
         : src == PIPE_MTE2 && dst == PIPE_S    ? HardEvent::MTE2_S
         : src == PIPE_MTE2 && dst == PIPE_MTE3 ? HardEvent::MTE2_MTE3
         : src == PIPE_V && dst == PIPE_MTE2    ? HardEvent::V_MTE2
         : src == PIPE_V && dst == PIPE_MTE3    ? HardEvent::V_MTE3
         : src == PIPE_V && dst == PIPE_S       ? HardEvent::V_S
         : src == PIPE_S && dst == PIPE_V       ? HardEvent::S_V
         : src == PIPE_S && dst == PIPE_MTE2    ? HardEvent::S_MTE2
         : src == PIPE_S && dst == PIPE_MTE3    ? HardEvent::S_MTE3
         : src == PIPE_MTE3 && dst == PIPE_V    ? HardEvent::MTE3_V
         : src == PIPE_MTE3 && dst == PIPE_S    ? HardEvent::MTE3_S
         : src == PIPE_MTE3 && dst == PIPE_MTE2 ? HardEvent::MTE3_MTE2
                                                : HardEvent::MAX;
}
}  // namespace cannbot_detail

template <pipe_t src, pipe_t dst>
class TQueSync {
  static constexpr HardEvent kEvent = cannbot_detail::EventBetween(src, dst);
  static_assert(kEvent != HardEvent::MAX,
                "cannbot ascendc emulation: TQueSync between these pipes is not emulated (the "
                "vector pipes MTE2, V, S and MTE3 are)");

 public:
  void SetFlag(TEventID id) { AscendC::SetFlag<kEvent>(id); }
  void WaitFlag(TEventID id) { AscendC::WaitFlag<kEvent>(id); }
};

}  // namespace AscendC

#endif  // CANNBOT_ASCENDC_BITWISE_H
