// cannbot_ascendc_reg_bits.h: the bitwise and rearranging instructions of the register-based
// vector functions (cannbot_ascendc_reg.h), each from its public API page: And, Or, Xor, Not
// on registers (on an element's bits, any type) and on mask registers; ShiftLeft(s) and
// ShiftRight(s); Interleave and DeInterleave of two registers; Gather by an index register.
//
// Shifts follow their pages' examples: unsigned types shift logically; signed ones
// arithmetically, a right shift copying the sign bit and a left shift keeping it (the bit below
// it is the one dropped: int16 1010101010101010 << 1 is 1101010101010100). A shift count of
// the type's width or more gives 0 (or all sign bits, right, for a negative signed value).
// Interleave: dst0 = src0[0], src1[0], src0[1], src1[1], ... (the first half of the pairs),
// dst1 the second half; DeInterleave undoes it. Gather: dst lane i = src lane index[i]; an index
// past the register is `bad-argument`. Mask-register forms zero the bits their mask leaves out.
// Each counts as one vector repeat.
//
// Thread-safety: none (see cannbot_ascendc_runtime.h).
#ifndef CANNBOT_ASCENDC_REG_BITS_H
#define CANNBOT_ASCENDC_REG_BITS_H

#include <cstdint>
#include <type_traits>

#include "cannbot_ascendc_reg.h"
#include "cannbot_ascendc_reg_compute.h"

namespace AscendC {
namespace Reg {
namespace cannbot_detail {

template <size_t kBytes>
using BitsOf = std::conditional_t<
    kBytes == 1, uint8_t,
    std::conditional_t<kBytes == 2, uint16_t, std::conditional_t<kBytes == 4, uint32_t, uint64_t>>>;

// dst lane i = op(bits of a lane i, bits of b lane i) where the mask selects it.
template <MaskMergeMode merge, typename R, typename F>
inline void BitLanes(R& dst, const R& a, const R& b, const MaskReg& mask, F&& op) {
  using T = typename R::ElementType;
  using B = BitsOf<sizeof(T)>;
  B out[R::kLanes];
  for (uint32_t i = 0; i < R::kLanes; ++i) {
    out[i] = mask.Active<T>(i)              ? static_cast<B>(op(a.template Lane<B>(i), b.template Lane<B>(i)))
             : merge == MaskMergeMode::MERGING ? dst.template Lane<B>(i)
                                               : B{0};
  }
  for (uint32_t i = 0; i < R::kLanes; ++i) dst.template SetLane<B>(i, out[i]);
  CountRegInstruction(false);
}

// x shifted by n: left keeps a signed value's sign bit, right copies it.
template <typename T>
inline T Shifted(T x, int64_t n, bool left) {
  using B = BitsOf<sizeof(T)>;
  constexpr int kBits = static_cast<int>(8 * sizeof(T));
  constexpr B kSign = static_cast<B>(B{1} << (kBits - 1));
  B bits;
  std::memcpy(&bits, &x, sizeof(T));
  const bool negative = std::is_signed<T>::value && (bits & kSign) != 0;
  B out;
  if (n < 0) n = 0;
  if (left) {
    out = n >= kBits ? B{0} : static_cast<B>(bits << n);
    if (std::is_signed<T>::value) out = static_cast<B>((out & ~kSign) | (bits & kSign));
  } else if (n >= kBits) {
    out = negative ? static_cast<B>(~B{0}) : B{0};
  } else {
    out = static_cast<B>(bits >> n);
    if (negative && n > 0) out = static_cast<B>(out | ~static_cast<B>(static_cast<B>(~B{0}) >> n));
  }
  T result;
  std::memcpy(&result, &out, sizeof(T));
  return result;
}

}  // namespace cannbot_detail

// ---- bitwise, on registers ----
#define CANNBOT_REG_BITWISE(Name, expression)                                                   \
  template <typename T = DefaultType, MaskMergeMode mode = MaskMergeMode::ZEROING, typename U>  \
  inline void Name(U& dstReg, U& srcReg0, U& srcReg1, MaskReg& mask) {                          \
    cannbot_detail::BitLanes<mode>(dstReg, srcReg0, srcReg1, mask,                              \
                                   [](auto a, auto b) { return expression; });                  \
  }
CANNBOT_REG_BITWISE(And, a & b)
CANNBOT_REG_BITWISE(Or, a | b)
CANNBOT_REG_BITWISE(Xor, a ^ b)
#undef CANNBOT_REG_BITWISE
template <typename T = DefaultType, MaskMergeMode mode = MaskMergeMode::ZEROING, typename U>
inline void Not(U& dstReg, U& srcReg, MaskReg& mask) {
  cannbot_detail::BitLanes<mode>(dstReg, srcReg, srcReg, mask, [](auto a, auto) { return ~a; });
}

// ---- bitwise, on mask registers ----
#define CANNBOT_MASK_BITWISE(Name, expression)                                    \
  inline void Name(MaskReg& dst, MaskReg& src0, MaskReg& src1, MaskReg& mask) {   \
    MaskReg out;                                                                  \
    for (uint32_t b = 0; b < kVl; ++b) {                                          \
      const bool a = src0.cb_bits[b], c = src1.cb_bits[b];                        \
      out.cb_bits[b] = mask.cb_bits[b] && (expression);                           \
    }                                                                             \
    dst = out;                                                                    \
    cannbot_detail::CountRegInstruction(false);                                   \
  }
CANNBOT_MASK_BITWISE(And, a && c)
CANNBOT_MASK_BITWISE(Or, a || c)
CANNBOT_MASK_BITWISE(Xor, a != c)
#undef CANNBOT_MASK_BITWISE
inline void Not(MaskReg& dst, MaskReg& src, MaskReg& mask) {
  MaskReg out;
  for (uint32_t b = 0; b < kVl; ++b) out.cb_bits[b] = mask.cb_bits[b] && !src.cb_bits[b];
  dst = out;
  cannbot_detail::CountRegInstruction(false);
}

// ---- shifts: by a scalar (ShiftLefts, ShiftRights) or by each lane of a register ----
namespace cannbot_detail {
template <MaskMergeMode mode, bool kLeft, typename S, typename F>
inline void ShiftLanes(S& dstReg, S& srcReg, F&& count, MaskReg& mask) {
  using E = typename S::ElementType;
  static_assert(std::is_integral<E>::value, "Reg shifts take integer registers");
  ForLanes<mode>(dstReg, mask,
                 [&](uint32_t i) { return Shifted<E>(srcReg.Lane(i), count(i), kLeft); });
}
}  // namespace cannbot_detail

#define CANNBOT_REG_SHIFT(Name, left, Count, count_of_lane)                        \
  template <typename T = DefaultType, typename U = DefaultType,                   \
            MaskMergeMode mode = MaskMergeMode::ZEROING, typename S, typename V>  \
  inline void Name(S& dstReg, S& srcReg, Count amount, MaskReg& mask) {           \
    auto count = [&](uint32_t i) {                                                \
      (void)i;                                                                    \
      return static_cast<int64_t>(count_of_lane);                                 \
    };                                                                            \
    cannbot_detail::ShiftLanes<mode, left>(dstReg, srcReg, count, mask);          \
  }
CANNBOT_REG_SHIFT(ShiftLefts, true, V, amount)
CANNBOT_REG_SHIFT(ShiftRights, false, V, amount)
CANNBOT_REG_SHIFT(ShiftLeft, true, V&, amount.Lane(i))
CANNBOT_REG_SHIFT(ShiftRight, false, V&, amount.Lane(i))
#undef CANNBOT_REG_SHIFT

// ---- rearranging ----
template <typename T = DefaultType, typename U>
inline void Interleave(U& dstReg0, U& dstReg1, U& srcReg0, U& srcReg1) {
  using E = typename U::ElementType;
  constexpr uint32_t n = U::kLanes;
  E zipped[2 * n];
  for (uint32_t i = 0; i < n; ++i) {
    zipped[2 * i] = srcReg0.Lane(i);
    zipped[2 * i + 1] = srcReg1.Lane(i);
  }
  for (uint32_t i = 0; i < n; ++i) {
    dstReg0.SetLane(i, zipped[i]);
    dstReg1.SetLane(i, zipped[n + i]);
  }
  cannbot_detail::CountRegInstruction(false);
}
template <typename T = DefaultType, typename U>
inline void DeInterleave(U& dstReg0, U& dstReg1, U& srcReg0, U& srcReg1) {
  using E = typename U::ElementType;
  constexpr uint32_t n = U::kLanes;
  E joined[2 * n];
  for (uint32_t i = 0; i < n; ++i) {
    joined[i] = srcReg0.Lane(i);
    joined[n + i] = srcReg1.Lane(i);
  }
  for (uint32_t i = 0; i < n; ++i) {
    dstReg0.SetLane(i, joined[2 * i]);
    dstReg1.SetLane(i, joined[2 * i + 1]);
  }
  cannbot_detail::CountRegInstruction(false);
}
template <typename T = DefaultType, typename U = DefaultType, typename S, typename V>
inline void Gather(S& dstReg, S& srcReg, V& indexReg) {
  static_assert(std::is_integral<typename V::ElementType>::value,
                "Reg::Gather takes an integer index register");
  typename S::ElementType out[S::kLanes];
  for (uint32_t i = 0; i < S::kLanes; ++i) {
    const uint64_t at = i < V::kLanes ? static_cast<uint64_t>(indexReg.Lane(i)) : 0;
    if (at >= S::kLanes) {
      cannbot_ascendc::Violation("bad-argument",
                                 "Reg::Gather index %llu (lane %u) is past the register's %u "
                                 "elements",
                                 static_cast<unsigned long long>(at), i, S::kLanes);
    }
    out[i] = srcReg.Lane(static_cast<uint32_t>(at));
  }
  for (uint32_t i = 0; i < S::kLanes; ++i) dstReg.SetLane(i, out[i]);
  cannbot_detail::CountRegInstruction(false);
}

}  // namespace Reg
}  // namespace AscendC

#endif  // CANNBOT_ASCENDC_REG_BITS_H
