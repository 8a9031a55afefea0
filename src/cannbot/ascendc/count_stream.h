// The ascendc emulation's count channel, read by the validating process.
//
// While an emulated launch runs, the emulation (targets/ascendc/
// cannbot_ascendc_count_channel.h) writes 24-byte records down a pipe for the counts it makes:
// counter additions (in batches of at most 256), queues and their buffer numbers, EnQue
// occupancies, copies through a queue's buffers, PIPE_ALL barriers and memory high-water marks
// (the wire format: docs/kernel-abi.md, "The count channel"). A record, once written, cannot be
// taken back by the kernel. StatsFromCountRecords adds the records up here, exactly as the
// launcher does for its statistics line, so the cost model's inputs are computed by cannbot's
// trusted side; CompareCounted says where the line the kernel's process printed differs from
// them (a kernel that overwrote the emulation's counters or printed its own line).
//
// What a record stream cannot show: work the kernel did outside the emulation (docs/security.md).
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>

#include "cannbot/ascendc/stats.h"
#include "cannbot/util/status.h"

namespace cannbot::ascendc {

// The wire format (mirrors cannbot_ascendc_count_channel.h, which the kernel is built with).
inline constexpr uint32_t kCountMagic = 0xCB5Au;
enum class CountKind : uint16_t {
  kLaunch = 1, kCounter = 2, kQueue = 4, kEnqueue = 5, kQueueCopy = 6,
  kBarrierAll = 7, kHighWater = 8, kLaunchEnd = 9,
};
struct CountRecord {
  uint32_t tag;  // kCountMagic << 16 | kind
  uint32_t block;
  uint64_t arg;
  uint64_t amount;
};
static_assert(sizeof(CountRecord) == 24, "the record is the wire format");

// One launch's statistics from its records: block_dim, dtype_bits, bfloat16, the summed and
// per-block maximum counters, buffer_num, tiles, max_queue_occupancy, pipe_all_barriers,
// overlap and the high-water marks; the layout facts the records do not carry (input and
// output bytes, UB capacity, version) are left at their defaults. Aborted, naming the record,
// when the stream is not one a launch of the emulation writes (no launch record, a second one,
// a block past block_dim, an unknown kind, a queue made twice, no end record).
Result<LaunchStats> StatsFromCountRecords(const std::string& records);

// "" when `printed` agrees with `counted` on every field the records carry, else the first
// that differs: "vector_repeats: the line says 0, the count channel 40960".
std::string CompareCounted(const LaunchStats& counted, const LaunchStats& printed);

}  // namespace cannbot::ascendc
