// cannbot_ascendc_reg_discrete.h: register moves by index between the Unified Buffer and the
// register file, from the public API pages "离散搬入（Gather）", "离散搬入（GatherB）" and
// "离散搬出（Scatter）" (Reg矢量计算).
//
//   Gather<T0, T1, T2>(dst, base, index, mask)  dst lane i = base[index[i]] (elements of T1),
//       widened to T0 with zeros above (b8 -> b16), for the lanes the mask selects (T0-wide);
//       the others are zeroed. The index register has as many lanes as dst (uint16_t for b16,
//       uint32_t for b32).
//   GatherB(dst, base, index, mask)  the 8 32-byte blocks of dst from base + index[b] bytes
//       (uint32_t, each 32-byte aligned), block b where the mask's b32 element b is selected;
//       the other blocks keep what they held.
//   Scatter(base, src, index, mask)  base[index[i]] = src lane i for the selected lanes; for b8
//       T, lane i is the src byte 2i (the even bytes), as the page says.
// `base` must be 32-byte aligned in the UB, every element or block reached must lie in it
// (`ub-out-of-bounds`, naming the lane and its index), and the accesses take part in the pipe
// hand-off rules as the other register moves do. 64-bit element types (which pair registers)
// are not emulated. Each counts as one vector repeat.
//
// Thread-safety: none (see cannbot_ascendc_runtime.h).
#ifndef CANNBOT_ASCENDC_REG_DISCRETE_H
#define CANNBOT_ASCENDC_REG_DISCRETE_H

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "cannbot_ascendc_reg.h"

namespace AscendC {
namespace Reg {
namespace cannbot_detail {

inline void CheckDiscreteBase(const void* base, const char* what) {
  CheckUbAccess(base, 1, 32, what, Access::kRead);
}

// The UB address of element `index` of `base`, checked to lie in the UB for `bytes` bytes.
inline unsigned char* DiscreteAddress(const void* base, uint64_t index, uint32_t bytes,
                                      uint32_t lane, const char* what, Access access) {
  const uint64_t offset = index * bytes;
  if (offset >= cannbot_ascendc::kUbBytes) {
    cannbot_ascendc::Violation("ub-out-of-bounds",
                               "%s lane %u: index %llu reaches past the Unified Buffer", what,
                               lane, static_cast<unsigned long long>(index));
  }
  unsigned char* at = const_cast<unsigned char*>(static_cast<const unsigned char*>(base)) + offset;
  CheckUbAccess(at, bytes, 1, what, access);
  return at;
}

}  // namespace cannbot_detail

template <typename T0 = DefaultType, typename T1, typename T2 = DefaultType, typename T3,
          typename T4>
inline void Gather(T3& dstReg, __ubuf__ T1* baseAddr, T4& index, MaskReg& mask) {
  using D = typename T3::ElementType;
  using I = typename T4::ElementType;
  static_assert(sizeof(D) <= 4 && sizeof(T1) <= sizeof(D),
                "cannbot ascendc emulation: Reg::Gather from the UB into 64-bit elements is not "
                "emulated");
  static_assert(std::is_unsigned<I>::value && sizeof(I) == sizeof(D),
                "Reg::Gather's index register has the destination's lane width (uint16_t for "
                "b16, uint32_t for b32)");
  cannbot_detail::CheckDiscreteBase(baseAddr, "Reg::Gather");
  D out[T3::kLanes] = {};
  for (uint32_t i = 0; i < T3::kLanes; ++i) {
    if (!mask.Active<D>(i)) continue;
    const unsigned char* at = cannbot_detail::DiscreteAddress(
        baseAddr, index.Lane(i), sizeof(T1), i, "Reg::Gather", cannbot_detail::Access::kRead);
    std::memcpy(&out[i], at, sizeof(T1));  // b8 into b16: the low byte, zeros above
  }
  for (uint32_t i = 0; i < T3::kLanes; ++i) dstReg.SetLane(i, out[i]);
  cannbot_detail::CountRegInstruction(false);
}

template <typename T = DefaultType, typename U, typename S>
inline void GatherB(U& dstReg, __ubuf__ T* baseAddr, S& index, MaskReg& mask) {
  static_assert(std::is_same<typename S::ElementType, uint32_t>::value,
                "Reg::GatherB takes a uint32_t index register (byte offsets)");
  cannbot_detail::CheckDiscreteBase(baseAddr, "Reg::GatherB");
  for (uint32_t b = 0; b < kVl / 32; ++b) {
    if (!mask.Active<uint32_t>(b)) continue;
    const uint32_t offset = index.Lane(b);
    if (offset % 32 != 0) {
      cannbot_ascendc::Violation("vector-misaligned",
                                 "Reg::GatherB block %u: index %u is not a multiple of 32 bytes",
                                 b, offset);
    }
    const unsigned char* at = cannbot_detail::DiscreteAddress(
        baseAddr, offset / 32, 32, b, "Reg::GatherB", cannbot_detail::Access::kRead);
    std::memcpy(dstReg.cb_bytes + 32 * b, at, 32);
  }
  cannbot_detail::CountRegInstruction(false);
}

template <typename T = DefaultType, typename U = DefaultType, typename S, typename V>
inline void Scatter(__ubuf__ T* baseAddr, S& srcReg, V& index, MaskReg& mask) {
  using I = typename V::ElementType;
  static_assert(sizeof(T) <= 4, "cannbot ascendc emulation: Reg::Scatter of 64-bit elements is "
                                "not emulated");
  static_assert(std::is_unsigned<I>::value && sizeof(I) == (sizeof(T) == 1 ? 2 : sizeof(T)),
                "Reg::Scatter's index register is uint16_t for b8 and b16, uint32_t for b32");
  cannbot_detail::CheckDiscreteBase(baseAddr, "Reg::Scatter");
  for (uint32_t i = 0; i < V::kLanes; ++i) {
    if (!mask.Active<I>(i)) continue;
    unsigned char* at = cannbot_detail::DiscreteAddress(
        baseAddr, index.Lane(i), sizeof(T), i, "Reg::Scatter", cannbot_detail::Access::kWrite);
    std::memcpy(at, srcReg.cb_bytes + i * sizeof(I), sizeof(T));  // b8: the even bytes
  }
  cannbot_detail::CountRegInstruction(false);
}

}  // namespace Reg
}  // namespace AscendC

#endif  // CANNBOT_ASCENDC_REG_DISCRETE_H
