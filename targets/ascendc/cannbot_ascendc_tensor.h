// cannbot_ascendc_tensor.h: tensors, the pipe, queues and synchronisation of the emulation.
//
// GlobalTensor: a typed view of global memory. Its element access (GetValue, SetValue) goes
// through the scalar unit's data cache, checked like a copy and counted dear; the kernel
// receives GM addresses that are not even mapped, so a raw dereference of a GM_ADDR crashes,
// while GetPhyAddr gives a usable address (and the launch no speed estimate).
// LocalTensor: a typed view of one UB buffer. Element access (GetValue, SetValue, operator())
// is allowed and counted as scalar work.
// TPipe / TQue / TBuf: UB allocation with the budget (`ub-overflow`), queue depth
// (`queue-over-depth`), alloc/free pairing (`queue-exhausted`, `bad-free`, `use-after-free`,
// `tensor-leak`) and the copy/compute hand-offs that EnQue/DeQue, PipeBarrier and
// SetFlag/WaitFlag stand for (`missing-sync`).
//
// Ownership: tensors are small values that refer to UB buffers owned by the Runtime; they go
// stale (and are rejected) once the block that made them ends. Thread-safety: none.
#ifndef CANNBOT_ASCENDC_TENSOR_H
#define CANNBOT_ASCENDC_TENSOR_H

#include <cstdint>
#include <utility>

#include "cannbot_ascendc_runtime.h"

enum pipe_t { PIPE_S = 0, PIPE_V, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_ALL };

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

inline int64_t GetBlockIdx() {
  cannbot_ascendc::R().RequireBlock("GetBlockIdx");
  return cannbot_ascendc::R().block_idx();
}
inline int64_t GetBlockNum() {
  cannbot_ascendc::R().RequireBlock("GetBlockNum");
  return cannbot_ascendc::R().block_dim();
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
    ++rt.counters().gm_raw_pointers;
    return reinterpret_cast<T*>(at);
  }
  uint8_t* Element(uint64_t offset, bool write, const char* api) const {
    cannbot_ascendc::Runtime& rt = cannbot_ascendc::R();
    rt.RequireBlock(api);
    uint8_t* at = rt.TranslateGm(cb_addr_ + offset, sizeof(T), write,
                                 static_cast<int>(8 * sizeof(T)), api);
    cannbot_ascendc::Counters& c = rt.counters();
    ++c.scalar_ops;
    ++(write ? c.ub_to_gm_copies : c.gm_to_ub_copies);
    (write ? c.ub_to_gm_bytes : c.gm_to_ub_bytes) += cannbot_ascendc::kBlockBytes;
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
    ++cannbot_ascendc::R().counters().scalar_ops;
    return cb_data_[index];
  }
  template <typename U>
  void SetValue(uint32_t index, const U& value) const {
    cannbot_detail::CheckLocal(*this, static_cast<uint64_t>(index) + 1, "LocalTensor::SetValue",
                               cannbot_detail::Access::kWrite);
    ++cannbot_ascendc::R().counters().scalar_ops;
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
  T* GetPhyAddr() const { return cb_data_; }
  T* GetPhyAddr(uint32_t offset) const { return cb_data_ + offset; }
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

// ---------------------------------------------------------------------------------------------
class TPipe;

namespace cannbot_detail {
template <typename T>
inline LocalTensor<T> MakeLocal(int slot_index, uint32_t byte_offset, uint32_t bytes,
                                TPosition position) {
  cannbot_ascendc::Slot& s = cannbot_ascendc::R().slot(slot_index);
  if (!s.over_capacity.empty()) cannbot_ascendc::Violation("ub-overflow", "%s", s.over_capacity.c_str());
  LocalTensor<T> t;
  t.cb_data_ = reinterpret_cast<T*>(cannbot_ascendc::R().memory_base(s.memory) + s.ub_offset +
                                    byte_offset);
  t.cb_size_ = static_cast<uint32_t>(bytes / sizeof(T));
  t.cb_slot_ = slot_index;
  t.cb_gen_ = s.generation;
  t.cb_serial_ = cannbot_ascendc::R().block_serial();
  t.cb_ub_offset_ = s.ub_offset + byte_offset;
  t.cb_position_ = position;
  return t;
}

// A slot for memory the kernel manages itself (static tensor programming): no TPipe budget,
// but it must lie inside its memory, and UB counts towards the high-water mark.
inline int StaticSlot(int memory, uint64_t addr, uint64_t bytes, const char* api) {
  using cannbot_ascendc::R;
  R().RequireBlock(api);
  const uint32_t capacity = cannbot_ascendc::kMemoryBytes[memory];
  if (addr % cannbot_ascendc::kBlockBytes != 0 || addr + bytes > capacity) {
    cannbot_ascendc::Violation("ub-overflow",
                               "%s places %llu bytes at %s byte %llu; it must start 32-byte "
                               "aligned and end within the %u bytes of %s",
                               api, static_cast<unsigned long long>(bytes),
                               cannbot_ascendc::MemoryName(memory),
                               static_cast<unsigned long long>(addr), capacity,
                               cannbot_ascendc::MemoryName(memory));
  }
  if (memory == cannbot_ascendc::kMemUb) R().NoteStaticUb(static_cast<uint32_t>(addr + bytes));
  R().Touch(memory);
  return R().AddSlot(static_cast<uint32_t>(addr), static_cast<uint32_t>(bytes), -1, "", memory);
}
}  // namespace cannbot_detail

template <typename T>
LocalTensor<T>::LocalTensor(TPosition pos, uint32_t addr, uint32_t tileSize) {
  const uint64_t bytes = static_cast<uint64_t>(tileSize) * sizeof(T);
  *this = cannbot_detail::MakeLocal<T>(
      cannbot_detail::StaticSlot(cannbot_detail::MemoryOf(pos), addr, bytes, "LocalTensor"), 0,
      static_cast<uint32_t>(bytes), pos);
}

class TQueBase {
 public:
  TQueBase(TPosition position, int depth) : position_(position), depth_(depth) {}
  TQueBase(const TQueBase&) = delete;
  TQueBase& operator=(const TQueBase&) = delete;
  ~TQueBase() {
    using cannbot_ascendc::R;
    if (queue_ >= 0 && R().in_block() && serial_ == R().block_serial() && R().queue(queue_).alive) {
      R().CheckQueueDrained(queue_, "when its TQue was destroyed");
    }
  }

  template <typename T>
  LocalTensor<T> AllocTensor() {
    cannbot_ascendc::QueueState& q = State("TQue::AllocTensor");
    for (int k = 0; k < q.buffer_num; ++k) {
      const int index = q.first_slot + (next_ + k) % q.buffer_num;
      cannbot_ascendc::Slot& s = cannbot_ascendc::R().slot(index);
      if (s.allocated) continue;
      s.allocated = true;
      ++s.generation;
      s.pending_mte2 = false;
      s.pending_vec = false;
      s.pending_cube = false;
      next_ = (next_ + k + 1) % q.buffer_num;
      return cannbot_detail::MakeLocal<T>(index, 0, s.bytes, position_);
    }
    cannbot_ascendc::Violation(
        "queue-exhausted",
        "AllocTensor found all %d buffers of its queue in use; a tensor was not freed "
        "(FreeTensor) before the next allocation, which hangs the core on the board",
        q.buffer_num);
  }

  template <typename T>
  bool EnQue(const LocalTensor<T>& tensor) {
    cannbot_ascendc::QueueState& q = State("TQue::EnQue");
    cannbot_ascendc::Slot& s = Owned(tensor, "TQue::EnQue");
    if (s.in_queue) {
      cannbot_ascendc::Violation("queue-over-depth", "EnQue of a tensor that is already enqueued");
    }
    if (static_cast<int>(q.fifo.size()) >= q.depth) {
      cannbot_ascendc::Violation(
          "queue-over-depth",
          "EnQue on a queue that already holds %d tensor(s), its depth; DeQue before enqueueing "
          "more or raise the TQue depth",
          q.depth);
    }
    s.in_queue = true;
    q.fifo.push_back(tensor.cb_slot_);
    q.covered.push_back(CoveredByEnQue());
    ++q.enqueues;
    if (static_cast<int>(q.fifo.size()) > q.max_occupancy) {
      q.max_occupancy = static_cast<int>(q.fifo.size());
    }
    return true;
  }

  template <typename T>
  LocalTensor<T> DeQue() {
    cannbot_ascendc::QueueState& q = State("TQue::DeQue");
    if (q.fifo.empty()) {
      cannbot_ascendc::Violation("queue-empty",
                                 "DeQue on an empty queue; on the board it waits forever for an "
                                 "EnQue that never comes");
    }
    const int index = q.fifo.front();
    q.fifo.erase(q.fifo.begin());
    for (int other : q.covered.front()) SettleCovered(cannbot_ascendc::R().slot(other));
    q.covered.erase(q.covered.begin());
    cannbot_ascendc::Slot& s = cannbot_ascendc::R().slot(index);
    s.in_queue = false;
    // The EnQue/DeQue pair is the hand-off between pipes: the data is settled now.
    s.pending_mte2 = false;
    s.pending_vec = false;
    s.pending_cube = false;
    return cannbot_detail::MakeLocal<T>(index, 0, s.bytes, position_);
  }

  // The forms that name the hand-off's user positions (a TQueBind used in place, VECIN ->
  // VECOUT): the same queue operations; the positions document the pipes.
  template <TPosition kSrcUser, TPosition kDstUser, typename T>
  bool EnQue(const LocalTensor<T>& tensor) {
    return EnQue<T>(tensor);
  }
  template <TPosition kSrcUser, TPosition kDstUser, typename T>
  LocalTensor<T> DeQue() {
    return DeQue<T>();
  }

  template <typename T>
  void FreeTensor(const LocalTensor<T>& tensor) {
    State("TQue::FreeTensor");
    cannbot_ascendc::Slot& s = Owned(tensor, "TQue::FreeTensor");
    if (s.in_queue) {
      cannbot_ascendc::Violation("bad-free", "FreeTensor of a tensor that is still enqueued");
    }
    s.allocated = false;
    ++s.generation;
  }

  // What this queue's EnQue event covers besides its own tensor: a copy-in queue's event
  // (MTE2 -> V) every buffer with a copy in pending, a copy-out queue's (V -> MTE3) every
  // buffer with a vector write pending.
  std::vector<int> CoveredByEnQue() const {
    std::vector<int> covered;
    const std::vector<cannbot_ascendc::Slot>& slots = cannbot_ascendc::R().slots();
    for (size_t i = 0; i < slots.size(); ++i) {
      if ((CopiesIn() && slots[i].pending_mte2) || (CopiesOut() && slots[i].pending_vec)) {
        covered.push_back(static_cast<int>(i));
      }
    }
    return covered;
  }
  void SettleCovered(cannbot_ascendc::Slot& s) const {
    if (CopiesIn()) s.pending_mte2 = false;
    if (CopiesOut()) s.pending_vec = false;
  }
  bool CopiesIn() const { return position_ == TPosition::VECIN; }
  bool CopiesOut() const { return position_ == TPosition::VECOUT; }

  bool HasTensorInQue() { return !State("TQue::HasTensorInQue").fifo.empty(); }
  int32_t GetTensorCountInQue() {
    return static_cast<int32_t>(State("TQue::GetTensorCountInQue").fifo.size());
  }
  bool VacantInQue() {
    cannbot_ascendc::QueueState& q = State("TQue::VacantInQue");
    return static_cast<int>(q.fifo.size()) < q.depth;
  }

  // Called by TPipe::InitBuffer.
  void CbInit(int buffer_num, uint32_t len) {
    using cannbot_ascendc::R;
    if (queue_ >= 0 && serial_ == R().block_serial()) {
      cannbot_ascendc::Violation("bad-argument", "InitBuffer was called twice on one queue");
    }
    if (buffer_num < 1 || len == 0) {
      cannbot_ascendc::Violation("bad-argument",
                                 "InitBuffer(queue, num=%d, len=%u) needs num >= 1 and len > 0",
                                 buffer_num, len);
    }
    const uint32_t bytes = (len + cannbot_ascendc::kBlockBytes - 1) / cannbot_ascendc::kBlockBytes *
                           cannbot_ascendc::kBlockBytes;
    R().CheckBufferBudget(buffer_num, static_cast<int>(position_),
                          cannbot_detail::PositionName(position_));
    char what[96];
    std::snprintf(what, sizeof(what), "InitBuffer(queue, num=%d, len=%u)", buffer_num, len);
    std::string over;
    const int memory = cannbot_detail::MemoryOf(position_);
    const uint32_t offset = R().Allocate(
        memory, static_cast<uint64_t>(bytes) * static_cast<uint64_t>(buffer_num), what, &over);
    const int queue_index = static_cast<int>(R().queues().size());
    int first = -1;
    for (int i = 0; i < buffer_num; ++i) {
      const int index = R().AddSlot(offset + static_cast<uint32_t>(i) * bytes, bytes,
                                    queue_index, over, memory);
      if (i == 0) first = index;
    }
    queue_ = R().AddQueue(depth_, buffer_num, first, static_cast<int>(position_));
    serial_ = R().block_serial();
    next_ = 0;
  }
  int CbQueueIndex() const { return queue_; }

 private:
  cannbot_ascendc::QueueState& State(const char* api) {
    using cannbot_ascendc::R;
    R().RequireBlock(api);
    if (queue_ < 0 || serial_ != R().block_serial()) {
      cannbot_ascendc::Violation("queue-uninitialized",
                                 "%s on a queue that TPipe::InitBuffer never set up", api);
    }
    return R().queue(queue_);
  }
  template <typename T>
  cannbot_ascendc::Slot& Owned(const LocalTensor<T>& tensor, const char* api) {
    using cannbot_ascendc::R;
    if (tensor.cb_slot_ < 0 || tensor.cb_serial_ != R().block_serial() ||
        R().slot(tensor.cb_slot_).queue != queue_) {
      cannbot_ascendc::Violation("bad-free",
                                 "%s with a tensor that was not allocated from this queue", api);
    }
    cannbot_ascendc::Slot& s = R().slot(tensor.cb_slot_);
    if (!s.allocated || s.generation != tensor.cb_gen_) {
      cannbot_ascendc::Violation("bad-free", "%s with a tensor that was already freed", api);
    }
    return s;
  }

  TPosition position_;
  int depth_;
  int queue_ = -1;
  uint64_t serial_ = 0;
  int next_ = 0;
};

template <TPosition pos, int32_t depth = 1>
class TQue : public TQueBase {
  static_assert(pos != TPosition::GM && pos != TPosition::MAX,
                "cannbot ascendc emulation: a TQue lives in a core memory, not at GM");
  static_assert(depth >= 1, "cannbot ascendc emulation: a TQue needs depth >= 1");

 public:
  TQue() : TQueBase(pos, depth) {}
};

// TQueBind<src, dst, depth>: one queue whose buffers take data in at `src` and hand it out from
// `dst` (VECIN -> VECOUT for a copy with no compute in between; GM -> VECIN and VECOUT -> GM
// spell a plain input or output queue). The queue rules do not depend on the position, so it
// is a queue counted at its UB end for the per-position budget.
namespace cannbot_detail {
constexpr bool IsVectorPosition(TPosition p) {
  return p == TPosition::VECIN || p == TPosition::VECOUT || p == TPosition::VECCALC;
}
}  // namespace cannbot_detail
template <TPosition src, TPosition dst, int32_t depth = 1>
class TQueBind : public TQueBase {
  static_assert((cannbot_detail::IsVectorPosition(src) || src == TPosition::GM) &&
                    (cannbot_detail::IsVectorPosition(dst) || dst == TPosition::GM) &&
                    !(src == TPosition::GM && dst == TPosition::GM),
                "cannbot ascendc emulation: TQueBind supports the vector positions and GM only");

 public:
  TQueBind() : TQueBase(src == TPosition::GM ? dst : src, depth) {}
};

class TBufBase {
 public:
  explicit TBufBase(TPosition position) : position_(position) {}
  TBufBase(const TBufBase&) = delete;
  TBufBase& operator=(const TBufBase&) = delete;

  template <typename T>
  LocalTensor<T> Get() {
    if (!Initialised()) return Unusable<T>();
    return cannbot_detail::MakeLocal<T>(slot_, 0, cannbot_ascendc::R().slot(slot_).bytes,
                                        position_);
  }
  template <typename T>
  LocalTensor<T> Get(uint32_t len) {
    return GetWithOffset<T>(len, 0);
  }
  // A TBuf's tensor is not queued or allocated: freeing it is accepted and does nothing, as
  // on the device.
  template <typename T>
  void FreeTensor(const LocalTensor<T>&) {}
  template <typename T>
  LocalTensor<T> GetWithOffset(uint32_t size, uint32_t buf_offset) {
    if (!Initialised()) return Unusable<T>();
    const uint64_t bytes = static_cast<uint64_t>(size) * sizeof(T);
    const uint32_t capacity = cannbot_ascendc::R().slot(slot_).bytes;
    if (buf_offset + bytes > capacity) {
      cannbot_ascendc::Violation("ub-out-of-bounds",
                                 "TBuf::Get asks for %llu bytes at offset %u of a %u-byte buffer",
                                 static_cast<unsigned long long>(bytes), buf_offset, capacity);
    }
    return cannbot_detail::MakeLocal<T>(slot_, buf_offset, static_cast<uint32_t>(bytes), position_);
  }

  void CbInit(uint32_t len) {
    using cannbot_ascendc::R;
    if (len == 0) cannbot_ascendc::Violation("bad-argument", "InitBuffer(TBuf, len=0)");
    R().CheckBufferBudget(1, -1, "");
    char what[64];
    std::snprintf(what, sizeof(what), "InitBuffer(TBuf, len=%u)", len);
    const uint32_t bytes = (len + cannbot_ascendc::kBlockBytes - 1) / cannbot_ascendc::kBlockBytes *
                           cannbot_ascendc::kBlockBytes;
    std::string over;
    const int memory = cannbot_detail::MemoryOf(position_);
    const uint32_t offset = R().Allocate(memory, bytes, what, &over);
    slot_ = R().AddSlot(offset, bytes, -1, over, memory);
    serial_ = R().block_serial();
  }

 private:
  // On the device, Get on a TBuf InitBuffer never set up hands out a tensor at no buffer:
  // harmless until used, so the violation waits for the first use.
  bool Initialised() const {
    using cannbot_ascendc::R;
    R().RequireBlock("TBuf::Get");
    return slot_ >= 0 && serial_ == R().block_serial();
  }
  template <typename T>
  LocalTensor<T> Unusable() const {
    LocalTensor<T> t;
    t.cb_slot_ = cannbot_detail::kUninitialisedTBuf;
    t.cb_position_ = position_;
    return t;
  }
  TPosition position_;
  int slot_ = -1;
  uint64_t serial_ = 0;
};

template <TPosition pos = TPosition::VECCALC>
class TBuf : public TBufBase {
  static_assert(pos != TPosition::GM && pos != TPosition::MAX,
                "cannbot ascendc emulation: a TBuf lives in a core memory, not at GM");

 public:
  TBuf() : TBufBase(pos) {}
};

class TPipe;
namespace cannbot_detail {
inline TPipe*& CurrentPipe() {
  static TPipe* pipe = nullptr;
  return pipe;
}
}  // namespace cannbot_detail

class TPipe {
 public:
  TPipe() { cannbot_detail::CurrentPipe() = this; }
  ~TPipe() {
    if (cannbot_detail::CurrentPipe() == this) cannbot_detail::CurrentPipe() = nullptr;
  }
  TPipe(const TPipe&) = delete;
  TPipe& operator=(const TPipe&) = delete;

  bool InitBuffer(TQueBase& que, uint8_t num, uint32_t len) {
    cannbot_ascendc::R().RequireBlock("TPipe::InitBuffer");
    que.CbInit(num, len);
    return true;
  }
  bool InitBuffer(TBufBase& buf, uint32_t len) {
    cannbot_ascendc::R().RequireBlock("TPipe::InitBuffer");
    buf.CbInit(len);
    return true;
  }
  template <HardEvent event>
  event_t FetchEventID() {
    return static_cast<event_t>(next_event_++ & 7);
  }
  event_t FetchEventID(HardEvent) { return static_cast<event_t>(next_event_++ & 7); }
  template <HardEvent event>
  void ReleaseEventID(int32_t) {}
  void Reset() {}
  void Destroy() {}

 private:
  int next_event_ = 0;
};

}  // namespace AscendC
// CANN declares the pipe accessor at global scope; AscendC::GetTPipePtr names the same one.
inline AscendC::TPipe* GetTPipePtr() { return AscendC::cannbot_detail::CurrentPipe(); }
namespace AscendC {
using ::GetTPipePtr;

// ---------------------------------------------------------------------------------------------
// Synchronisation. Only the hand-offs the rules track have an effect: MTE2 -> (V, S, MTE3)
// settles GM->UB copies, (V, S) -> MTE3 settles writes before UB->GM copies.
namespace cannbot_detail {
constexpr bool SettlesCopyIn(HardEvent e) {
  return e == HardEvent::MTE2_V || e == HardEvent::MTE2_S || e == HardEvent::MTE2_MTE3 ||
         e == HardEvent::MTE2_MTE1 || e == HardEvent::MTE2_M || e == HardEvent::MTE2_FIX;
}
// LoadData's and Mmad's results, waited for by the cube unit or the read-out.
constexpr bool SettlesCube(HardEvent e) {
  return e == HardEvent::MTE1_M || e == HardEvent::M_FIX || e == HardEvent::M_V ||
         e == HardEvent::M_S;
}
constexpr bool SettlesWrites(HardEvent e) {
  return e == HardEvent::V_MTE3 || e == HardEvent::S_MTE3;
}
}  // namespace cannbot_detail

template <HardEvent event>
inline void SetFlag(int32_t event_id) {
  using cannbot_ascendc::R;
  R().RequireBlock("SetFlag");
  cannbot_ascendc::Event& ev = R().event(static_cast<int>(event), event_id);
  ev.set = true;
  ev.covered.clear();
  std::vector<cannbot_ascendc::Slot>& slots = R().slots();
  for (size_t i = 0; i < slots.size(); ++i) {
    if ((cannbot_detail::SettlesCopyIn(event) && slots[i].pending_mte2) ||
        (cannbot_detail::SettlesWrites(event) && slots[i].pending_vec) ||
        (cannbot_detail::SettlesCube(event) && slots[i].pending_cube)) {
      ev.covered.push_back(static_cast<int>(i));
    }
  }
}

template <HardEvent event>
inline void WaitFlag(int32_t event_id) {
  using cannbot_ascendc::R;
  R().RequireBlock("WaitFlag");
  cannbot_ascendc::Event& ev = R().event(static_cast<int>(event), event_id);
  if (!ev.set) {
    cannbot_ascendc::Violation("sync-deadlock",
                               "WaitFlag on event %d with no SetFlag before it; on the board the "
                               "pipe waits forever",
                               event_id);
  }
  for (int index : ev.covered) {
    cannbot_ascendc::Slot& s = R().slot(index);
    if (cannbot_detail::SettlesCopyIn(event)) s.pending_mte2 = false;
    if (cannbot_detail::SettlesWrites(event)) s.pending_vec = false;
    if (cannbot_detail::SettlesCube(event)) s.pending_cube = false;
  }
  ev.set = false;
  ev.covered.clear();
}

template <pipe_t pipe>
inline void PipeBarrier() {
  cannbot_ascendc::R().RequireBlock("PipeBarrier");
  if (pipe == PIPE_ALL) cannbot_ascendc::R().BarrierAll();
}

}  // namespace AscendC

inline void pipe_barrier(pipe_t pipe) {
  cannbot_ascendc::R().RequireBlock("pipe_barrier");
  if (pipe == PIPE_ALL) cannbot_ascendc::R().BarrierAll();
}

#endif  // CANNBOT_ASCENDC_TENSOR_H
