// cannbot_ascendc_reg.h: the register-based vector functions ("Reg", formerly "MicroAPI") of
// the newest Ascend C architectures: the registers, the masks, the vector function call and the
// moves between the Unified Buffer and the registers. The instructions on registers are
// cannbot_ascendc_reg_compute.h.
//
// Written from the public Ascend C API pages ("Reg矢量计算"): a RegTensor holds one vector length
// (VL = 256 bytes) of elements; a MaskReg holds VL/8 bits, one bit per byte of a register, an
// element of sizeof(T) bytes being active when the lowest of its sizeof(T) bits is set (the
// mask a b32 instruction reads has every fourth bit meaningful). CreateMask and UpdateMask set
// all of an element's bits. A function marked `__simd_vf__` runs when called, directly or
// through `asc_vf_call<F>(args...)`; there is one block at a time, so LocalMemBar has nothing to
// order. Loads and stores take `__ubuf__` addresses (LocalTensor::GetPhyAddr); each is checked
// to lie inside the emulated UB (`ub-out-of-bounds`) and to meet its distribution mode's
// alignment (`vector-misaligned`), naming the instruction and the UB offset. A store writes
// only the lanes its mask selects. Each load, store and instruction counts as one 256-byte
// vector repeat (Exp, Ln, Sqrt and Div as complex ones).
//
// A load or store is also tied to the UB buffers its bytes fall in, and the hand-off rules
// apply as to tensors: a buffer a copy from GM filled must have been waited for
// (`missing-sync`), and a write marks the buffer so that its copy out must wait for it.
//
// AddrReg offsets and the unaligned moves are cannbot_ascendc_reg_moves.h. Not emulated (a
// compile error or a `not-emulated` stop names them): RegTraitNumTwo registers, the double
// (interleaving) loads and stores, Gather/Scatter on registers, the DATA_BLOCK_COPY forms.
//
// Thread-safety: none (see cannbot_ascendc_runtime.h).
#ifndef CANNBOT_ASCENDC_REG_H
#define CANNBOT_ASCENDC_REG_H

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "cannbot_ascendc_runtime.h"
#include "cannbot_ascendc_vector.h"

// A vector function and the functions it calls: ordinary inline functions here.
#define __simd_vf__
#define __simd_callee__

namespace AscendC {

// The vector length in bytes (one register, one repeat).
constexpr uint32_t GetVecLen() { return 256; }

template <typename A, typename B>
struct IsSameType : std::is_same<A, B> {};

enum class DivAlgo {
  INTRINSIC,
  PRECISION_1ULP_FTZ_TRUE,
  PRECISION_1ULP_FTZ_FALSE,
  PRECISION_0ULP_FTZ_TRUE,
  PRECISION_0ULP_FTZ_FALSE
};

namespace Reg {

constexpr uint32_t kVl = GetVecLen();

struct DefaultType {};
enum class MaskMergeMode { UNKNOWN, MERGING, ZEROING };
enum class MaskPattern { ALL, VL1, VL2, VL3, VL4, VL8, VL16, VL32, VL64, VL128, M3, M4, H, Q, ALLF = 15 };
enum class PostLiteral { POST_MODE_NORMAL, POST_MODE_UPDATE };
enum class LoadDist {
  DIST_NORM,
  DIST_BRC_B8,
  DIST_BRC_B16,
  DIST_BRC_B32,
  DIST_US_B8 = 6,
  DIST_US_B16,
  DIST_DS_B8,
  DIST_DS_B16,
  DIST_BDINTLV,
  DIST_DINTLV_B8,
  DIST_DINTLV_B16,
  DIST_UNPACK_B8,
  DIST_UNPACK_B16,
  DIST_BLK,
  DIST_E2B_B16,
  DIST_E2B_B32,
  DIST_UNPACK_B32,
  DIST_DINTLV_B32,
  DIST_UNPACK4_B8
};
enum class StoreDist {
  DIST_NORM_B8,
  DIST_NORM_B16,
  DIST_NORM_B32,
  DIST_FIRST_ELEMENT_B8,
  DIST_FIRST_ELEMENT_B16,
  DIST_FIRST_ELEMENT_B32,
  DIST_PACK_B16,
  DIST_PACK_B32,
  DIST_PACK_B64,
  DIST_PACK4_B32,
  DIST_NORM,
  DIST_INTLV_B8,
  DIST_INTLV_B16,
  DIST_INTLV_B32
};
enum class RegLayout { UNKNOWN = -1, ZERO, ONE, TWO, THREE };
enum class SatMode { UNKNOWN = -1, NO_SAT, SAT };
enum class ReduceType { SUM = 0, MAX, MIN };
enum class HighLowPart { LOWEST, HIGHEST };
enum class IndexOrder { INCREASE_ORDER, DECREASE_ORDER };
enum class MemType { VEC_STORE, VEC_LOAD, SCALAR_STORE, SCALAR_LOAD, VEC_ALL, SCALAR_ALL };
enum class DataCopyMode { DATA_BLOCK_COPY };

struct RegTrait {
  int num = 1;
};
constexpr RegTrait RegTraitNumOne{1};
constexpr RegTrait RegTraitNumTwo{2};

struct CastTrait {
  RegLayout layoutMode = RegLayout::UNKNOWN;
  SatMode satMode = SatMode::UNKNOWN;
  MaskMergeMode mrgMode = MaskMergeMode::UNKNOWN;
  RoundMode roundMode = RoundMode::UNKNOWN;
};
struct DivSpecificMode {
  MaskMergeMode mrgMode = MaskMergeMode::ZEROING;
  bool precisionMode = false;
  DivAlgo algo = DivAlgo::INTRINSIC;
};

// One vector register of T.
template <typename T, const RegTrait& trait = RegTraitNumOne>
struct RegTensor {
  static_assert(trait.num == 1,
                "cannbot ascendc emulation: RegTensor with RegTraitNumTwo (two registers) is "
                "not emulated");
  using ElementType = T;
  static constexpr uint32_t kLanes = kVl / sizeof(T);

  template <typename E = T>
  E Lane(uint32_t i) const {
    E v;
    std::memcpy(&v, cb_bytes + i * sizeof(E), sizeof(E));
    return v;
  }
  template <typename E = T>
  void SetLane(uint32_t i, E v) {
    std::memcpy(cb_bytes + i * sizeof(E), &v, sizeof(E));
  }

  alignas(32) unsigned char cb_bytes[kVl] = {};
};

// One mask register: a bit per byte of a vector register.
struct MaskReg {
  template <typename T>
  bool Active(uint32_t element) const {
    return cb_bits[element * sizeof(T)];
  }
  template <typename T>
  void Set(uint32_t element, bool on) {
    for (uint32_t b = 0; b < sizeof(T); ++b) cb_bits[element * sizeof(T) + b] = on;
  }
  bool cb_bits[kVl] = {};
};

namespace cannbot_detail {

using ::AscendC::cannbot_detail::Access;

constexpr bool PatternSelects(MaskPattern mode, uint32_t i, uint32_t lanes) {
  switch (mode) {
    case MaskPattern::ALL: return true;
    case MaskPattern::ALLF: return false;
    case MaskPattern::VL1: return i < 1;
    case MaskPattern::VL2: return i < 2;
    case MaskPattern::VL3: return i < 3;
    case MaskPattern::VL4: return i < 4;
    case MaskPattern::VL8: return i < 8;
    case MaskPattern::VL16: return i < 16;
    case MaskPattern::VL32: return i < 32;
    case MaskPattern::VL64: return i < 64;
    case MaskPattern::VL128: return i < 128;
    case MaskPattern::M3: return i % 3 == 0;
    case MaskPattern::M4: return i % 4 == 0;
    case MaskPattern::H: return i < lanes / 2;
    case MaskPattern::Q: return i < lanes / 4;
  }
  return false;
}

// The vector side's hand-off rules (as CheckLocal applies them to tensors) for the UB buffers
// bytes [offset, offset + bytes) fall in: a buffer a GM->UB copy wrote must have been waited
// for, an enqueued one belongs to the next stage, and a write marks the buffer for the UB->GM
// rule. Buffers a queue has taken back (after FreeTensor) are not looked at.
inline void CheckHandOff(uint64_t offset, uint64_t bytes, const char* what, bool write) {
  for (cannbot_ascendc::Slot& s : cannbot_ascendc::R().slots()) {
    if (s.memory != cannbot_ascendc::kMemUb || (s.queue >= 0 && !s.allocated)) continue;
    if (offset >= s.ub_offset + static_cast<uint64_t>(s.bytes) || offset + bytes <= s.ub_offset) {
      continue;
    }
    if (s.in_queue) {
      cannbot_ascendc::Violation("missing-sync",
                                 "%s reaches UB byte %llu, in a buffer that is enqueued and not "
                                 "yet dequeued; after EnQue it belongs to the next pipeline stage",
                                 what, static_cast<unsigned long long>(offset));
    }
    if (s.pending_mte2) {
      cannbot_ascendc::Violation("missing-sync",
                                 "%s reaches UB byte %llu, which a DataCopy from global memory "
                                 "wrote and nothing has waited for; SetFlag/WaitFlag<HardEvent::"
                                 "MTE2_V> (or EnQue/DeQue, PipeBarrier<PIPE_ALL>) first",
                                 what, static_cast<unsigned long long>(offset));
    }
    if (write) s.pending_vec = true;
  }
}

// Checks that `bytes` at `address` lie in the UB, that the address meets `align`, and the
// hand-off rules of the buffers they fall in. `what` names the instruction.
inline void CheckUbAccess(const void* address, uint64_t bytes, uint32_t align, const char* what,
                          Access access) {
  const char* verb = access == Access::kRead ? "reads" : "writes";
  cannbot_ascendc::Runtime& rt = cannbot_ascendc::R();
  rt.RequireBlock(what);
  const uintptr_t base = reinterpret_cast<uintptr_t>(rt.ub_base());
  const uintptr_t at = reinterpret_cast<uintptr_t>(address);
  if (at < base || at - base >= cannbot_ascendc::kUbBytes) {
    cannbot_ascendc::Violation("ub-out-of-bounds",
                               "%s %s an address outside the Unified Buffer (register loads and "
                               "stores take UB addresses, such as LocalTensor::GetPhyAddr)",
                               what, verb);
  }
  const uint64_t offset = at - base;
  if (offset + bytes > cannbot_ascendc::kUbBytes) {
    cannbot_ascendc::Violation("ub-out-of-bounds",
                               "%s %s %llu bytes at UB byte %llu, past the UB's %u bytes", what,
                               verb, static_cast<unsigned long long>(bytes),
                               static_cast<unsigned long long>(offset), cannbot_ascendc::kUbBytes);
  }
  if (align > 1 && offset % align != 0) {
    cannbot_ascendc::Violation("vector-misaligned",
                               "%s needs a %u-byte aligned UB address; it got UB byte %llu", what,
                               align, static_cast<unsigned long long>(offset));
  }
  CheckHandOff(offset, bytes, what, access != Access::kRead);
}

inline void CountRegInstruction(bool complex) {
  cannbot_ascendc::CountVector(kVl, complex);
  cannbot_ascendc::Count(cannbot_ascendc::kRegInstructions, 1);
}

// The element width a distribution mode moves (0: the register's own).
constexpr uint32_t LoadWidth(LoadDist dist) {
  switch (dist) {
    case LoadDist::DIST_BRC_B8: case LoadDist::DIST_US_B8: case LoadDist::DIST_DS_B8:
    case LoadDist::DIST_UNPACK_B8: case LoadDist::DIST_UNPACK4_B8: return 1;
    case LoadDist::DIST_BRC_B16: case LoadDist::DIST_US_B16: case LoadDist::DIST_DS_B16:
    case LoadDist::DIST_UNPACK_B16: case LoadDist::DIST_E2B_B16: return 2;
    case LoadDist::DIST_BRC_B32: case LoadDist::DIST_UNPACK_B32: case LoadDist::DIST_E2B_B32:
      return 4;
    default: return 0;
  }
}

// Fills `out` (kVl bytes) from UB bytes at `src` by `dist`, after checking the read; element
// width `w` where the mode has one.
template <typename T>
inline void LoadBytes(unsigned char* out, const unsigned char* src, LoadDist dist) {
  const uint32_t w = LoadWidth(dist) != 0 ? LoadWidth(dist) : static_cast<uint32_t>(sizeof(T));
  const uint32_t n = kVl / w;  // elements of width w in a register
  auto lane = [&](uint32_t to, uint32_t from) { std::memcpy(out + to * w, src + from * w, w); };
  switch (dist) {
    case LoadDist::DIST_NORM:
      CheckUbAccess(src, kVl, 32, "Reg::LoadAlign", Access::kRead);
      std::memcpy(out, src, kVl);
      return;
    case LoadDist::DIST_BRC_B8: case LoadDist::DIST_BRC_B16: case LoadDist::DIST_BRC_B32:
      CheckUbAccess(src, w, w, "Reg::LoadAlign (broadcast)", Access::kRead);
      for (uint32_t i = 0; i < n; ++i) lane(i, 0);
      return;
    case LoadDist::DIST_US_B8: case LoadDist::DIST_US_B16:
      CheckUbAccess(src, kVl / 2, 32, "Reg::LoadAlign (upsample)", Access::kRead);
      for (uint32_t i = 0; i < n; ++i) lane(i, i / 2);
      return;
    case LoadDist::DIST_DS_B8: case LoadDist::DIST_DS_B16:
      CheckUbAccess(src, 2 * kVl, 32, "Reg::LoadAlign (downsample)", Access::kRead);
      for (uint32_t i = 0; i < n; ++i) lane(i, 2 * i);
      return;
    case LoadDist::DIST_UNPACK_B8: case LoadDist::DIST_UNPACK_B16: case LoadDist::DIST_UNPACK_B32:
      CheckUbAccess(src, kVl / 2, 32, "Reg::LoadAlign (unpack)", Access::kRead);
      std::memset(out, 0, kVl);
      for (uint32_t i = 0; i < n / 2; ++i) lane(2 * i, i);
      return;
    case LoadDist::DIST_UNPACK4_B8:
      CheckUbAccess(src, kVl / 4, 32, "Reg::LoadAlign (unpack4)", Access::kRead);
      std::memset(out, 0, kVl);
      for (uint32_t i = 0; i < n / 4; ++i) lane(4 * i, i);
      return;
    case LoadDist::DIST_BLK:
      CheckUbAccess(src, 32, 32, "Reg::LoadAlign (block broadcast)", Access::kRead);
      for (uint32_t b = 0; b < kVl / 32; ++b) std::memcpy(out + 32 * b, src, 32);
      return;
    case LoadDist::DIST_E2B_B16: case LoadDist::DIST_E2B_B32:
      CheckUbAccess(src, (kVl / 32) * w, kVl / (w == 2 ? 16 : 8), "Reg::LoadAlign (E2B)",
                    Access::kRead);
      for (uint32_t i = 0; i < n; ++i) lane(i, i / (32 / w));
      return;
    default:
      cannbot_ascendc::Violation("not-emulated",
                                 "Reg::LoadAlign with an interleaving (double-register) "
                                 "distribution mode is not emulated");
  }
}

}  // namespace cannbot_detail

template <typename T, MaskPattern mode = MaskPattern::ALL, const RegTrait& regTrait = RegTraitNumOne>
inline MaskReg CreateMask() {
  MaskReg mask;
  constexpr uint32_t kLanes = kVl / sizeof(T);
  for (uint32_t i = 0; i < kLanes; ++i) {
    mask.Set<T>(i, cannbot_detail::PatternSelects(mode, i, kLanes));
  }
  return mask;
}

// The first min(count, VL/sizeof(T)) elements; count goes down by one register's elements.
template <typename T, const RegTrait& regTrait = RegTraitNumOne>
inline MaskReg UpdateMask(uint32_t& count) {
  constexpr uint32_t kLanes = kVl / sizeof(T);
  MaskReg mask;
  for (uint32_t i = 0; i < kLanes; ++i) mask.Set<T>(i, i < count);
  count = count < kLanes ? 0 : count - kLanes;
  return mask;
}

template <MemType src, MemType dst>
inline void LocalMemBar() {}

// ---- LoadAlign: UB -> register ----
template <typename T = DefaultType, LoadDist dist = LoadDist::DIST_NORM, typename U>
inline void LoadAlign(U& dstReg, __ubuf__ T* srcAddr) {
  cannbot_detail::LoadBytes<typename U::ElementType>(
      dstReg.cb_bytes, reinterpret_cast<const unsigned char*>(srcAddr), dist);
  cannbot_detail::CountRegInstruction(false);
}
template <typename T = DefaultType, PostLiteral postMode, LoadDist dist = LoadDist::DIST_NORM,
          typename U>
inline void LoadAlign(U& dstReg, __ubuf__ T*& srcAddr, int32_t postUpdateStride) {
  static_assert(postMode == PostLiteral::POST_MODE_UPDATE,
                "Reg::LoadAlign's post-update form takes POST_MODE_UPDATE only");
  LoadAlign<T, dist>(dstReg, srcAddr);
  srcAddr += postUpdateStride;
}

// ---- StoreAlign: register -> UB, the lanes the mask selects ----
namespace cannbot_detail {
// Stores lanes of width `w` (a `keep`-byte low part of each when packing) at `dst`.
template <typename U>
inline void StoreLanes(unsigned char* dst, const U& reg, const MaskReg& mask, uint32_t w,
                       uint32_t keep, const char* what) {
  const uint32_t lanes = kVl / w;
  uint32_t last = 0;
  bool any = false;
  for (uint32_t i = 0; i < lanes; ++i) {
    if (mask.cb_bits[i * w]) {
      last = i;
      any = true;
    }
  }
  if (!any) return;
  CheckUbAccess(dst, static_cast<uint64_t>(last + 1) * keep, 32, what, Access::kWrite);
  for (uint32_t i = 0; i <= last; ++i) {
    if (mask.cb_bits[i * w]) std::memcpy(dst + i * keep, reg.cb_bytes + i * w, keep);
  }
}
}  // namespace cannbot_detail

template <typename T = DefaultType, StoreDist dist = StoreDist::DIST_NORM, typename U>
inline void StoreAlign(__ubuf__ T* dstAddr, U& srcReg, MaskReg& mask) {
  using E = typename U::ElementType;
  unsigned char* dst = reinterpret_cast<unsigned char*>(dstAddr);
  constexpr uint32_t kSize = sizeof(E);
  switch (dist) {
    case StoreDist::DIST_NORM: case StoreDist::DIST_NORM_B8: case StoreDist::DIST_NORM_B16:
    case StoreDist::DIST_NORM_B32:
      cannbot_detail::StoreLanes(dst, srcReg, mask, kSize, kSize, "Reg::StoreAlign");
      break;
    case StoreDist::DIST_FIRST_ELEMENT_B8: case StoreDist::DIST_FIRST_ELEMENT_B16:
    case StoreDist::DIST_FIRST_ELEMENT_B32: {
      const uint32_t w = dist == StoreDist::DIST_FIRST_ELEMENT_B8    ? 1
                         : dist == StoreDist::DIST_FIRST_ELEMENT_B16 ? 2
                                                                     : 4;
      cannbot_detail::CheckUbAccess(dst, w, w, "Reg::StoreAlign (first element)",
                                    cannbot_detail::Access::kWrite);
      std::memcpy(dst, srcReg.cb_bytes, w);
      break;
    }
    case StoreDist::DIST_PACK_B16:
      cannbot_detail::StoreLanes(dst, srcReg, mask, 2, 1, "Reg::StoreAlign (pack)");
      break;
    case StoreDist::DIST_PACK_B32:
      cannbot_detail::StoreLanes(dst, srcReg, mask, 4, 2, "Reg::StoreAlign (pack)");
      break;
    case StoreDist::DIST_PACK_B64:
      cannbot_detail::StoreLanes(dst, srcReg, mask, 8, 4, "Reg::StoreAlign (pack)");
      break;
    case StoreDist::DIST_PACK4_B32:
      cannbot_detail::StoreLanes(dst, srcReg, mask, 4, 1, "Reg::StoreAlign (pack4)");
      break;
    default:
      cannbot_ascendc::Violation("not-emulated",
                                 "Reg::StoreAlign with an interleaving (double-register) "
                                 "distribution mode is not emulated");
  }
  cannbot_detail::CountRegInstruction(false);
}
template <typename T = DefaultType, PostLiteral postMode, StoreDist dist = StoreDist::DIST_NORM,
          typename U>
inline void StoreAlign(__ubuf__ T*& dstAddr, U& srcReg, int32_t postUpdateStride, MaskReg& mask) {
  static_assert(postMode == PostLiteral::POST_MODE_UPDATE,
                "Reg::StoreAlign's post-update form takes POST_MODE_UPDATE only");
  StoreAlign<T, dist>(dstAddr, srcReg, mask);
  dstAddr += postUpdateStride;
}

}  // namespace Reg

// The older name of the same functions.
namespace MicroAPI = Reg;

}  // namespace AscendC

// asc_vf_call<F>(args...): runs the vector function F with the arguments.
template <auto F, typename... Args>
inline void asc_vf_call(Args&&... args) {
  F(std::forward<Args>(args)...);
}

#endif  // CANNBOT_ASCENDC_REG_H
