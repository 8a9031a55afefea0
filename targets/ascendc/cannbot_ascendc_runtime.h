// cannbot_ascendc_runtime.h: the state behind cannbot's CPU emulation of Ascend C.
//
// One Runtime per process holds what a launch needs: the global-memory (GM) regions of the
// launch's tensors, the Unified Buffer (UB) of the block that is running, the buffers and
// queues carved out of it, pending-synchronisation marks, and the counters the cost model
// reads. The API headers (tensor, copy, vector) check the hardware's rules against this state
// and report a broken rule with Violation(), which prints one line and aborts: on the board the
// same kernel would compute garbage, hang, or corrupt memory, so there is nothing to recover.
//
// Output lines (the only ones this emulation writes, always on stdout, one per line):
//   cannbot-ascendc-violation: <rule>: <one sentence>
//   cannbot-ascendc-stats: {json}          (written by the launcher, cannbot_launch.h)
//
// Ownership: the Runtime owns the UB storage; GM storage belongs to the launcher, which
// registers and unregisters it. Thread-safety: none. Blocks run one after another on the
// calling thread, which keeps the emulation deterministic; a block that waits at SyncAll is
// set aside until the others reach it (cannbot_ascendc_blocks.h).
#ifndef CANNBOT_ASCENDC_RUNTIME_H
#define CANNBOT_ASCENDC_RUNTIME_H

#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "cannbot_ascendc_count_channel.h"
#include "cannbot_ascendc_counters.h"
#include "cannbot_tiling.h"

namespace cannbot_ascendc {

constexpr uint32_t kBlockBytes = 32;    // one DataBlock: the unit of copies and UB addresses
constexpr uint32_t kRepeatBytes = 256;  // one vector repeat
constexpr uint32_t kUbBytes = CANNBOT_UB_BYTES;
// The cube unit's memories (CANNBOT_L1_BYTES ... in cannbot_tiling.h): L1 holds A1/B1/C1
// buffers, L0A the left operand (A2), L0B the right one (B2), L0C the results (CO1), the bias
// table C2.
constexpr uint32_t kBiasTableBytes = 1024;
enum Memory : uint8_t { kMemUb = 0, kMemL1, kMemL0A, kMemL0B, kMemL0C, kMemBias, kMemCount };
constexpr uint32_t kMemoryBytes[kMemCount] = {kUbBytes,          CANNBOT_L1_BYTES,
                                              CANNBOT_L0A_BYTES, CANNBOT_L0B_BYTES,
                                              CANNBOT_L0C_BYTES, kBiasTableBytes};
inline const char* MemoryName(int memory) {
  static const char* const kNames[kMemCount] = {"Unified Buffer", "L1", "L0A", "L0B", "L0C",
                                                "bias table"};
  return memory >= 0 && memory < kMemCount ? kNames[memory] : "?";
}
// InitBuffer's budgets (docs/ascendc.md, "The rules"): queue buffers on one TPosition, and
// buffers of every kind in one kernel.
constexpr int kQueBuffersPerPosition = CANNBOT_QUE_BUFFERS_PER_POSITION;
constexpr size_t kBuffersPerKernel = 64;

// Prints `cannbot-ascendc-violation: <rule>: <message>` on one line and aborts. The message is
// printf-style; newlines in it are replaced so the report stays one line.
[[noreturn]] inline void Violation(const char* rule, const char* format, ...)
    __attribute__((format(printf, 2, 3)));
inline void Violation(const char* rule, const char* format, ...) {
  char message[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(message, sizeof(message), format, args);
  va_end(args);
  for (char* c = message; *c != '\0'; ++c) {
    if (*c == '\n' || *c == '\r') *c = ' ';
  }
  std::fflush(stdout);
  std::printf("cannbot-ascendc-violation: %s: %s\n", rule, message);
  std::fflush(stdout);
  std::abort();
}

// One buffer in a core memory: a queue buffer (one of InitBuffer's `num`) or a TBuf.
struct Slot {
  uint8_t memory = kMemUb;  // which memory ub_offset is in (Memory)
  uint32_t ub_offset = 0;
  uint32_t bytes = 0;
  int queue = -1;             // owning queue index, -1 for a TBuf
  uint32_t generation = 0;    // bumped by every AllocTensor and FreeTensor
  bool allocated = false;     // queue buffers: between AllocTensor and FreeTensor
  bool in_queue = false;      // between EnQue and DeQue
  bool pending_mte2 = false;  // written by a GM->UB copy not yet synchronised to its readers
  bool pending_vec = false;   // written by vector/scalar code not yet synchronised to MTE3
  bool pending_cube = false;  // written by LoadData or Mmad, not yet synchronised to its reader
  // InitBuffer placed it (partly) past the end of UB: on the board its address is outside the
  // buffer, harmless until a tensor of it is used; the ub-overflow violation waits for that.
  std::string over_capacity;
};

struct QueueState {
  int depth = 1;       // TQue's template depth: tensors that may wait in the queue
  int buffer_num = 0;  // InitBuffer's num: buffers the queue rotates through
  int position = -1;   // the TQue's TPosition
  int first_slot = 0;
  bool alive = true;
  bool carried_copies = false;  // a DataCopy between GM and one of its buffers happened
  uint64_t enqueues = 0;
  int max_occupancy = 0;
  std::vector<int> fifo;  // slot indices, oldest first
  // Per enqueued tensor: the other buffers whose copy or write its EnQue's event also covers.
  // A pipe runs in order, so the event set after a copy in (or a vector write) is set after
  // every earlier one of that pipe too: waiting for it (DeQue) settles them all, as WaitFlag
  // does for SetFlag.
  std::vector<std::vector<int>> covered;
};

// A GM range the kernel may reach through DataCopy. `view` is the address the kernel sees;
// `data` is where the bytes live (different when the launcher hides GM behind PROT_NONE).
struct GmRegion {
  const uint8_t* view = nullptr;
  uint64_t bytes = 0;
  uint8_t* data = nullptr;
  bool writable = false;
  int dtype_bits = 0;  // 0: any element type (the tiling block)
  const char* kind = "";
  int index = 0;
  // A sample's discovery run (cannbot_sample.h): print the element type of the first copy that
  // touches this region, once, as `cannbot-sample-type: <index> <dtype>`.
  bool report_type = false;
};

// The dtype names of ascendc/launch_dtype.h for the element types a GlobalTensor may have.
template <typename T> inline const char* DtypeName() { return "unknown"; }
template <> inline const char* DtypeName<float>() { return "float32"; }
template <> inline const char* DtypeName<_Float16>() { return "float16"; }
template <> inline const char* DtypeName<bfloat16_t>() { return "bfloat16"; }
template <> inline const char* DtypeName<int8_t>() { return "int8"; }
template <> inline const char* DtypeName<uint8_t>() { return "uint8"; }
template <> inline const char* DtypeName<int16_t>() { return "int16"; }
template <> inline const char* DtypeName<uint16_t>() { return "uint16"; }
template <> inline const char* DtypeName<int32_t>() { return "int32"; }
template <> inline const char* DtypeName<uint32_t>() { return "uint32"; }
template <> inline const char* DtypeName<int64_t>() { return "int64"; }
template <> inline const char* DtypeName<uint64_t>() { return "uint64"; }

// The vector mask register (SetVectorMask, SetMaskCount/SetMaskNorm, ResetMask): in normal mode
// bit j of {low, high} lets lane j of every repeat take part; in counter mode `low` is the number
// of elements an instruction takes. Each block starts in normal mode with every lane on.
struct VectorMask {
  bool counter = false;
  uint64_t low = ~0ull;
  uint64_t high = ~0ull;
};

struct Event {
  bool set = false;
  std::vector<int> covered;  // slots whose pending mark the matching WaitFlag clears
};

// SetAtomicAdd/Max/Min: how a copy out to global memory (DataCopy, DataCopyPad, Fixpipe)
// combines with what is there; kNone overwrites. `type` names the element type it was set for.
enum class AtomicOp : uint8_t { kNone, kAdd, kMax, kMin };
struct AtomicMode {
  AtomicOp op = AtomicOp::kNone;
  const char* type = "";
};

class BlockScheduler;  // cannbot_ascendc_blocks.h

class Runtime {
 public:
  static Runtime& Get() {
    static Runtime runtime;
    return runtime;
  }

  // ---- launch and block lifecycle (used by the launcher) ----
  void BeginLaunch(uint32_t block_dim) {
    in_launch_ = true;
    block_dim_ = block_dim;
    regions_.clear();
  }
  void EndLaunch() {
    in_launch_ = false;
    in_block_ = false;
    regions_.clear();
  }
  void AddRegion(const GmRegion& region) { regions_.push_back(region); }
  // Whether the tiling asked for a workspace (the hard SyncAll needs one).
  void set_has_workspace(bool has) { has_workspace_ = has; }
  bool has_workspace() const { return has_workspace_; }
  // The tiling key the host tiling chose (TILING_KEY_IS); 0 when it set none.
  void set_tiling_key(uint64_t key) { tiling_key_ = key; }
  uint64_t tiling_key() const { return tiling_key_; }
  // TILING_KEY_IS(key): remembers the keys a block asks about, so a block that asked about
  // some but never about the one the tiling chose is reported when it returns.
  bool TilingKeyIs(uint64_t key) {
    if (key == tiling_key_) key_matched_ = true;
    if (asked_keys_.size() < 8) asked_keys_.push_back(key);
    return key == tiling_key_;
  }

  void BeginBlock(uint32_t index) {
    in_block_ = true;
    block_idx_ = index;
    block_serial_ = ++next_serial_;
    for (uint64_t& used : used_) used = 0;
    touched_ = 1u << kMemUb;
    ub_high_water_ = 0;
    for (uint64_t& mark : high_water_) mark = 0;
    slots_.clear();
    queues_.clear();
    events_.clear();
    counters_ = Counters();
    vector_mask_ = VectorMask();
    atomic_ = AtomicMode();
    cube_core_ = false;
    deq_scale_ = 1.0f;
    pipe_all_barriers_ = 0;
    asked_keys_.clear();
    key_matched_ = false;
    // Uninitialised UB reads as NaN, so a kernel that computes on bytes it never loaded fails
    // the numeric check instead of passing by luck.
    std::memset(ub_, 0xFF, sizeof(ub_));
  }
  // Checks the end-of-kernel rules for the block that just returned.
  void EndBlock() {
    for (size_t q = 0; q < queues_.size(); ++q) {
      if (queues_[q].alive) CheckQueueDrained(static_cast<int>(q), "when the kernel returned");
    }
    if (!asked_keys_.empty() && !key_matched_) {
      char keys[160] = "";
      for (size_t i = 0; i < asked_keys_.size(); ++i) {
        const size_t used = std::strlen(keys);
        std::snprintf(keys + used, sizeof(keys) - used, "%s%llu", i ? ", " : "",
                      static_cast<unsigned long long>(asked_keys_[i]));
      }
      Violation("tiling-key",
                "the tiling chose key %llu but the kernel handles only %s (TILING_KEY_IS): "
                "block %u did nothing",
                static_cast<unsigned long long>(tiling_key_), keys, block_idx_);
    }
    in_block_ = false;
  }

  // A block waiting at SyncAll is set aside whole (its buffers, queues, events and counters)
  // while the other blocks run, and put back when it resumes; the launch's own state (its GM
  // regions, serial numbers and scheduler) stays as it is. Moved, not copied: the next block's
  // BeginBlock starts from nothing anyway, and moves compile to far less code.
  Runtime* SaveBlock() {
    auto* saved = new Runtime(std::move(*this));
    regions_ = std::move(saved->regions_);
    return saved;
  }
  void RestoreBlock(Runtime&& saved) {
    std::vector<GmRegion> regions = std::move(regions_);
    const uint64_t next_serial = next_serial_;
    BlockScheduler* scheduler = scheduler_;
    *this = std::move(saved);
    regions_ = std::move(regions);
    next_serial_ = next_serial;
    scheduler_ = scheduler;
  }
  void set_scheduler(BlockScheduler* scheduler) { scheduler_ = scheduler; }
  BlockScheduler* scheduler() const { return scheduler_; }

  // ---- state the API headers use ----
  bool in_block() const { return in_block_; }
  uint32_t block_idx() const { return block_idx_; }
  uint32_t block_dim() const { return block_dim_; }
  uint64_t block_serial() const { return block_serial_; }
  Counters& counters() { return counters_; }
  VectorMask& vector_mask() { return vector_mask_; }
  AtomicMode& atomic() { return atomic_; }
  // KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIC_ONLY): the block runs as a cube core.
  void set_cube_core(bool cube) { cube_core_ = cube; }
  bool cube_core() const { return cube_core_; }
  // SetDeqScale(half): the DEQSCALE register, which Cast int32 -> half multiplies by.
  void set_deq_scale(float scale) { deq_scale_ = scale; }
  float deq_scale() const { return deq_scale_; }
  uint32_t ub_high_water() const { return ub_high_water_; }
  // The most of a cube memory (kMemL1 ... kMemL0C) the block's buffers took.
  uint64_t high_water(int memory) const { return high_water_[memory]; }
  uint64_t pipe_all_barriers() const { return pipe_all_barriers_; }
  const std::vector<QueueState>& queues() const { return queues_; }
  uint8_t* ub_base() { return ub_; }
  uint8_t* memory_base(int memory) {
    uint8_t* const bases[kMemCount] = {ub_, l1_, l0a_, l0b_, l0c_, bias_};
    return bases[memory];
  }

  void RequireBlock(const char* api) {
    if (!in_block_) {
      Violation("launch-contract",
                "%s was called outside a kernel launch; Ascend C device code runs only inside "
                "the __global__ kernel that the launcher starts",
                api);
    }
  }

  // Carves `bytes` (rounded up to 32) out of the block's `memory`, in order, as TPipe does. A
  // buffer that ends past the memory is placed there anyway, as on the board, and `*over` says
  // why it is unusable: the first tensor taken from it is the ub-overflow violation
  // (MakeLocal), while a kernel that never touches it (a scratch buffer only another dtype's
  // branch uses) runs as it does on the device.
  uint32_t Allocate(int memory, uint64_t bytes, const char* what, std::string* over) {
    const uint32_t capacity = kMemoryBytes[memory];
    const char* name = MemoryName(memory);
    Touch(memory);
    const uint64_t rounded = (bytes + kBlockBytes - 1) / kBlockBytes * kBlockBytes;
    const uint64_t end = used_[memory] + rounded;
    if (end > (uint64_t{1} << 31)) {  // no address space left to place it in, even lazily
      Violation("ub-overflow", "%s asks for %llu bytes of %s; the core has %u", what,
                static_cast<unsigned long long>(rounded), name, capacity);
    }
    if (end > capacity) {
      char text[320];
      std::snprintf(text, sizeof(text),
                    "%s asked for %llu bytes of %s when %llu of the %u bytes per core were "
                    "already taken by earlier InitBuffer calls, so the buffer lies outside the "
                    "%s, and a tensor of it is used here; count every queue times its buffer "
                    "number plus every TBuf and shrink the tiles",
                    what, static_cast<unsigned long long>(rounded), name,
                    static_cast<unsigned long long>(used_[memory]), capacity, name);
      *over = text;
    } else if (memory == kMemUb && end > ub_high_water_) {
      ub_high_water_ = static_cast<uint32_t>(end);
      SendCount(CountKind::kHighWater, block_idx_, kMemUb, end);
    } else if (memory != kMemUb && end > high_water_[memory]) {
      high_water_[memory] = end;
      SendCount(CountKind::kHighWater, block_idx_, static_cast<uint64_t>(memory), end);
    }
    const uint32_t offset = static_cast<uint32_t>(used_[memory]);
    used_[memory] = end;
    return offset;
  }
  // Unwritten cube memory reads as NaN too: filled once per block, only where a kernel uses
  // it (the UB is filled at BeginBlock).
  void Touch(int memory) {
    if ((touched_ & (1u << memory)) != 0) return;
    std::memset(memory_base(memory), 0xFF, kMemoryBytes[memory]);
    touched_ |= 1u << memory;
  }

  // UB the kernel manages itself (static tensors) reaches up to `end`.
  void NoteStaticUb(uint32_t end) {
    if (end > ub_high_water_) {
      ub_high_water_ = end;
      SendCount(CountKind::kHighWater, block_idx_, kMemUb, end);
    }
  }
  int AddSlot(uint32_t ub_offset, uint32_t bytes, int queue, const std::string& over = "",
              int memory = kMemUb) {
    Slot s;
    s.memory = static_cast<uint8_t>(memory);
    s.ub_offset = ub_offset;
    s.bytes = bytes;
    s.queue = queue;
    // Only the buffers of a queue that end past the memory are unusable.
    if (!over.empty() && static_cast<uint64_t>(ub_offset) + bytes > kMemoryBytes[memory]) {
      s.over_capacity = over;
    }
    slots_.push_back(s);
    return static_cast<int>(slots_.size()) - 1;
  }
  Slot& slot(int index) { return slots_[static_cast<size_t>(index)]; }
  std::vector<Slot>& slots() { return slots_; }

  // Before `adding` more buffers (a queue's at `position`, or -1 for a TBuf): beyond these
  // budgets AllocTensor fails on the board, so the emulation stops at the InitBuffer.
  void CheckBufferBudget(int adding, int position, const char* position_name) {
    if (position >= 0) {
      int at_position = adding;
      for (const QueueState& q : queues_) {
        if (q.position == position) at_position += q.buffer_num;
      }
      if (at_position > kQueBuffersPerPosition) {
        Violation("too-many-buffers",
                  "InitBuffer(queue, num=%d) makes %d queue buffers at TPosition::%s; the device "
                  "allows %d per position (AllocTensor fails beyond that): merge tiles into fewer, "
                  "larger buffers",
                  adding, at_position, position_name, kQueBuffersPerPosition);
      }
    }
    if (slots_.size() + static_cast<size_t>(adding) > kBuffersPerKernel) {
      Violation("too-many-buffers",
                "InitBuffer makes %zu buffers in one kernel (queue buffers and TBufs); the device "
                "allows %zu",
                slots_.size() + static_cast<size_t>(adding), kBuffersPerKernel);
    }
  }

  int AddQueue(int depth, int buffer_num, int first_slot, int position) {
    QueueState q;
    q.depth = depth;
    q.buffer_num = buffer_num;
    q.position = position;
    q.first_slot = first_slot;
    queues_.push_back(q);
    SendCount(CountKind::kQueue, block_idx_, queues_.size() - 1, static_cast<uint64_t>(buffer_num));
    return static_cast<int>(queues_.size()) - 1;
  }
  QueueState& queue(int index) { return queues_[static_cast<size_t>(index)]; }

  // Every buffer of the queue freed and nothing left in it; `when` completes the sentence.
  void CheckQueueDrained(int q, const char* when) {
    QueueState& queue = queues_[static_cast<size_t>(q)];
    int allocated = 0, waiting = static_cast<int>(queue.fifo.size());
    for (int i = 0; i < queue.buffer_num; ++i) {
      if (slots_[static_cast<size_t>(queue.first_slot + i)].allocated) ++allocated;
    }
    if (allocated > 0) {
      Violation("tensor-leak",
                "a queue still had %d tensor(s) allocated (%d of them enqueued and never "
                "dequeued) %s; every AllocTensor needs a FreeTensor and every EnQue a DeQue, or "
                "the next AllocTensor on the board waits forever",
                allocated, waiting, when);
    }
    queue.alive = false;
  }

  // Pipe synchronisation: PipeBarrier<PIPE_ALL> settles every pending copy and write.
  void BarrierAll() {
    ++pipe_all_barriers_;
    SendCount(CountKind::kBarrierAll, block_idx_, 0, 1);
    for (Slot& s : slots_) {
      s.pending_mte2 = false;
      s.pending_vec = false;
      s.pending_cube = false;
    }
  }
  Event& event(int kind, int id) {
    const size_t key = static_cast<size_t>(kind) * 64u + static_cast<size_t>(id & 63);
    if (events_.size() <= key) events_.resize(key + 1);
    return events_[key];
  }

  // Translates a kernel-visible GM address to storage after checking bounds, direction and
  // element type. `write`: UB->GM. Returns where the bytes live.
  uint8_t* TranslateGm(const void* address, uint64_t bytes, bool write, int elem_bits,
                       const char* api, const char* dtype = "unknown") {
    const uint8_t* p = static_cast<const uint8_t*>(address);
    for (GmRegion& r : regions_) {
      if (p < r.view || p >= r.view + r.bytes) continue;
      if (r.report_type) {
        std::printf("cannbot-sample-type: %d %s\n", r.index, dtype);
        std::fflush(stdout);
        r.report_type = false;
      }
      const uint64_t offset = static_cast<uint64_t>(p - r.view);
      // A copy may run to the end of the 32-byte block holding the tensor's last byte: device
      // allocations are block-aligned and padded, so whole-block copies of a tail touch only
      // the padding (the launcher fills it with NaN bytes and never copies it back). Past that
      // block a read sees, and a write clobbers, whatever follows.
      const uint64_t limit = (r.bytes + kBlockBytes - 1) / kBlockBytes * kBlockBytes;
      if (offset + bytes > limit) {
        Violation("gm-out-of-bounds",
                  "%s %s %llu bytes from byte %llu of %s %d, which has only %llu bytes (copies "
                  "may run to the end of its last 32-byte block); the copy would %s whatever "
                  "follows it in global memory",
                  api, write ? "writes" : "reads", static_cast<unsigned long long>(bytes),
                  static_cast<unsigned long long>(offset), r.kind, r.index,
                  static_cast<unsigned long long>(r.bytes), write ? "overwrite" : "read");
      }
      if (write && !r.writable) {
        Violation("gm-write-to-input", "%s writes into %s %d, which is read-only", api, r.kind,
                  r.index);
      }
      if (r.dtype_bits != 0 && elem_bits != r.dtype_bits) {
        Violation("gm-dtype-mismatch",
                  "%s moves %d-bit elements but %s %d holds %d-bit elements (tiling dtype_bits "
                  "says %d); the GlobalTensor's element type must match the tensor",
                  api, elem_bits, r.kind, r.index, r.dtype_bits, r.dtype_bits);
      }
      return r.data + offset;
    }
    Violation("gm-out-of-bounds",
              "%s uses a global-memory address that belongs to no tensor of this launch; "
              "GlobalTensors must be set from the kernel's GM_ADDR arguments",
              api);
  }

 private:
  Runtime() = default;

  bool in_launch_ = false;
  bool has_workspace_ = false;
  bool in_block_ = false;
  uint32_t block_idx_ = 0;
  uint32_t block_dim_ = 1;
  uint64_t block_serial_ = 0;
  uint64_t next_serial_ = 0;  // the launch's: a restored block keeps its own block_serial_
  BlockScheduler* scheduler_ = nullptr;
  // Per memory: the next InitBuffer's offset; past the capacity when over it.
  uint64_t used_[kMemCount] = {};
  uint64_t high_water_[kMemCount] = {};  // cube memories (the UB's is ub_high_water_)
  uint32_t touched_ = 1u << kMemUb;  // memories filled with NaN bytes for this block
  uint32_t ub_high_water_ = 0;
  uint64_t pipe_all_barriers_ = 0;
  uint64_t tiling_key_ = 0;
  std::vector<uint64_t> asked_keys_;
  bool key_matched_ = false;
  Counters counters_;
  VectorMask vector_mask_;
  AtomicMode atomic_;
  bool cube_core_ = false;
  float deq_scale_ = 1.0f;
  std::vector<Slot> slots_;
  std::vector<QueueState> queues_;
  std::vector<Event> events_;
  std::vector<GmRegion> regions_;
  alignas(64) uint8_t ub_[kUbBytes];
  alignas(64) uint8_t l1_[CANNBOT_L1_BYTES];
  alignas(64) uint8_t l0a_[CANNBOT_L0A_BYTES];
  alignas(64) uint8_t l0b_[CANNBOT_L0B_BYTES];
  alignas(64) uint8_t l0c_[CANNBOT_L0C_BYTES];
  alignas(64) uint8_t bias_[kBiasTableBytes];
};

inline Runtime& R() { return Runtime::Get(); }

// Adds `amount` to counter `field` of the running block, here and down the count channel.
inline void Count(CounterField field, uint64_t amount) {
  Runtime& rt = R();
  rt.counters().Field(field) += amount;
  SendCounter(rt.block_idx(), field, amount);
}

// Counts one vector instruction of `repeats` repeats over `bytes` of data; complex ones (Exp,
// Ln, Div, ...) count their repeats once more as complex.
inline void CountVectorInstruction(uint64_t repeats, uint64_t bytes, bool complex) {
  Count(kVectorInstructions, 1);
  Count(kVectorRepeats, repeats);
  Count(kVectorBytes, bytes);
  if (complex) Count(kVectorComplexRepeats, repeats);
}

// Counts one vector instruction over `bytes` of data (the wider operand).
inline void CountVector(uint64_t bytes, bool complex) {
  CountVectorInstruction(bytes == 0 ? 0 : (bytes + kRepeatBytes - 1) / kRepeatBytes, bytes,
                         complex);
}

}  // namespace cannbot_ascendc

#endif  // CANNBOT_ASCENDC_RUNTIME_H
