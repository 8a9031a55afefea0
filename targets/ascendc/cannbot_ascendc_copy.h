// cannbot_ascendc_copy.h: DataCopy and DataCopyPad between global memory and the UB.
//
// Rules, as the Ascend C documentation states them for Atlas A2:
//  - DataCopy moves whole 32-byte DataBlocks: count * sizeof(T) must be a multiple of 32
//    (`copy-misaligned`); DataCopyPad takes byte lengths for the unaligned cases.
//  - UB operands start 32-byte aligned; GM addresses need only element alignment
//    (`copy-misaligned`).
//  - A copy stays inside one tensor of the launch (`gm-out-of-bounds`), never writes an input
//    (`gm-write-to-input`) and moves the tensor's element type (`gm-dtype-mismatch`).
//  - A GM->UB copy must be waited for before vector or scalar code reads the buffer, and
//    vector/scalar writes before a UB->GM copy reads it (`missing-sync`): EnQue/DeQue,
//    SetFlag/WaitFlag or PipeBarrier<PIPE_ALL> are those waits.
// Every copy is counted (bytes per direction and instructions) for the cost model.
// Copies out go through StoreToGm (cannbot_ascendc_atomic.h): the atomic modes apply.
//
// Thread-safety: none (see cannbot_ascendc_runtime.h).
#ifndef CANNBOT_ASCENDC_COPY_H
#define CANNBOT_ASCENDC_COPY_H

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "cannbot_ascendc_atomic.h"
#include "cannbot_ascendc_tensor.h"

namespace AscendC {

struct DataCopyParams {
  DataCopyParams() = default;
  DataCopyParams(uint16_t count, uint16_t len, uint16_t src_stride, uint16_t dst_stride)
      : blockCount(count), blockLen(len), srcStride(src_stride), dstStride(dst_stride) {}
  uint16_t blockCount = 1;  // blocks to move
  uint16_t blockLen = 0;    // DataCopy: 32-byte units; DataCopyPad: bytes
  uint16_t srcStride = 0;   // gap between blocks at the source (UB: 32-byte units; GM: see above)
  uint16_t dstStride = 0;
};

struct DataCopyExtParams {
  DataCopyExtParams() = default;
  DataCopyExtParams(uint16_t count, uint32_t len, uint32_t src_stride, uint32_t dst_stride,
                    uint32_t rsv_in)
      : blockCount(count),
        blockLen(len),
        srcStride(src_stride),
        dstStride(dst_stride),
        rsv(rsv_in) {}
  uint16_t blockCount = 1;
  uint32_t blockLen = 0;   // bytes
  uint32_t srcStride = 0;  // GM side: bytes; UB side: 32-byte units
  uint32_t dstStride = 0;
  uint32_t rsv = 0;
};

template <typename T>
struct DataCopyPadExtParams {
  DataCopyPadExtParams() = default;
  DataCopyPadExtParams(bool is_pad, uint8_t left, uint8_t right, T value)
      : isPad(is_pad), leftPadding(left), rightPadding(right), paddingValue(value) {}
  bool isPad = false;        // fill the padding with paddingValue (else it is undefined)
  uint8_t leftPadding = 0;   // elements before the data in each UB block
  uint8_t rightPadding = 0;  // elements after it
  T paddingValue = 0;
};

struct DataCopyPadParams {
  DataCopyPadParams() = default;
  DataCopyPadParams(bool is_pad, uint8_t left, uint8_t right, uint64_t value)
      : isPad(is_pad), leftPadding(left), rightPadding(right), paddingValue(value) {}
  bool isPad = false;
  uint8_t leftPadding = 0;
  uint8_t rightPadding = 0;
  uint64_t paddingValue = 0;
};

namespace cannbot_detail {

inline uint64_t RoundUp32(uint64_t bytes) {
  return (bytes + cannbot_ascendc::kBlockBytes - 1) / cannbot_ascendc::kBlockBytes *
         cannbot_ascendc::kBlockBytes;
}

// One copy made of `count` equally shaped blocks. Offsets are bytes from the operands' starts.
struct CopyShape {
  uint32_t count = 1;
  uint64_t block_bytes = 0;   // bytes moved per block
  uint64_t gm_pitch = 0;      // GM distance between block starts
  uint64_t ub_pitch = 0;      // UB distance between block starts
  uint64_t ub_lead = 0;       // UB bytes before the data in each block (left padding)
  uint64_t ub_footprint = 0;  // UB bytes each block occupies (data and padding)
};

template <typename T>
inline void CheckAlignment(const LocalTensor<T>& local, const GlobalTensor<T>* global,
                           const char* api) {
  if (local.cb_ub_offset_ % cannbot_ascendc::kBlockBytes != 0) {
    cannbot_ascendc::Violation(
        "copy-misaligned",
        "%s uses a LocalTensor that starts %u bytes into a 32-byte block; UB operands of copies "
        "must start 32-byte aligned",
        api, local.cb_ub_offset_ % cannbot_ascendc::kBlockBytes);
  }
  if (global != nullptr && reinterpret_cast<uintptr_t>(global->cb_addr_) % sizeof(T) != 0) {
    cannbot_ascendc::Violation("copy-misaligned",
                               "%s uses a GM address that is not aligned to its element size", api);
  }
}

// DataCopy's MTE2 fills the Unified Buffer or L1; MTE3 drains the Unified Buffer only (L0C is
// read out by Fixpipe, L0A/L0B are filled from L1 by LoadData).
inline void CheckCopyMemory(const cannbot_ascendc::Slot& s, bool into_core, TPosition position,
                            const char* api) {
  const bool ok = s.memory == cannbot_ascendc::kMemUb ||
                  (into_core && s.memory == cannbot_ascendc::kMemL1);
  if (!ok) {
    cannbot_ascendc::Violation(
        "wrong-position",
        "%s %s a LocalTensor at TPosition::%s, in %s; DataCopy %s (%s)", api,
        into_core ? "fills" : "reads", PositionName(position),
        cannbot_ascendc::MemoryName(s.memory),
        into_core ? "from global memory reaches the Unified Buffer and L1 only"
                  : "to global memory leaves from the Unified Buffer only",
        s.memory == cannbot_ascendc::kMemL0C ? "L0C results go out through Fixpipe"
                                             : "L0A and L0B are filled from L1 by LoadData");
  }
}

inline void MarkQueueCopy(const cannbot_ascendc::Slot& s) {
  if (s.queue < 0) return;
  cannbot_ascendc::R().queue(s.queue).carried_copies = true;
  cannbot_ascendc::SendCount(cannbot_ascendc::CountKind::kQueueCopy,
                             cannbot_ascendc::R().block_idx(), static_cast<uint64_t>(s.queue), 1);
}

template <typename T>
inline void GmToUb(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const CopyShape& c,
                   bool pad, T pad_value, const char* api) {
  using cannbot_ascendc::R;
  CheckAlignment(dst, &src, api);
  const uint64_t ub_end = c.count == 0 ? 0 : (c.count - 1) * c.ub_pitch + c.ub_footprint;
  cannbot_ascendc::Slot& s = CheckLocalBasic(dst, (ub_end + sizeof(T) - 1) / sizeof(T), api);
  CheckCopyMemory(s, /*into_core=*/true, dst.cb_position_, api);
  const uint64_t gm_span = c.count == 0 ? 0 : (c.count - 1) * c.gm_pitch + c.block_bytes;
  const uint8_t* from =
      R().TranslateGm(src.cb_addr_, gm_span, /*write=*/false, static_cast<int>(sizeof(T) * 8), api,
                      cannbot_ascendc::DtypeName<T>());
  uint8_t* to = reinterpret_cast<uint8_t*>(dst.cb_data_);
  for (uint32_t b = 0; b < c.count; ++b) {
    uint8_t* block = to + b * c.ub_pitch;
    std::memcpy(block + c.ub_lead, from + b * c.gm_pitch, c.block_bytes);
    if (pad) {
      T* lead = reinterpret_cast<T*>(block);
      for (uint64_t i = 0; i < c.ub_lead / sizeof(T); ++i) lead[i] = pad_value;
      T* tail = reinterpret_cast<T*>(block + c.ub_lead + c.block_bytes);
      const uint64_t tail_elems = (c.ub_footprint - c.ub_lead - c.block_bytes) / sizeof(T);
      for (uint64_t i = 0; i < tail_elems; ++i) tail[i] = pad_value;
    }
  }
  s.pending_mte2 = true;
  MarkQueueCopy(s);
  cannbot_ascendc::Count(cannbot_ascendc::kGmToUbBytes, static_cast<uint64_t>(c.count) * c.block_bytes);
  cannbot_ascendc::Count(cannbot_ascendc::kGmToUbCopies, 1);
}

template <typename T>
inline void UbToGm(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const CopyShape& c,
                   const char* api) {
  using cannbot_ascendc::R;
  CheckAlignment(src, &dst, api);
  const uint64_t ub_end = c.count == 0 ? 0 : (c.count - 1) * c.ub_pitch + c.block_bytes;
  cannbot_ascendc::Slot& s = CheckLocalBasic(src, (ub_end + sizeof(T) - 1) / sizeof(T), api);
  CheckCopyMemory(s, /*into_core=*/false, src.cb_position_, api);
  if (s.pending_vec || s.pending_mte2) {
    cannbot_ascendc::Violation(
        "missing-sync",
        "%s copies a LocalTensor to global memory before the writes into it were waited for; "
        "pass it through EnQue/DeQue (or SetFlag/WaitFlag<HardEvent::V_MTE3>, "
        "PipeBarrier<PIPE_ALL>) first",
        api);
  }
  const uint64_t gm_span = c.count == 0 ? 0 : (c.count - 1) * c.gm_pitch + c.block_bytes;
  uint8_t* to =
      R().TranslateGm(dst.cb_addr_, gm_span, /*write=*/true, static_cast<int>(sizeof(T) * 8), api,
                      cannbot_ascendc::DtypeName<T>());
  const uint8_t* from = reinterpret_cast<const uint8_t*>(src.cb_data_);
  for (uint32_t b = 0; b < c.count; ++b) {
    StoreToGm<T>(to + b * c.gm_pitch, from + b * c.ub_pitch, c.block_bytes, api);
  }
  MarkQueueCopy(s);
  cannbot_ascendc::Count(cannbot_ascendc::kUbToGmBytes, static_cast<uint64_t>(c.count) * c.block_bytes);
  cannbot_ascendc::Count(cannbot_ascendc::kUbToGmCopies, 1);
}

// L1 -> bias table (C2): the cube's bias reaches it by a local DataCopy, moved by MTE1.
template <typename T>
inline bool L1ToBiasTable(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint64_t bytes,
                          const char* api) {
  using cannbot_ascendc::R;
  if (src.cb_slot_ < 0 || dst.cb_slot_ < 0 || src.cb_serial_ != R().block_serial() ||
      dst.cb_serial_ != R().block_serial() ||
      R().slot(src.cb_slot_).memory != cannbot_ascendc::kMemL1 ||
      R().slot(dst.cb_slot_).memory != cannbot_ascendc::kMemBias) {
    return false;
  }
  cannbot_ascendc::Slot& from = CheckLocalBasic(src, bytes / sizeof(T), api);
  if (from.pending_mte2) {
    cannbot_ascendc::Violation("missing-sync",
                               "%s copies L1 data into the bias table before the DataCopy that "
                               "filled it was waited for (EnQue/DeQue, or "
                               "SetFlag/WaitFlag<HardEvent::MTE2_MTE1>)",
                               api);
  }
  cannbot_ascendc::Slot& to = CheckLocalBasic(dst, bytes / sizeof(T), api);
  std::memcpy(dst.cb_data_, src.cb_data_, bytes);
  to.pending_cube = true;
  cannbot_ascendc::Count(cannbot_ascendc::kCubeMoveBytes, bytes);
  return true;
}

template <typename T>
inline void UbToUb(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint32_t blocks,
                   uint64_t block_bytes, uint64_t src_pitch, uint64_t dst_pitch, const char* api) {
  if (blocks == 1 && L1ToBiasTable(dst, src, block_bytes, api)) return;
  CheckAlignment(dst, static_cast<const GlobalTensor<T>*>(nullptr), api);
  CheckAlignment(src, static_cast<const GlobalTensor<T>*>(nullptr), api);
  const uint64_t src_end = blocks == 0 ? 0 : (blocks - 1) * src_pitch + block_bytes;
  const uint64_t dst_end = blocks == 0 ? 0 : (blocks - 1) * dst_pitch + block_bytes;
  CheckLocal(src, src_end / sizeof(T), api, Access::kRead);
  CheckLocal(dst, dst_end / sizeof(T), api, Access::kWrite);
  for (uint32_t b = 0; b < blocks; ++b) {
    std::memmove(reinterpret_cast<uint8_t*>(dst.cb_data_) + b * dst_pitch,
                 reinterpret_cast<const uint8_t*>(src.cb_data_) + b * src_pitch, block_bytes);
  }
  const uint64_t bytes = static_cast<uint64_t>(blocks) * block_bytes;
  cannbot_ascendc::Count(cannbot_ascendc::kUbToUbBytes, bytes);
  cannbot_ascendc::CountVector(bytes, /*complex=*/false);
}

template <typename T>
inline void CheckWholeBlocks(uint32_t count, const char* api) {
  const uint64_t bytes = static_cast<uint64_t>(count) * sizeof(T);
  if (bytes % cannbot_ascendc::kBlockBytes != 0) {
    cannbot_ascendc::Violation(
        "copy-misaligned",
        "%s moves %u elements = %llu bytes, not a multiple of 32; DataCopy moves whole 32-byte "
        "blocks (the board rounds the length and moves the wrong data): use DataCopyPad for "
        "the tail",
        api, count, static_cast<unsigned long long>(bytes));
  }
}

inline void CheckBlockCount(uint32_t count, const char* api) {
  if (count == 0 || count > 4095) {
    cannbot_ascendc::Violation("bad-argument", "%s has blockCount %u; it must be 1..4095", api,
                               count);
  }
}

template <typename T>
inline CopyShape PadShapeIn(const DataCopyExtParams& p, uint8_t left, uint8_t right,
                            const char* api) {
  CheckBlockCount(p.blockCount, api);
  if (p.blockLen == 0 || p.blockLen % sizeof(T) != 0) {
    cannbot_ascendc::Violation("bad-argument",
                               "%s has blockLen %u bytes; it must be a positive multiple of the "
                               "element size",
                               api, p.blockLen);
  }
  CopyShape c;
  c.count = p.blockCount;
  c.block_bytes = p.blockLen;
  c.gm_pitch = static_cast<uint64_t>(p.blockLen) + p.srcStride;
  c.ub_lead = static_cast<uint64_t>(left) * sizeof(T);
  c.ub_footprint = RoundUp32(c.ub_lead + p.blockLen + static_cast<uint64_t>(right) * sizeof(T));
  c.ub_pitch = c.ub_footprint + static_cast<uint64_t>(p.dstStride) * cannbot_ascendc::kBlockBytes;
  return c;
}

template <typename T>
inline CopyShape PadShapeOut(const DataCopyExtParams& p, const char* api) {
  CheckBlockCount(p.blockCount, api);
  if (p.blockLen == 0 || p.blockLen % sizeof(T) != 0) {
    cannbot_ascendc::Violation("bad-argument",
                               "%s has blockLen %u bytes; it must be a positive multiple of the "
                               "element size",
                               api, p.blockLen);
  }
  CopyShape c;
  c.count = p.blockCount;
  c.block_bytes = p.blockLen;
  c.gm_pitch = static_cast<uint64_t>(p.blockLen) + p.dstStride;
  c.ub_pitch =
      RoundUp32(p.blockLen) + static_cast<uint64_t>(p.srcStride) * cannbot_ascendc::kBlockBytes;
  c.ub_footprint = RoundUp32(p.blockLen);
  return c;
}

}  // namespace cannbot_detail

// ---- DataCopy, count form: `count` elements, contiguous ----
template <typename T>
inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, uint32_t count) {
  const char* api = "DataCopy(GM->UB)";
  cannbot_detail::CheckWholeBlocks<T>(count, api);
  cannbot_detail::CopyShape c;
  c.block_bytes = static_cast<uint64_t>(count) * sizeof(T);
  c.ub_footprint = c.block_bytes;
  cannbot_detail::GmToUb(dst, src, c, false, T(0), api);
}
template <typename T>
inline void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, uint32_t count) {
  const char* api = "DataCopy(UB->GM)";
  cannbot_detail::CheckWholeBlocks<T>(count, api);
  cannbot_detail::CopyShape c;
  c.block_bytes = static_cast<uint64_t>(count) * sizeof(T);
  c.ub_footprint = c.block_bytes;
  cannbot_detail::UbToGm(dst, src, c, api);
}
template <typename T>
inline void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint32_t count) {
  const char* api = "DataCopy(UB->UB)";
  cannbot_detail::CheckWholeBlocks<T>(count, api);
  const uint64_t bytes = static_cast<uint64_t>(count) * sizeof(T);
  cannbot_detail::UbToUb(dst, src, 1, bytes, bytes, bytes, api);
}

// ---- DataCopy, block form: blockLen and strides in 32-byte units on both sides ----
template <typename T>
inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src,
                     const DataCopyParams& p) {
  const char* api = "DataCopy(GM->UB, DataCopyParams)";
  cannbot_detail::CheckBlockCount(p.blockCount, api);
  cannbot_detail::CopyShape c;
  c.count = p.blockCount;
  c.block_bytes = static_cast<uint64_t>(p.blockLen) * cannbot_ascendc::kBlockBytes;
  c.gm_pitch = static_cast<uint64_t>(p.blockLen + p.srcStride) * cannbot_ascendc::kBlockBytes;
  c.ub_pitch = static_cast<uint64_t>(p.blockLen + p.dstStride) * cannbot_ascendc::kBlockBytes;
  c.ub_footprint = c.block_bytes;
  cannbot_detail::GmToUb(dst, src, c, false, T(0), api);
}
template <typename T>
inline void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src,
                     const DataCopyParams& p) {
  const char* api = "DataCopy(UB->GM, DataCopyParams)";
  cannbot_detail::CheckBlockCount(p.blockCount, api);
  cannbot_detail::CopyShape c;
  c.count = p.blockCount;
  c.block_bytes = static_cast<uint64_t>(p.blockLen) * cannbot_ascendc::kBlockBytes;
  c.gm_pitch = static_cast<uint64_t>(p.blockLen + p.dstStride) * cannbot_ascendc::kBlockBytes;
  c.ub_pitch = static_cast<uint64_t>(p.blockLen + p.srcStride) * cannbot_ascendc::kBlockBytes;
  c.ub_footprint = c.block_bytes;
  cannbot_detail::UbToGm(dst, src, c, api);
}
template <typename T>
inline void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                     const DataCopyParams& p) {
  const char* api = "DataCopy(UB->UB, DataCopyParams)";
  cannbot_detail::CheckBlockCount(p.blockCount, api);
  const uint64_t block = static_cast<uint64_t>(p.blockLen) * cannbot_ascendc::kBlockBytes;
  cannbot_detail::UbToUb(
      dst, src, p.blockCount, block,
      static_cast<uint64_t>(p.blockLen + p.srcStride) * cannbot_ascendc::kBlockBytes,
      static_cast<uint64_t>(p.blockLen + p.dstStride) * cannbot_ascendc::kBlockBytes, api);
}

// ---- DataCopyPad: byte lengths; GM strides in bytes, UB strides in 32-byte units ----
template <typename T>
inline void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src,
                        const DataCopyExtParams& p, const DataCopyPadExtParams<T>& pad) {
  const char* api = "DataCopyPad(GM->UB)";
  const cannbot_detail::CopyShape c =
      cannbot_detail::PadShapeIn<T>(p, pad.leftPadding, pad.rightPadding, api);
  cannbot_detail::GmToUb(dst, src, c, pad.isPad, pad.paddingValue, api);
}
template <typename T>
inline void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src,
                        const DataCopyExtParams& p) {
  const char* api = "DataCopyPad(UB->GM)";
  cannbot_detail::UbToGm(dst, src, cannbot_detail::PadShapeOut<T>(p, api), api);
}
template <typename T>
inline void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src,
                        const DataCopyParams& p, const DataCopyPadParams& pad) {
  const DataCopyExtParams ext(p.blockCount, p.blockLen, p.srcStride, p.dstStride, 0);
  const DataCopyPadExtParams<T> pad_ext(pad.isPad, pad.leftPadding, pad.rightPadding,
                                        static_cast<T>(pad.paddingValue));
  DataCopyPad(dst, src, ext, pad_ext);
}
template <typename T>
inline void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src,
                        const DataCopyParams& p) {
  DataCopyPad(dst, src, DataCopyExtParams(p.blockCount, p.blockLen, p.srcStride, p.dstStride, 0));
}

}  // namespace AscendC

#endif  // CANNBOT_ASCENDC_COPY_H
