// cannbot_ascendc_blocks.h: runs a launch's blocks, and SyncAll, the barrier between them.
//
// The device runs a launch's blocks at once, one per core; the emulation runs them one after
// another on the calling thread, which computes the same numbers for every kernel whose blocks
// do not wait for each other. SyncAll is where they do: no block goes past it before every
// block has reached it. So each block runs on a stack of its own (a fiber, <ucontext.h>): a
// block that calls SyncAll is set aside whole (its stack and its Runtime state) and the next
// block starts; once every block has arrived, the waiting ones resume in order, each until its
// next SyncAll or its return. Between two barriers blocks still run one after another, in
// index order, so a kernel that lacks a SyncAll can pass here by that order (docs/ascendc.md).
//
// What hangs on the device is the `sync-all` violation: a block that returns while others wait
// at a SyncAll it never reaches; a SyncAll in a launch with more blocks than the device has
// vector cores (blocks of later waves never start while the first wave waits); the hard form
// in a launch without a workspace; the soft form with a workspace too small or not zeroed.
//
// Ownership: BlockScheduler owns the fibers' stacks and the set-aside states of one launch; it
// registers itself with the Runtime for the launch's duration.
// Thread-safety: none; one launch at a time per process (cannbot_launch.h).
#ifndef CANNBOT_ASCENDC_BLOCKS_H
#define CANNBOT_ASCENDC_BLOCKS_H

#include <sys/mman.h>
#include <ucontext.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "cannbot_ascendc_tensor.h"

namespace cannbot_ascendc {

class BlockScheduler {
 public:
  // `run(b)` is block b's kernel; `done(b)` reads the Runtime after block b returned and passed
  // the end-of-kernel checks. Both are borrowed for the scheduler's lifetime.
  template <typename Run, typename Done>
  BlockScheduler(uint32_t block_dim, Run& run, Done& done)
      : blocks_(block_dim),
        run_(&Call<Run>),
        run_arg_(&run),
        done_(&Call<Done>),
        done_arg_(&done) {}
  // A launch ends with no block waiting (RunAll runs until none does), so none holds a state.
  ~BlockScheduler() {
    for (Block& b : blocks_) FreeStack(b.stack);
    for (void* stack : free_stacks_) FreeStack(stack);
  }
  BlockScheduler(const BlockScheduler&) = delete;
  BlockScheduler& operator=(const BlockScheduler&) = delete;

  // `first_alone`: stop after block 0 when it returns without calling SyncAll (a sample's
  // discovery run, which needs one block's copies unless the blocks wait for each other).
  void RunAll(bool first_alone = false) {
    R().set_scheduler(this);
    for (uint32_t b = 0; b < blocks_.size(); ++b) {
      Start(b);
      if (first_alone && b == 0 && blocks_[0].finished) break;
    }
    for (uint32_t round = 1; AnyWaiting(); ++round) {
      CheckEveryBlockArrived(round);
      for (uint32_t b = 0; b < blocks_.size(); ++b) {
        if (blocks_[b].waiting) Resume(b);
      }
    }
    R().set_scheduler(nullptr);
  }

  // SyncAll from the running block: returns when every block has reached this barrier.
  void Arrive(const char* api) {
    const uint32_t dim = static_cast<uint32_t>(blocks_.size());
    if (dim > CANNBOT_VECTOR_CORES) {
      Violation("sync-all",
                "%s in a launch of %u blocks on a device with %d vector cores: the blocks of "
                "later waves start only when a core is free, while the first wave waits for "
                "them at the barrier, so the kernel hangs; SyncAll needs a block dim of at most "
                "the core count",
                api, dim, CANNBOT_VECTOR_CORES);
    }
    Block& block = blocks_[current_];
    ++block.barriers;
    block.waiting = true;
    block.saved = R().SaveBlock();
    // Set here, so that a kernel without SyncAll never compiles the code that moves a
    // Runtime back and frees it (it is most of what the scheduler would add to every build).
    restore_ = [](Runtime* saved) {
      R().RestoreBlock(std::move(*saved));
      delete saved;
    };
    swapcontext(&block.context, &scheduler_);
  }

  // True on the running block's first soft SyncAll, when its workspace must still be zero.
  bool FirstSoftSync() {
    Block& block = blocks_[current_];
    const bool first = !block.soft_synced;
    block.soft_synced = true;
    return first;
  }

 private:
  // Kernel code runs on these stacks; the device's are far smaller, the margin is for the
  // emulation's own frames.
  static constexpr size_t kStackBytes = size_t{4} << 20;

  struct Block {
    ucontext_t context;
    void* stack = nullptr;
    uint32_t barriers = 0;  // SyncAll calls reached
    bool waiting = false;
    bool finished = false;
    bool soft_synced = false;  // reached a soft SyncAll before
    Runtime* saved = nullptr;  // while waiting: its state, set aside (SaveBlock)
  };

  void Start(uint32_t b) {
    Block& block = blocks_[b];
    block.stack = TakeStack();
    getcontext(&block.context);
    block.context.uc_stack.ss_sp = block.stack;
    block.context.uc_stack.ss_size = kStackBytes;
    block.context.uc_link = &scheduler_;
    const uintptr_t self = reinterpret_cast<uintptr_t>(this);
    makecontext(&block.context, reinterpret_cast<void (*)()>(&Entry), 2,
                static_cast<unsigned>(self >> 32), static_cast<unsigned>(self & 0xffffffffu));
    current_ = b;
    R().BeginBlock(b);
    swapcontext(&scheduler_, &block.context);
    AfterSwitch(b);
  }

  void Resume(uint32_t b) {
    Block& block = blocks_[b];
    block.waiting = false;
    restore_(block.saved);
    block.saved = nullptr;
    current_ = b;
    swapcontext(&scheduler_, &block.context);
    AfterSwitch(b);
  }

  // Back on the scheduler's stack: a returned block's stack serves the next one.
  void AfterSwitch(uint32_t b) {
    Block& block = blocks_[b];
    if (block.finished && block.stack != nullptr) {
      free_stacks_.push_back(block.stack);
      block.stack = nullptr;
    }
  }

  static void Entry(unsigned high, unsigned low) {
    auto* self = reinterpret_cast<BlockScheduler*>((static_cast<uintptr_t>(high) << 32) | low);
    const uint32_t b = self->current_;
    self->run_(self->run_arg_, b);
    R().EndBlock();
    self->done_(self->done_arg_, b);
    self->blocks_[b].finished = true;
  }  // uc_link returns to the scheduler

  bool AnyWaiting() const {
    for (const Block& b : blocks_) {
      if (b.waiting) return true;
    }
    return false;
  }

  // Before releasing barrier `round`: a block that returned before reaching it would leave
  // the others waiting forever on the device.
  void CheckEveryBlockArrived(uint32_t round) const {
    uint32_t waiter = 0;
    while (!blocks_[waiter].waiting) ++waiter;
    for (uint32_t b = 0; b < blocks_.size(); ++b) {
      if (blocks_[b].finished && blocks_[b].barriers < round) {
        Violation("sync-all",
                  "block %u returned after %u SyncAll call(s) while block %u waits at SyncAll "
                  "number %u: every block of the launch must call SyncAll equally often, or "
                  "the waiting ones hang on the device",
                  b, blocks_[b].barriers, waiter, round);
      }
    }
  }

  void* TakeStack() {
    if (!free_stacks_.empty()) {
      void* stack = free_stacks_.back();
      free_stacks_.pop_back();
      return stack;
    }
    void* stack = mmap(nullptr, kStackBytes, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (stack == MAP_FAILED) {
      Violation("launch-contract", "no memory for block %u's stack (%zu bytes)", current_,
                kStackBytes);
    }
    return stack;
  }
  static void FreeStack(void* stack) {
    if (stack != nullptr) munmap(stack, kStackBytes);
  }

  std::vector<Block> blocks_;
  std::vector<void*> free_stacks_;
  template <typename F>
  static void Call(void* f, uint32_t block) {
    (*static_cast<F*>(f))(block);
  }
  void (*run_)(void*, uint32_t);
  void* run_arg_;
  void (*done_)(void*, uint32_t);
  void* done_arg_;
  void (*restore_)(Runtime* saved) = nullptr;
  ucontext_t scheduler_;
  uint32_t current_ = 0;
};

}  // namespace cannbot_ascendc

namespace AscendC {

namespace cannbot_detail {
inline cannbot_ascendc::BlockScheduler& SchedulerFor(const char* api) {
  cannbot_ascendc::Runtime& rt = cannbot_ascendc::R();
  rt.RequireBlock(api);
  if (rt.scheduler() == nullptr) {
    cannbot_ascendc::Violation("launch-contract", "%s outside a launch's blocks", api);
  }
  return *rt.scheduler();
}
}  // namespace cannbot_detail

// The hard form (Atlas A2): the hardware's all-core barrier. The documentation requires the
// tiling to ask for a workspace, which the barrier uses.
template <bool isAIVOnly = true>
inline void SyncAll() {
  constexpr const char* kApi = "SyncAll()";
  cannbot_ascendc::BlockScheduler& scheduler = cannbot_detail::SchedulerFor(kApi);
  if (!cannbot_ascendc::R().has_workspace()) {
    cannbot_ascendc::Violation("sync-all",
                               "%s in a launch whose tiling asked for no workspace; the hard "
                               "SyncAll needs one (set GetWorkspaceSizes(1)[0], e.g. to the "
                               "platform's GetLibApiWorkSpaceSize())",
                               kApi);
  }
  scheduler.Arrive(kApi);
}

// The soft form: a barrier through `gmWorkspace` (at least block dim x 32 bytes, zeroed before
// the first call) and `ubWorkspace` (as large, in the UB). usedCores 0 is every block.
template <bool isAIVOnly = true>
inline void SyncAll(const GlobalTensor<int32_t>& gmWorkspace,
                    const LocalTensor<int32_t>& ubWorkspace, const int32_t usedCores = 0) {
  constexpr const char* kApi = "SyncAll(gmWorkspace, ubWorkspace, usedCores)";
  cannbot_ascendc::BlockScheduler& scheduler = cannbot_detail::SchedulerFor(kApi);
  cannbot_ascendc::Runtime& rt = cannbot_ascendc::R();
  const uint32_t dim = rt.block_dim();
  if (usedCores != 0 && static_cast<uint32_t>(usedCores) != dim) {
    cannbot_ascendc::Violation("not-emulated",
                               "%s with usedCores %d in a launch of %u blocks (cannbot emulates "
                               "a barrier of every block: usedCores 0 or the block dim)",
                               kApi, usedCores, dim);
  }
  const uint64_t bytes = uint64_t{dim} * cannbot_ascendc::kBlockBytes;
  cannbot_detail::CheckLocalBasic(ubWorkspace, bytes / sizeof(int32_t), kApi);
  const uint8_t* flags =
      rt.TranslateGm(gmWorkspace.cb_addr_, bytes, /*write=*/false, 32, kApi, "int32");
  if (scheduler.FirstSoftSync()) {
    for (uint64_t i = 0; i < bytes; ++i) {
      if (flags[i] != 0) {
        cannbot_ascendc::Violation("sync-all",
                                   "%s in block %u finds byte %llu of gmWorkspace not zero; the "
                                   "soft barrier's workspace must hold zeros before its first "
                                   "use (every block zeroes all of it, or the host does)",
                                   kApi, rt.block_idx(), static_cast<unsigned long long>(i));
      }
    }
  }
  scheduler.Arrive(kApi);
}

}  // namespace AscendC

#endif  // CANNBOT_ASCENDC_BLOCKS_H
