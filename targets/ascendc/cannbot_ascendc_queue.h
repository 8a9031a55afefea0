// cannbot_ascendc_queue.h: the pipe, queues, buffers and synchronisation of the emulation.
//
// TPipe / TQue / TQueBind / TBuf: UB (and cube memory) allocation with the budget
// (`ub-overflow`), queue depth (`queue-over-depth`), alloc/free pairing (`queue-exhausted`,
// `bad-free`, `use-after-free`, `tensor-leak`) and the copy/compute hand-offs that EnQue/DeQue,
// PipeBarrier and SetFlag/WaitFlag stand for (`missing-sync`): a pipe runs in order, so an
// event covers everything its pipe issued before it.
//
// Ownership: queues and buffers describe slots the Runtime owns for the block. Thread-safety:
// none.
#ifndef CANNBOT_ASCENDC_QUEUE_H
#define CANNBOT_ASCENDC_QUEUE_H

#include <cstdint>
#include <vector>

#include "cannbot_ascendc_runtime.h"
#include "cannbot_ascendc_tensor.h"

namespace AscendC {

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
    cannbot_ascendc::SendCount(cannbot_ascendc::CountKind::kEnqueue, cannbot_ascendc::R().block_idx(),
                               static_cast<uint64_t>(queue_), q.fifo.size());
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
  // An id reserved for the kernel until ReleaseEventID; ids come round as FetchEventID's do.
  template <HardEvent event>
  event_t AllocEventID() {
    return FetchEventID<event>();
  }
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

#endif  // CANNBOT_ASCENDC_QUEUE_H
