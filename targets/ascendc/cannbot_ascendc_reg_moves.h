// cannbot_ascendc_reg_moves.h: the register moves beyond the aligned ones
// (cannbot_ascendc_reg.h): offsets kept in an AddrReg, and the unaligned loads and stores that
// go through an UnalignRegForLoad / UnalignRegForStore, each from its public API page.
//
// AddrReg: CreateAddrReg<T>(index0, stride0[, index1, stride1 ...]) is an offset of
// sum(index * stride) elements of T; LoadAlign/StoreAlign with one move at that offset.
// LoadUnAlign reads one register's bytes from any UB address; it needs a LoadUnAlignPre on its
// UnalignRegForLoad first (`bad-argument` without one). StoreUnAlign writes `count` elements at
// any UB address as the hardware does: whole 32-byte blocks go out at once, the bytes of the
// last, partial block wait in the UnalignRegForStore until the next StoreUnAlign continues
// them or StoreUnAlignPost flushes them, so a store sequence that never calls
// StoreUnAlignPost leaves its tail unwritten, as on the device. Every access is checked to lie
// in the UB (cannbot_ascendc_reg.h). Each load and store counts as one vector repeat.
//
// Thread-safety: none (see cannbot_ascendc_runtime.h).
#ifndef CANNBOT_ASCENDC_REG_MOVES_H
#define CANNBOT_ASCENDC_REG_MOVES_H

#include <cstdint>
#include <cstring>

#include "cannbot_ascendc_reg.h"

namespace AscendC {
namespace Reg {

struct AddrReg {
  int64_t cb_offset = 0;  // elements of the T it was created for
  uint32_t cb_element = 0;
};

template <typename T, typename... IndexStride>
inline AddrReg CreateAddrReg(IndexStride... pairs) {
  static_assert(sizeof...(pairs) % 2 == 0 && sizeof...(pairs) >= 2 && sizeof...(pairs) <= 8,
                "Reg::CreateAddrReg takes one to four (index, stride) pairs");
  const int64_t values[] = {static_cast<int64_t>(pairs)...};
  AddrReg reg;
  for (size_t i = 0; i + 1 < sizeof...(pairs); i += 2) reg.cb_offset += values[i] * values[i + 1];
  reg.cb_element = sizeof(T);
  return reg;
}

namespace cannbot_detail {
template <typename T>
inline T* Offset(T* address, const AddrReg& offset) {
  return reinterpret_cast<T*>(reinterpret_cast<unsigned char*>(address) +
                              offset.cb_offset * static_cast<int64_t>(offset.cb_element));
}
}  // namespace cannbot_detail

template <typename T = DefaultType, LoadDist dist = LoadDist::DIST_NORM, typename U>
inline void LoadAlign(U& dstReg, __ubuf__ T* srcAddr, AddrReg offset) {
  LoadAlign<T, dist>(dstReg, cannbot_detail::Offset(srcAddr, offset));
}
template <typename T = DefaultType, StoreDist dist = StoreDist::DIST_NORM, typename U>
inline void StoreAlign(__ubuf__ T* dstAddr, U& srcReg, AddrReg offset, MaskReg& mask) {
  StoreAlign<T, dist>(cannbot_detail::Offset(dstAddr, offset), srcReg, mask);
}

// ---- unaligned loads ----
struct UnalignRegForLoad {
  bool cb_primed = false;
};

template <typename T>
inline void LoadUnAlignPre(UnalignRegForLoad& ureg, __ubuf__ T* srcAddr) {
  cannbot_detail::CheckUbAccess(srcAddr, 1, 1, "Reg::LoadUnAlignPre", cannbot_detail::Access::kRead);
  ureg.cb_primed = true;
}
template <typename T = DefaultType, typename U>
inline void LoadUnAlign(U& dstReg, UnalignRegForLoad& ureg, __ubuf__ T* srcAddr) {
  if (!ureg.cb_primed) {
    cannbot_ascendc::Violation("bad-argument",
                               "Reg::LoadUnAlign on an UnalignRegForLoad that no LoadUnAlignPre "
                               "initialised");
  }
  cannbot_detail::CheckUbAccess(srcAddr, kVl, 1, "Reg::LoadUnAlign", cannbot_detail::Access::kRead);
  std::memcpy(dstReg.cb_bytes, srcAddr, kVl);
  cannbot_detail::CountRegInstruction(false);
}
template <typename T = DefaultType, PostLiteral postMode = PostLiteral::POST_MODE_UPDATE,
          typename U>
inline void LoadUnAlign(U& dstReg, UnalignRegForLoad& ureg, __ubuf__ T*& srcAddr,
                        uint32_t postUpdateStride) {
  static_assert(postMode == PostLiteral::POST_MODE_UPDATE,
                "Reg::LoadUnAlign's post-update form takes POST_MODE_UPDATE only");
  LoadUnAlign<T>(dstReg, ureg, static_cast<__ubuf__ T*>(srcAddr));
  srcAddr += postUpdateStride;
}

// ---- unaligned stores ----
struct UnalignRegForStore {
  unsigned char* cb_at = nullptr;  // where the waiting bytes go
  uint32_t cb_length = 0;          // under 32
  unsigned char cb_bytes[32] = {};
};

namespace cannbot_detail {
inline void FlushUnaligned(UnalignRegForStore& ureg) {
  if (ureg.cb_length != 0) {
    CheckUbAccess(ureg.cb_at, ureg.cb_length, 1, "Reg::StoreUnAlignPost", Access::kWrite);
    std::memcpy(ureg.cb_at, ureg.cb_bytes, ureg.cb_length);
  }
  ureg.cb_length = 0;
  ureg.cb_at = nullptr;
}
}  // namespace cannbot_detail

template <typename T = DefaultType, PostLiteral postMode = PostLiteral::POST_MODE_UPDATE,
          typename U>
inline void StoreUnAlign(__ubuf__ T*& dstAddr, U& srcReg, UnalignRegForStore& ureg,
                         uint32_t postUpdateStride) {
  static_assert(postMode == PostLiteral::POST_MODE_UPDATE,
                "Reg::StoreUnAlign's post-update form takes POST_MODE_UPDATE only");
  const uint64_t bytes = static_cast<uint64_t>(postUpdateStride) * sizeof(T);
  if (bytes > kVl) {
    cannbot_ascendc::Violation("bad-argument",
                               "Reg::StoreUnAlign of %u elements: a register holds %u",
                               postUpdateStride, static_cast<unsigned>(kVl / sizeof(T)));
  }
  unsigned char* dst = reinterpret_cast<unsigned char*>(dstAddr);
  cannbot_detail::CheckUbAccess(dst, bytes, 1, "Reg::StoreUnAlign", cannbot_detail::Access::kWrite);
  // The waiting bytes continue here, or (a jump elsewhere) are written first.
  if (ureg.cb_length != 0 && ureg.cb_at + ureg.cb_length != dst) {
    cannbot_detail::FlushUnaligned(ureg);
  }
  unsigned char run[32 + kVl];
  uint32_t length = 0;
  unsigned char* start = dst;
  if (ureg.cb_length != 0) {
    start = ureg.cb_at;
    std::memcpy(run, ureg.cb_bytes, ureg.cb_length);
    length = ureg.cb_length;
  }
  std::memcpy(run + length, srcReg.cb_bytes, bytes);
  length += static_cast<uint32_t>(bytes);
  // Whole 32-byte blocks of the UB go out now; the partial last one waits.
  const uintptr_t base = reinterpret_cast<uintptr_t>(cannbot_ascendc::R().ub_base());
  const uintptr_t end = reinterpret_cast<uintptr_t>(start) + length;
  const uintptr_t cut = base + ((end - base) / 32) * 32;
  const uint32_t now = cut > reinterpret_cast<uintptr_t>(start)
                           ? static_cast<uint32_t>(cut - reinterpret_cast<uintptr_t>(start))
                           : 0;
  std::memcpy(start, run, now);
  ureg.cb_at = start + now;
  ureg.cb_length = length - now;
  std::memcpy(ureg.cb_bytes, run + now, ureg.cb_length);
  dstAddr += postUpdateStride;
  cannbot_detail::CountRegInstruction(false);
}
template <typename T, PostLiteral postMode = PostLiteral::POST_MODE_UPDATE>
inline void StoreUnAlignPost(__ubuf__ T*& dstAddr, UnalignRegForStore& ureg,
                             int32_t postUpdateStride) {
  cannbot_detail::FlushUnaligned(ureg);
  dstAddr += postUpdateStride;
  cannbot_detail::CountRegInstruction(false);
}

}  // namespace Reg
}  // namespace AscendC

#endif  // CANNBOT_ASCENDC_REG_MOVES_H
