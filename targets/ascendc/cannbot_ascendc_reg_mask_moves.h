// cannbot_ascendc_reg_mask_moves.h: moving a MaskReg between the Unified Buffer and the
// register file, from the public API pages "MaskReg搬入（LoadAlign）" and
// "MaskReg搬出（StoreAlign）" (Reg矢量计算), and making one from a register's bits
// ("MaskReg搬入（MaskGenWithRegTensor）").
//
// In the UB a mask is a bit string, one bit per byte of a vector register (VL/8 = 32 bytes for
// a 256-byte register), bit i of byte j being register byte 8j + i. A load reads it
//   DIST_NORM  the 32 bytes as they are                      (32-byte aligned)
//   DIST_US    16 bytes, each bit taken twice                (16-byte aligned)
//   DIST_DS    64 bytes, every other bit kept                (32-byte aligned: min(32, VL/4))
// and a store writes it
//   DIST_NORM  the 32 bytes as they are                      (32-byte aligned)
//   DIST_PACK  16 bytes, every other bit of the register's   (16-byte aligned)
// The post-update forms advance the address by `offset` elements of T afterwards (the pages'
// `srcAddr += offset`); the AddrReg forms move at its offset. Every
// access is checked like the register loads and stores (cannbot_ascendc_reg.h) and counts as
// one vector repeat.
//
// Thread-safety: none (see cannbot_ascendc_runtime.h).
#ifndef CANNBOT_ASCENDC_REG_MASK_MOVES_H
#define CANNBOT_ASCENDC_REG_MASK_MOVES_H

#include <cstdint>

#include "cannbot_ascendc_reg.h"
#include "cannbot_ascendc_reg_moves.h"

namespace AscendC {
namespace Reg {

enum class MaskDist { DIST_NORM, DIST_US, DIST_DS, DIST_PACK };

namespace cannbot_detail {

// UB bytes a mask move of `dist` touches, and the alignment it needs.
constexpr uint32_t MaskMoveBytes(MaskDist dist) {
  return dist == MaskDist::DIST_US || dist == MaskDist::DIST_PACK ? kVl / 16
         : dist == MaskDist::DIST_DS                              ? kVl / 4
                                                                  : kVl / 8;
}
constexpr uint32_t MaskMoveAlign(MaskDist dist) { return MaskMoveBytes(dist) == 16 ? 16 : 32; }

inline bool UbBit(const unsigned char* bits, uint32_t i) { return (bits[i / 8] >> (i % 8)) & 1u; }

template <MaskDist dist>
inline void LoadMask(MaskReg& mask, const unsigned char* src, const char* what) {
  static_assert(dist != MaskDist::DIST_PACK, "Reg::LoadAlign of a MaskReg takes DIST_NORM, "
                                             "DIST_US or DIST_DS");
  CheckUbAccess(src, MaskMoveBytes(dist), MaskMoveAlign(dist), what, Access::kRead);
  for (uint32_t b = 0; b < kVl; ++b) {  // register byte b's bit in the UB
    const uint32_t i = dist == MaskDist::DIST_US ? b / 2 : dist == MaskDist::DIST_DS ? 2 * b : b;
    mask.cb_bits[b] = UbBit(src, i);
  }
  CountRegInstruction(false);
}

template <MaskDist dist>
inline void StoreMask(unsigned char* dst, const MaskReg& mask, const char* what) {
  static_assert(dist == MaskDist::DIST_NORM || dist == MaskDist::DIST_PACK,
                "Reg::StoreAlign of a MaskReg takes DIST_NORM or DIST_PACK");
  constexpr uint32_t kBytes = MaskMoveBytes(dist);
  CheckUbAccess(dst, kBytes, MaskMoveAlign(dist), what, Access::kWrite);
  for (uint32_t i = 0; i < kBytes * 8; ++i) {  // UB bit i's register byte
    const bool on = mask.cb_bits[dist == MaskDist::DIST_PACK ? 2 * i : i];
    const unsigned char bit = static_cast<unsigned char>(1u << (i % 8));
    dst[i / 8] = static_cast<unsigned char>(on ? dst[i / 8] | bit : dst[i / 8] & ~bit);
  }
  CountRegInstruction(false);
}

}  // namespace cannbot_detail

// The MaskReg forms are more specialised than the RegTensor ones (which take any register
// type U), so a call with a MaskReg picks these.
template <typename T = DefaultType, MaskDist dist = MaskDist::DIST_NORM>
inline void LoadAlign(MaskReg& mask, __ubuf__ T* srcAddr) {
  cannbot_detail::LoadMask<dist>(mask, reinterpret_cast<const unsigned char*>(srcAddr),
                                 "Reg::LoadAlign (mask)");
}
template <typename T = DefaultType, PostLiteral postMode, MaskDist dist = MaskDist::DIST_NORM>
inline void LoadAlign(MaskReg& mask, __ubuf__ T*& srcAddr, int32_t offset) {
  static_assert(postMode == PostLiteral::POST_MODE_UPDATE,
                "Reg::LoadAlign's post-update form takes POST_MODE_UPDATE only");
  LoadAlign<T, dist>(mask, srcAddr);
  srcAddr += offset;
}
template <typename T = DefaultType, MaskDist dist = MaskDist::DIST_NORM>
inline void LoadAlign(MaskReg& mask, __ubuf__ T* srcAddr, AddrReg offset) {
  LoadAlign<T, dist>(mask, cannbot_detail::Offset(srcAddr, offset));
}

template <typename T = DefaultType, MaskDist dist = MaskDist::DIST_NORM>
inline void StoreAlign(__ubuf__ T* dstAddr, MaskReg& mask) {
  cannbot_detail::StoreMask<dist>(reinterpret_cast<unsigned char*>(dstAddr), mask,
                                  "Reg::StoreAlign (mask)");
}
template <typename T = DefaultType, PostLiteral postMode, MaskDist dist = MaskDist::DIST_NORM>
inline void StoreAlign(__ubuf__ T*& dstAddr, MaskReg& mask, int32_t offset) {
  static_assert(postMode == PostLiteral::POST_MODE_UPDATE,
                "Reg::StoreAlign's post-update form takes POST_MODE_UPDATE only");
  StoreAlign<T, dist>(dstAddr, mask);
  dstAddr += offset;
}
template <typename T = DefaultType, MaskDist dist = MaskDist::DIST_NORM>
inline void StoreAlign(__ubuf__ T* dstAddr, MaskReg& mask, AddrReg offset) {
  StoreAlign<T, dist>(cannbot_detail::Offset(dstAddr, offset), mask);
}

// MaskGenWithRegTensor<T, offset>(dst, src) (its page, "MaskReg搬入"): block `offset` of src
// (16 bytes for b16, 8 for b32), each bit taken for the 2 or 4 register bytes of one element.
template <typename T = DefaultType, int16_t offset, typename U>
inline void MaskGenWithRegTensor(MaskReg& dst, U& srcReg) {
  constexpr uint32_t kWidth = sizeof(typename U::ElementType);
  static_assert(kWidth == 2 || kWidth == 4, "Reg::MaskGenWithRegTensor takes b16 or b32");
  static_assert(offset >= 0 && offset < static_cast<int16_t>(kVl / (kVl / 8 / kWidth)),
                "Reg::MaskGenWithRegTensor's offset is 0..15 for b16, 0..31 for b32");
  const unsigned char* block = srcReg.cb_bytes + offset * (kVl / 8 / kWidth);
  for (uint32_t b = 0; b < kVl; ++b) dst.cb_bits[b] = cannbot_detail::UbBit(block, b / kWidth);
  cannbot_detail::CountRegInstruction(false);
}

}  // namespace Reg
}  // namespace AscendC

#endif  // CANNBOT_ASCENDC_REG_MASK_MOVES_H
