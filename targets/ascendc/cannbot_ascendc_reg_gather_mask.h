// cannbot_ascendc_reg_gather_mask.h: register functions that count or compact lanes, from the
// public API pages "Squeeze", "ClearSpr", "连续非对齐搬出（StoreUnAlign）" (its AR form),
// "PairReduceElem" and "Histograms" (Reg矢量计算).
//
//   Squeeze<T, store>(dst, src, mask)  the selected lanes of src, in order, from lane 0 of dst;
//       the rest zero. With GatherMaskMode::STORE_REG it also leaves their byte count for the
//       next StoreUnAlign of the AR form.
//   ClearSpr<SpecialPurposeReg::AR>()  sets the AR register (the AR form's running offset) to 0.
//   StoreUnAlign(dst, src, ureg)  (the AR form) stores the bytes the last Squeeze counted at dst
//       + AR and adds them to AR, through the UnalignRegForStore as the other forms do;
//       StoreUnAlignPost(dst, ureg) flushes. A StoreUnAlign of this form with no STORE_REG
//       Squeeze before it is `bad-argument` (the page: the two must alternate).
//   PairReduceElem<SUM>(dst, src, mask)  dst lane i = src[2i] + src[2i+1], each counted where
//       the mask selects it (0 otherwise); the upper half of dst is zero. half and float.
//   Histograms<uint8_t, uint16_t, BIN0|BIN1, FREQUENCY|ACCUMULATE>(dst, src, mask)  adds to the
//       128 uint16_t counters of dst, for the selected src bytes whose value v lies in the bin's
//       [0, 127] or [128, 255]: FREQUENCY counts v into counter v - base, ACCUMULATE into every
//       counter from v - base up (counter n: the values base..base + n). Counters wrap at 65535.
// Each counts as one vector repeat.
//
// The AR register is one register here, as the emulated blocks run one at a time; a kernel
// clears it with ClearSpr before its first AR-form store, as the StoreUnAlign page requires.
// Thread-safety: none (see cannbot_ascendc_runtime.h).
#ifndef CANNBOT_ASCENDC_REG_GATHER_MASK_H
#define CANNBOT_ASCENDC_REG_GATHER_MASK_H

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "cannbot_ascendc_reg.h"
#include "cannbot_ascendc_reg_moves.h"

namespace AscendC {

// The special registers (AscendC::SpecialPurposeReg on the ClearSpr pages).
enum class SpecialPurposeReg { AR };

namespace Reg {

enum class GatherMaskMode { NO_STORE_REG, STORE_REG };
enum class PairReduce { SUM = 0 };
enum class HistogramsBinType { BIN0, BIN1 };
enum class HistogramsType { FREQUENCY, ACCUMULATE };

namespace cannbot_detail {
// The AR register: the running byte offset of the AR-form stores, and the count the last
// STORE_REG Squeeze left for the next one (-1: none).
struct ArRegister {
  uint64_t offset = 0;
  int64_t counted = -1;
};
inline ArRegister& Ar() {
  static ArRegister ar;
  return ar;
}
}  // namespace cannbot_detail

template <SpecialPurposeReg spr>
inline void ClearSpr() {
  static_assert(spr == SpecialPurposeReg::AR, "Reg::ClearSpr clears the AR register");
  cannbot_detail::Ar() = cannbot_detail::ArRegister();
}

template <typename T = DefaultType, GatherMaskMode store = GatherMaskMode::NO_STORE_REG,
          typename U>
inline void Squeeze(U& dstReg, U& srcReg, MaskReg& mask) {
  using E = typename U::ElementType;
  E out[U::kLanes] = {};
  uint32_t kept = 0;
  for (uint32_t i = 0; i < U::kLanes; ++i) {
    if (mask.Active<E>(i)) out[kept++] = srcReg.Lane(i);
  }
  for (uint32_t i = 0; i < U::kLanes; ++i) dstReg.SetLane(i, out[i]);
  if (store == GatherMaskMode::STORE_REG) {
    cannbot_detail::Ar().counted = static_cast<int64_t>(kept * sizeof(E));
  }
  cannbot_detail::CountRegInstruction(false);
}

// The AR form of the unaligned store (the address is not advanced: AR is).
template <typename T = DefaultType, PostLiteral postMode = PostLiteral::POST_MODE_UPDATE,
          typename U>
inline void StoreUnAlign(__ubuf__ T* dstAddr, U& srcReg, UnalignRegForStore& ureg) {
  cannbot_detail::ArRegister& ar = cannbot_detail::Ar();
  if (ar.counted < 0) {
    cannbot_ascendc::Violation("bad-argument",
                               "Reg::StoreUnAlign (AR form) with no Squeeze<STORE_REG> before it: "
                               "the page has the two alternate");
  }
  const uint64_t bytes = static_cast<uint64_t>(ar.counted);
  __ubuf__ T* at = reinterpret_cast<__ubuf__ T*>(reinterpret_cast<unsigned char*>(dstAddr) +
                                                 ar.offset);
  StoreUnAlign<T, postMode>(at, srcReg, ureg, static_cast<uint32_t>(bytes / sizeof(T)));
  ar.offset += bytes;
  ar.counted = -1;
}
template <typename T>
inline void StoreUnAlignPost(__ubuf__ T* dstAddr, UnalignRegForStore& ureg) {
  __ubuf__ T* unused = dstAddr;
  StoreUnAlignPost<T>(unused, ureg, 0);
}

template <PairReduce type = PairReduce::SUM, typename T = DefaultType,
          MaskMergeMode mode = MaskMergeMode::ZEROING, typename U>
inline void PairReduceElem(U& dstReg, U srcReg, MaskReg mask) {
  using E = typename U::ElementType;
  static_assert(type == PairReduce::SUM, "Reg::PairReduceElem sums");
  static_assert(std::is_floating_point<E>::value || std::is_same<E, half>::value,
                "Reg::PairReduceElem takes half or float");
  E out[U::kLanes] = {};
  for (uint32_t i = 0; i < U::kLanes / 2; ++i) {
    float sum = 0.0f;
    for (uint32_t k = 2 * i; k < 2 * i + 2; ++k) {
      if (mask.Active<E>(k)) sum += static_cast<float>(srcReg.Lane(k));
    }
    out[i] = static_cast<E>(sum);
  }
  for (uint32_t i = 0; i < U::kLanes; ++i) dstReg.SetLane(i, out[i]);
  cannbot_detail::CountRegInstruction(false);
}

template <typename T = DefaultType, typename U = DefaultType, HistogramsBinType mode,
          HistogramsType type, typename S, typename V>
inline void Histograms(V& dstReg, S& srcReg, MaskReg& mask) {
  static_assert(std::is_same<typename S::ElementType, uint8_t>::value &&
                    std::is_same<typename V::ElementType, uint16_t>::value,
                "Reg::Histograms counts uint8_t values into uint16_t counters");
  const uint32_t base = mode == HistogramsBinType::BIN0 ? 0 : 128;
  uint16_t counters[V::kLanes];
  for (uint32_t n = 0; n < V::kLanes; ++n) counters[n] = dstReg.Lane(n);
  for (uint32_t j = 0; j < S::kLanes; ++j) {
    const uint32_t v = srcReg.Lane(j);
    if (!mask.Active<uint8_t>(j) || v < base || v >= base + V::kLanes) continue;
    const uint32_t last = type == HistogramsType::FREQUENCY ? v - base + 1 : V::kLanes;
    for (uint32_t n = v - base; n < last; ++n) ++counters[n];
  }
  for (uint32_t n = 0; n < V::kLanes; ++n) dstReg.SetLane(n, counters[n]);
  cannbot_detail::CountRegInstruction(false);
}

}  // namespace Reg

// ClearSpr outside a vector function (the __aicore__ form): the same register.
template <SpecialPurposeReg spr>
inline void ClearSpr() {
  Reg::ClearSpr<spr>();
}

}  // namespace AscendC

#endif  // CANNBOT_ASCENDC_REG_GATHER_MASK_H
