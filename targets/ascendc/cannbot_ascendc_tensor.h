// cannbot_ascendc_tensor.h: the positions, hardware events and tensors of the emulation (the
// pipe, queues, buffers and synchronisation that hand tensors out are cannbot_ascendc_queue.h).
//
// GlobalTensor: a typed view of global memory. Its element access (GetValue, SetValue) goes
// through the scalar unit's data cache, checked like a copy and counted dear; the kernel
// receives GM addresses that are not even mapped, so a raw dereference of a GM_ADDR crashes,
// while GetPhyAddr gives a usable address (and the launch no speed estimate).
// LocalTensor: a typed view of one UB buffer. Element access (GetValue, SetValue, operator())
// is allowed and counted as scalar work.
// A tensor used while stale, freed, enqueued or not yet synchronised is reported here
// (`use-after-free`, `missing-sync`).
//
// Ownership: tensors are small values that refer to UB buffers owned by the Runtime; they go
// stale (and are rejected) once the block that made them ends. Thread-safety: none.
#ifndef CANNBOT_ASCENDC_TENSOR_H
#define CANNBOT_ASCENDC_TENSOR_H

#include <cstdint>
#include <utility>

#include "cannbot_ascendc_runtime.h"

enum pipe_t { PIPE_S = 0, PIPE_V, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_ALL };
enum event_t : int32_t {
  EVENT_ID0 = 0,
  EVENT_ID1,
  EVENT_ID2,
  EVENT_ID3,
  EVENT_ID4,
  EVENT_ID5,
  EVENT_ID6,
  EVENT_ID7
};

namespace AscendC {

enum class TPosition : uint8_t {
  GM,
  A1,
  A2,
  B1,
  B2,
  C1,
  C2,
  CO1,
  CO2,
  VECIN,
  VECOUT,
  VECCALC,
  LCM = VECCALC,
  SPM,
  SHM,
  TSCM,
  MAX
};
using QuePosition = TPosition;

namespace cannbot_detail {
inline const char* PositionName(TPosition p) {
  static const char* const kNames[] = {"GM",  "A1",  "A2",     "B1",     "B2",      "C1",
                                       "C2",  "CO1", "CO2",    "VECIN",  "VECOUT",  "VECCALC",
                                       "SPM", "SHM", "TSCM"};
  const auto index = static_cast<size_t>(p);
  return index < sizeof(kNames) / sizeof(kNames[0]) ? kNames[index] : "?";
}
// The core memory a position's buffers live in: the cube's L1 (A1, B1, C1, TSCM), L0A (A2),
// L0B (B2), L0C (CO1), bias table (C2); everything else is the Unified Buffer (CO2 included,
// where a matrix result is staged for the vector unit).
constexpr int MemoryOf(TPosition p) {
  return p == TPosition::A1 || p == TPosition::B1 || p == TPosition::C1 || p == TPosition::TSCM
             ? cannbot_ascendc::kMemL1
         : p == TPosition::A2  ? cannbot_ascendc::kMemL0A
         : p == TPosition::B2  ? cannbot_ascendc::kMemL0B
         : p == TPosition::CO1 ? cannbot_ascendc::kMemL0C
         : p == TPosition::C2  ? cannbot_ascendc::kMemBias
                               : cannbot_ascendc::kMemUb;
}
}  // namespace cannbot_detail

enum class HardEvent : uint8_t {
  MTE2_V,
  MTE2_S,
  MTE2_MTE3,
  V_MTE2,
  V_MTE3,
  V_S,
  S_V,
  S_MTE2,
  S_MTE3,
  MTE3_V,
  MTE3_S,
  MTE3_MTE2,
  // The cube path: MTE1 is LoadData (L1 -> L0A/L0B), M the cube unit (Mmad), FIX the L0C
  // read-out (Fixpipe).
  MTE2_MTE1,
  MTE1_MTE2,
  MTE1_M,
  M_MTE1,
  M_FIX,
  FIX_M,
  M_V,
  V_M,
  MTE2_M,
  M_MTE2,
  FIX_MTE2,
  MTE2_FIX,
  FIX_S,
  M_S,
  MAX
};
// Event ids are global names on the device, like the pipes: kernels write EVENT_ID0 without
// AscendC::, and older code with it.
using ::event_t;
using ::EVENT_ID0;
using ::EVENT_ID1;
using ::EVENT_ID2;
using ::EVENT_ID3;
using ::EVENT_ID4;
using ::EVENT_ID5;
using ::EVENT_ID6;
using ::EVENT_ID7;

inline int64_t GetBlockIdx() {
  cannbot_ascendc::R().RequireBlock("GetBlockIdx");
  return cannbot_ascendc::R().block_idx();
}
inline int64_t GetBlockNum() {
  cannbot_ascendc::R().RequireBlock("GetBlockNum");
  return cannbot_ascendc::R().block_dim();
}
// The vector core's index inside its AI core in the MIX modes; cannbot's blocks are whole
// vector cores (AIV_ONLY), where it is 0.
inline int64_t GetSubBlockIdx() {
  cannbot_ascendc::R().RequireBlock("GetSubBlockIdx");
  return 0;
}

// ---------------------------------------------------------------------------------------------
template <typename T>
class GlobalTensor {
 public:
  GlobalTensor() = default;
  void SetGlobalBuffer(T* buffer, uint64_t size) {
    cb_addr_ = buffer;
    cb_size_ = size;
  }
  void SetGlobalBuffer(T* buffer) { SetGlobalBuffer(buffer, 0); }
  GlobalTensor operator[](uint64_t offset) const {
    GlobalTensor sub;
    sub.cb_addr_ = cb_addr_ + offset;
    sub.cb_size_ = cb_size_ > offset ? cb_size_ - offset : 0;
    return sub;
  }
  uint64_t GetSize() const { return cb_size_; }
  // The element's address, usable as on the device: the kernel may read and write through it
  // (inside the tensor). What moves through it is invisible to the counters, so a launch that
  // took one gets no speed estimate (gm_raw_pointers in its stats; docs/ascendc.md).
  T* GetPhyAddr() const { return PhyAddr(0); }
  T* GetPhyAddr(uint64_t offset) const { return PhyAddr(offset); }
  // One element through the scalar unit's data cache, as documented: legal, and counted as a
  // scalar access plus a 32-byte transfer each (far dearer than a DataCopy of many elements).
  T GetValue(uint64_t offset) const {
    T value;
    std::memcpy(&value, Element(offset, false, "GlobalTensor::GetValue"), sizeof(T));
    return value;
  }
  T operator()(uint64_t offset) const { return GetValue(offset); }
  void SetValue(uint64_t offset, T value) const {
    std::memcpy(Element(offset, true, "GlobalTensor::SetValue"), &value, sizeof(T));
  }

  T* cb_addr_ = nullptr;  // the kernel-visible GM address
  uint64_t cb_size_ = 0;  // elements, as the kernel declared them

 private:
  T* PhyAddr(uint64_t offset) const {
    if (cb_addr_ == nullptr) return nullptr;
    cannbot_ascendc::Runtime& rt = cannbot_ascendc::R();
    rt.RequireBlock("GlobalTensor::GetPhyAddr");
    uint8_t* at = rt.TranslateGm(cb_addr_ + offset, 0, false, static_cast<int>(8 * sizeof(T)),
                                 "GlobalTensor::GetPhyAddr", cannbot_ascendc::DtypeName<T>());
    cannbot_ascendc::Count(cannbot_ascendc::kGmRawPointers, 1);
    return reinterpret_cast<T*>(at);
  }
  uint8_t* Element(uint64_t offset, bool write, const char* api) const {
    cannbot_ascendc::Runtime& rt = cannbot_ascendc::R();
    rt.RequireBlock(api);
    uint8_t* at = rt.TranslateGm(cb_addr_ + offset, sizeof(T), write,
                                 static_cast<int>(8 * sizeof(T)), api);
    cannbot_ascendc::Count(cannbot_ascendc::kScalarOps, 1);
    cannbot_ascendc::Count(write ? cannbot_ascendc::kUbToGmCopies : cannbot_ascendc::kGmToUbCopies, 1);
    cannbot_ascendc::Count(write ? cannbot_ascendc::kUbToGmBytes : cannbot_ascendc::kGmToUbBytes,
                           cannbot_ascendc::kBlockBytes);
    return at;
  }
};

// ---------------------------------------------------------------------------------------------
template <typename T>
class LocalTensor;

namespace cannbot_detail {
enum class Access { kRead, kWrite, kReadWrite };
// The slot of a tensor TBuf::Get handed out from a TBuf never set up.
constexpr int kUninitialisedTBuf = -2;

// Validates a LocalTensor for `elements` elements: it belongs to this block, is not freed or
// enqueued, and is large enough. Pipe hand-offs are the caller's concern.
template <typename T>
inline cannbot_ascendc::Slot& CheckLocalBasic(const LocalTensor<T>& t, uint64_t elements,
                                              const char* api) {
  using cannbot_ascendc::R;
  using cannbot_ascendc::Violation;
  R().RequireBlock(api);
  if (t.cb_slot_ == kUninitialisedTBuf) {
    Violation("queue-uninitialized",
              "%s uses a tensor from a TBuf that TPipe::InitBuffer never set up", api);
  }
  if (t.cb_slot_ < 0 || t.cb_serial_ != R().block_serial()) {
    Violation("invalid-tensor",
              "%s uses a LocalTensor that did not come from AllocTensor, DeQue or TBuf::Get in "
              "this kernel launch",
              api);
  }
  cannbot_ascendc::Slot& s = R().slot(t.cb_slot_);
  if (s.queue >= 0 && (!s.allocated || s.generation != t.cb_gen_)) {
    Violation("use-after-free",
              "%s uses a LocalTensor after FreeTensor returned its buffer to the queue; the "
              "buffer may already hold the next tile",
              api);
  }
  if (elements > t.cb_size_) {
    Violation("ub-out-of-bounds",
              "%s works on %llu elements of a LocalTensor that holds only %u; it would run into "
              "the neighbouring %s buffer",
              api, static_cast<unsigned long long>(elements), t.cb_size_,
              cannbot_ascendc::MemoryName(s.memory));
  }
  if (s.in_queue) {
    Violation("missing-sync",
              "%s uses a LocalTensor that is enqueued and not yet dequeued; after EnQue the "
              "tensor belongs to the next pipeline stage",
              api);
  }
  return s;
}

// CheckLocalBasic plus the hand-off rule for vector and scalar code: data copied in from GM
// must have been waited for. Writes mark the buffer for the UB->GM rule.
template <typename T>
inline cannbot_ascendc::Slot& CheckLocal(const LocalTensor<T>& t, uint64_t elements,
                                         const char* api, Access access) {
  using cannbot_ascendc::Violation;
  cannbot_ascendc::Slot& s = CheckLocalBasic(t, elements, api);
  if (s.memory != cannbot_ascendc::kMemUb) {
    Violation("wrong-position",
              "%s works on a LocalTensor at TPosition::%s, in %s; vector instructions and scalar "
              "element access reach only the Unified Buffer (VECIN, VECOUT, VECCALC, CO2)",
              api, PositionName(t.cb_position_), cannbot_ascendc::MemoryName(s.memory));
  }
  if (s.pending_mte2) {
    Violation("missing-sync",
              "%s uses a LocalTensor whose DataCopy from global memory has not been waited for; "
              "pass it through EnQue/DeQue (or SetFlag/WaitFlag<HardEvent::MTE2_V>, "
              "PipeBarrier<PIPE_ALL>) first",
              api);
  }
  if (access != Access::kRead) s.pending_vec = true;
  return s;
}
}  // namespace cannbot_detail

// A reference to one UB element that counts as scalar work when read or written.
template <typename T>
class ElementRef {
 public:
  ElementRef(const LocalTensor<T>& tensor, uint32_t index) : tensor_(tensor), index_(index) {}
  operator T() const { return tensor_.GetValue(index_); }
  template <typename U>
  ElementRef& operator=(const U& v) {
    tensor_.SetValue(index_, v);
    return *this;
  }
  ElementRef& operator=(const ElementRef& other) { return *this = static_cast<T>(other); }
  template <typename U>
  ElementRef& operator+=(const U& v) {
    return *this = static_cast<T>(static_cast<T>(*this) + v);
  }
  template <typename U>
  ElementRef& operator-=(const U& v) {
    return *this = static_cast<T>(static_cast<T>(*this) - v);
  }
  template <typename U>
  ElementRef& operator*=(const U& v) {
    return *this = static_cast<T>(static_cast<T>(*this) * v);
  }
  template <typename U>
  ElementRef& operator/=(const U& v) {
    return *this = static_cast<T>(static_cast<T>(*this) / v);
  }

 private:
  LocalTensor<T> tensor_;
  uint32_t index_;
};

template <typename T>
class LocalTensor {
 public:
  LocalTensor() = default;
  LocalTensor(const LocalTensor&) = default;
  LocalTensor& operator=(const LocalTensor&) = default;
  // `dst = src0 * src1`: the operator form of a vector instruction over the whole tensor
  // (cannbot_ascendc_vector.h, WholeTensor), run as the instruction on dst's elements.
  template <typename Expr, typename = decltype(std::declval<const Expr&>().AssignTo(
                               std::declval<const LocalTensor&>()))>
  LocalTensor& operator=(const Expr& expr) {
    expr.AssignTo(*this);
    return *this;
  }
  // Static tensor programming: `tileSize` elements at byte `addr` of the UB, outside any
  // TPipe buffer (the kernel manages the space; cannbot checks it fits in the UB).
  LocalTensor(TPosition pos, uint32_t addr, uint32_t tileSize);

  T GetValue(uint32_t index) const {
    cannbot_detail::CheckLocal(*this, static_cast<uint64_t>(index) + 1, "LocalTensor::GetValue",
                               cannbot_detail::Access::kRead);
    cannbot_ascendc::Count(cannbot_ascendc::kScalarOps, 1);
    return cb_data_[index];
  }
  template <typename U>
  void SetValue(uint32_t index, const U& value) const {
    cannbot_detail::CheckLocal(*this, static_cast<uint64_t>(index) + 1, "LocalTensor::SetValue",
                               cannbot_detail::Access::kWrite);
    cannbot_ascendc::Count(cannbot_ascendc::kScalarOps, 1);
    cb_data_[index] = static_cast<T>(value);
  }
  ElementRef<T> operator()(uint32_t index) const { return ElementRef<T>(*this, index); }

  LocalTensor operator[](uint32_t offset) const {
    if (offset > cb_size_) {
      cannbot_ascendc::Violation("ub-out-of-bounds",
                                 "LocalTensor::operator[] offset %u is past the tensor's %u "
                                 "elements",
                                 offset, cb_size_);
    }
    LocalTensor sub = *this;
    sub.cb_data_ = cb_data_ + offset;
    sub.cb_size_ = cb_size_ - offset;
    sub.cb_ub_offset_ = cb_ub_offset_ + offset * static_cast<uint32_t>(sizeof(T));
    return sub;
  }
  template <typename U>
  LocalTensor<U> ReinterpretCast() const {
    LocalTensor<U> other;
    other.cb_data_ = reinterpret_cast<U*>(cb_data_);
    other.cb_size_ = static_cast<uint32_t>(cb_size_ * sizeof(T) / sizeof(U));
    other.cb_slot_ = cb_slot_;
    other.cb_gen_ = cb_gen_;
    other.cb_serial_ = cb_serial_;
    other.cb_ub_offset_ = cb_ub_offset_;
    other.cb_position_ = cb_position_;
    return other;
  }
  uint32_t GetSize() const { return cb_size_; }
  uint32_t GetLength() const { return cb_size_ * static_cast<uint32_t>(sizeof(T)); }
  void SetSize(uint32_t size) {
    if (size > cb_size_) {
      cannbot_ascendc::Violation("ub-out-of-bounds",
                                 "LocalTensor::SetSize(%u) grows a tensor of %u elements", size,
                                 cb_size_);
    }
    cb_size_ = size;
  }
  // The element's address in the emulated UB, usable as on the device (where it is a UB
  // pointer). Reads and writes through it are neither checked nor counted.
  // A usable address, as on the device (register loads and stores take it); one into the UB
  // is counted, since scalar work done through it is invisible to the counters.
  T* GetPhyAddr() const { return GetPhyAddr(0); }
  T* GetPhyAddr(uint32_t offset) const {
    const uint8_t* base = cannbot_ascendc::R().ub_base();
    const uint8_t* at = reinterpret_cast<const uint8_t*>(cb_data_);
    if (at >= base && at < base + cannbot_ascendc::kUbBytes) {
      cannbot_ascendc::Count(cannbot_ascendc::kUbRawPointers, 1);
    }
    return cb_data_ + offset;
  }
  TPosition GetPosition() const { return cb_position_; }

  // Emulation internals: public so the API templates can reach them across element types.
  T* cb_data_ = nullptr;
  uint32_t cb_size_ = 0;  // elements
  int cb_slot_ = -1;
  uint32_t cb_gen_ = 0;
  uint64_t cb_serial_ = 0;     // the block that made the tensor
  uint32_t cb_ub_offset_ = 0;  // byte offset in UB (alignment checks)
  TPosition cb_position_ = TPosition::VECCALC;
};

}  // namespace AscendC

#endif  // CANNBOT_ASCENDC_TENSOR_H
