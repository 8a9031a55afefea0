// cannbot_ascendc_count_channel.h: the emulation's counts leave the kernel's process as they
// are made.
//
// The cost model's inputs (the Counters of every block, the queues' buffer numbers, EnQue
// occupancies and copies, PIPE_ALL barriers, memory high-water marks) are also written, in
// fixed-size records, to descriptor kCountChannelFd, a pipe whose other end the
// validating process holds (docs/kernel-abi.md, "The count channel"). What has been written
// cannot be taken back: a kernel that overwrites the in-process counters, or prints its own
// statistics line, changes the line but not the stream, and the validating process (which
// adds the stream up itself, ascendc/count_stream.h) sees them disagree. Without the
// descriptor (the numeric layer does not open it) nothing is sent.
//
// Thread-safety: none (one launch at a time per process, like the Runtime).
#ifndef CANNBOT_ASCENDC_COUNT_CHANNEL_H
#define CANNBOT_ASCENDC_COUNT_CHANNEL_H

#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "cannbot_ascendc_counters.h"

namespace cannbot_ascendc {

constexpr int kCountChannelFd = 5;
constexpr uint32_t kCountMagic = 0xCB5Au;

// What a record says; `arg` and `amount` per kind.
enum class CountKind : uint16_t {
  kLaunch = 1,    // arg: block_dim; amount: dtype_bits | bfloat16 << 8 (first record only)
  kCounter = 2,   // arg: CounterField; amount: added to that counter of the block
  kQueue = 4,     // InitBuffer made queue `arg` of the block with `amount` buffers
  kEnqueue = 5,   // EnQue on queue `arg`; amount: tensors waiting in it afterwards
  kQueueCopy = 6, // a DataCopy between GM and a buffer of queue `arg`
  kBarrierAll = 7,  // PipeBarrier<PIPE_ALL>
  kHighWater = 8,   // memory `arg` (Memory) is used up to `amount` bytes
  kLaunchEnd = 9,   // every block has returned
};

struct CountRecord {
  uint32_t tag;    // kCountMagic << 16 | kind
  uint32_t block;  // GetBlockIdx() of the block it happened in
  uint64_t arg;
  uint64_t amount;
};
static_assert(sizeof(CountRecord) == 24, "the record is the wire format");

// Counter additions wait here, at most kMaxPendingCounts of them, and leave together (one
// record per counter they touched, in one write); any other record, a change of block and the
// end of the launch send them first. So the stream stays in order, a tight scalar loop costs a
// system call per 256 counts rather than per count, and what waits is bounded.
constexpr uint32_t kMaxPendingCounts = 256;
struct PendingCounts {
  bool open = false;
  uint32_t block = 0;
  uint32_t additions = 0;
  Counters delta;
};
inline PendingCounts& Pending() {
  static PendingCounts pending;
  return pending;
}

[[noreturn]] inline void CountChannelBroken() {
  std::fflush(stdout);
  std::printf("cannbot-ascendc-violation: count-channel: the emulation could not send its "
              "counts (the channel to the validator was closed or changed)\n");
  std::fflush(stdout);
  std::abort();
}

// write(2) issued as the instruction itself, not through the C library's entry (whose GOT slot
// a kernel could point elsewhere); the validator makes code immutable once the kernel is
// loaded, so this stays the instruction that runs. Returns what the kernel returned.
inline long ChannelWrite(const void* data, size_t bytes) {
  long result;
  asm volatile("syscall"
               : "=a"(result)
               : "0"(1L /* __NR_write */), "D"(static_cast<long>(kCountChannelFd)), "S"(data),
                 "d"(bytes)
               : "rcx", "r11", "memory");
  return result;
}

inline void WriteRecords(const CountRecord* records, size_t count) {
  const size_t bytes = count * sizeof(CountRecord);
  long n;
  do {
    n = ChannelWrite(records, bytes);
  } while (n == -EINTR);
  if (n != static_cast<long>(bytes)) CountChannelBroken();
}

inline void FlushCounts() {
  PendingCounts& p = Pending();
  if (!p.open || p.additions == 0) return;
  CountRecord records[kCounterFields];
  size_t count = 0;
  for (int f = 0; f < kCounterFields; ++f) {
    const uint64_t amount = p.delta.Field(static_cast<CounterField>(f));
    if (amount == 0) continue;
    records[count++] = {kCountMagic << 16 | static_cast<uint32_t>(CountKind::kCounter), p.block,
                        static_cast<uint64_t>(f), amount};
  }
  p.delta = Counters();
  p.additions = 0;
  if (count > 0) WriteRecords(records, count);
}

// `amount` more of counter `field` in `block`.
inline void SendCounter(uint32_t block, CounterField field, uint64_t amount) {
  PendingCounts& p = Pending();
  if (!p.open) return;
  if (p.block != block) FlushCounts();
  p.block = block;
  p.delta.Field(field) += amount;
  if (++p.additions >= kMaxPendingCounts) FlushCounts();
}

inline void SendCount(CountKind kind, uint32_t block, uint64_t arg, uint64_t amount) {
  if (!Pending().open) return;
  FlushCounts();
  const CountRecord record{kCountMagic << 16 | static_cast<uint32_t>(kind), block, arg, amount};
  WriteRecords(&record, 1);
}

// At the start of a launch: opens the channel when the validator passed one (the first
// record is the launch's).
inline void OpenCountChannel(uint32_t block_dim, uint32_t dtype_bits, bool bfloat16) {
  const CountRecord record{kCountMagic << 16 | static_cast<uint32_t>(CountKind::kLaunch), 0,
                           block_dim, dtype_bits | (bfloat16 ? 1u << 8 : 0u)};
  long n;
  do {
    n = ChannelWrite(&record, sizeof(record));
  } while (n == -EINTR);
  Pending() = PendingCounts();
  Pending().open = n == static_cast<long>(sizeof(record));
}

inline void CloseCountChannel() {
  SendCount(CountKind::kLaunchEnd, 0, 0, 0);
  Pending().open = false;
}

}  // namespace cannbot_ascendc

#endif  // CANNBOT_ASCENDC_COUNT_CHANNEL_H
