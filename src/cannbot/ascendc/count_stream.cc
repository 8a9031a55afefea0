#include "cannbot/ascendc/count_stream.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <vector>

namespace cannbot::ascendc {
namespace {

// The emulation's CounterField order.
constexpr uint64_t WorkCounters::*kFields[] = {
    &WorkCounters::gm_to_ub_bytes,      &WorkCounters::ub_to_gm_bytes,
    &WorkCounters::ub_to_ub_bytes,      &WorkCounters::gm_to_ub_copies,
    &WorkCounters::ub_to_gm_copies,     &WorkCounters::vector_instructions,
    &WorkCounters::vector_repeats,      &WorkCounters::vector_bytes,
    &WorkCounters::vector_complex_repeats, &WorkCounters::scalar_ops,
    &WorkCounters::cube_fractals,       &WorkCounters::cube_move_bytes,
    &WorkCounters::gm_raw_pointers,     &WorkCounters::ub_raw_pointers,
    &WorkCounters::reg_instructions};
constexpr const char* kFieldNames[] = {
    "gm_to_ub_bytes", "ub_to_gm_bytes", "ub_to_ub_bytes", "gm_to_ub_copies", "ub_to_gm_copies",
    "vector_instructions", "vector_repeats", "vector_bytes", "vector_complex_repeats",
    "scalar_ops", "cube_fractals", "cube_move_bytes", "gm_raw_pointers", "ub_raw_pointers",
    "reg_instructions"};
constexpr size_t kFieldCount = sizeof(kFields) / sizeof(kFields[0]);
constexpr int kMemories = 6;  // UB, L1, L0A, L0B, L0C, bias table

struct Queue {
  uint64_t buffer_num = 0;
  uint64_t enqueues = 0;
  uint64_t max_occupancy = 0;
  bool carried_copies = false;
};

struct Block {
  WorkCounters counters;
  std::map<uint64_t, Queue> queues;
  uint64_t barriers = 0;
  uint64_t high_water[kMemories] = {};
};

Status Bad(size_t index, const std::string& why) {
  return Status::Aborted("the emulation's count channel holds records no launch writes "
                         "(record " + std::to_string(index) + ": " + why +
                         "): a kernel that wrote to the channel itself");
}

// The launcher's summary of the blocks (cannbot_launch.h, block_done and the stats line).
LaunchStats Summarise(const std::map<uint32_t, Block>& blocks, uint32_t block_dim,
                      uint32_t dtype_bits, bool bfloat16) {
  LaunchStats s;
  s.block_dim = block_dim;
  s.dtype_bits = dtype_bits;
  s.bfloat16 = bfloat16;
  uint64_t buffer_num = 0;
  for (const auto& [index, block] : blocks) {
    for (size_t f = 0; f < kFieldCount; ++f) {
      s.total.*kFields[f] += block.counters.*kFields[f];
      s.max_block.*kFields[f] = std::max(s.max_block.*kFields[f], block.counters.*kFields[f]);
    }
    uint64_t block_buffers = 0;
    for (const auto& [id, q] : block.queues) {
      s.max_queue_occupancy = std::max(s.max_queue_occupancy, static_cast<int>(q.max_occupancy));
      if (!q.carried_copies) continue;
      if (block_buffers == 0 || q.buffer_num < block_buffers) block_buffers = q.buffer_num;
      s.tiles = std::max(s.tiles, q.enqueues);
    }
    if (block_buffers > 0 && (buffer_num == 0 || block_buffers < buffer_num)) {
      buffer_num = block_buffers;
    }
    s.pipe_all_barriers = std::max(s.pipe_all_barriers, block.barriers);
    s.ub_high_water_bytes = std::max(s.ub_high_water_bytes, block.high_water[0]);
    for (int m = 0; m < 4; ++m) {
      s.cube_high_water_bytes[m] = std::max(s.cube_high_water_bytes[m], block.high_water[m + 1]);
    }
  }
  s.buffer_num = buffer_num == 0 ? 1 : static_cast<int>(buffer_num);
  s.overlap = s.buffer_num >= 2 && s.tiles >= 2 && s.pipe_all_barriers < s.tiles;
  return s;
}

}  // namespace

Result<LaunchStats> StatsFromCountRecords(const std::string& records) {
  if (records.empty()) {
    return Status::Aborted("the emulation sent no counts (its count channel was closed before "
                           "the launch, or the kernel never launched)");
  }
  if (records.size() % sizeof(CountRecord) != 0) {
    return Bad(records.size() / sizeof(CountRecord), "a partial record");
  }
  const size_t count = records.size() / sizeof(CountRecord);
  std::map<uint32_t, Block> blocks;
  uint32_t block_dim = 0, dtype_bits = 0;
  bool bfloat16 = false, ended = false;
  for (size_t i = 0; i < count; ++i) {
    CountRecord r;
    std::memcpy(&r, records.data() + i * sizeof(r), sizeof(r));
    if ((r.tag >> 16) != kCountMagic) return Bad(i, "not a record");
    const auto kind = static_cast<CountKind>(r.tag & 0xFFFF);
    if ((i == 0) != (kind == CountKind::kLaunch)) {
      return Bad(i, i == 0 ? "the first is not the launch's" : "a second launch");
    }
    if (ended) return Bad(i, "a record after the launch ended");
    if (kind == CountKind::kLaunch) {
      if (r.arg < 1 || r.arg > 65535) return Bad(i, "a block count outside 1..65535");
      block_dim = static_cast<uint32_t>(r.arg);
      dtype_bits = static_cast<uint32_t>(r.amount & 0xFF);
      bfloat16 = (r.amount >> 8) != 0;
      continue;
    }
    if (kind == CountKind::kLaunchEnd) {
      ended = true;
      continue;
    }
    if (r.block >= block_dim) return Bad(i, "a block past the launch's block count");
    Block& b = blocks[r.block];
    switch (kind) {
      case CountKind::kCounter:
        if (r.arg >= kFieldCount) return Bad(i, "an unknown counter");
        b.counters.*kFields[r.arg] += r.amount;
        break;
      case CountKind::kQueue:
        if (b.queues.count(r.arg) > 0) return Bad(i, "a queue made twice");
        b.queues[r.arg].buffer_num = r.amount;
        break;
      case CountKind::kEnqueue:
      case CountKind::kQueueCopy: {
        auto q = b.queues.find(r.arg);
        if (q == b.queues.end()) return Bad(i, "a queue never made");
        if (kind == CountKind::kQueueCopy) {
          q->second.carried_copies = true;
        } else {
          ++q->second.enqueues;
          q->second.max_occupancy = std::max(q->second.max_occupancy, r.amount);
        }
        break;
      }
      case CountKind::kBarrierAll: ++b.barriers; break;
      case CountKind::kHighWater:
        if (r.arg >= static_cast<uint64_t>(kMemories)) return Bad(i, "an unknown memory");
        b.high_water[r.arg] = std::max(b.high_water[r.arg], r.amount);
        break;
      default: return Bad(i, "an unknown kind");
    }
  }
  if (!ended) return Bad(count, "the launch never ended");
  return Summarise(blocks, block_dim, dtype_bits, bfloat16);
}

std::string CompareCounted(const LaunchStats& counted, const LaunchStats& printed) {
  auto differs = [](const std::string& what, uint64_t line, uint64_t channel) {
    return what + ": the line says " + std::to_string(line) + ", the count channel " +
           std::to_string(channel);
  };
  const std::pair<const char*, std::pair<uint64_t, uint64_t>> plain[] = {
      {"block_dim", {printed.block_dim, counted.block_dim}},
      {"dtype_bits", {printed.dtype_bits, counted.dtype_bits}},
      {"bfloat16", {printed.bfloat16, counted.bfloat16}},
      {"buffer_num", {static_cast<uint64_t>(printed.buffer_num), static_cast<uint64_t>(counted.buffer_num)}},
      {"max_queue_occupancy", {static_cast<uint64_t>(printed.max_queue_occupancy),
                               static_cast<uint64_t>(counted.max_queue_occupancy)}},
      {"tiles", {printed.tiles, counted.tiles}},
      {"pipe_all_barriers", {printed.pipe_all_barriers, counted.pipe_all_barriers}},
      {"overlap", {printed.overlap, counted.overlap}},
      {"ub_high_water_bytes", {printed.ub_high_water_bytes, counted.ub_high_water_bytes}},
      {"l1_high_water_bytes", {printed.cube_high_water_bytes[0], counted.cube_high_water_bytes[0]}},
      {"l0a_high_water_bytes", {printed.cube_high_water_bytes[1], counted.cube_high_water_bytes[1]}},
      {"l0b_high_water_bytes", {printed.cube_high_water_bytes[2], counted.cube_high_water_bytes[2]}},
      {"l0c_high_water_bytes", {printed.cube_high_water_bytes[3], counted.cube_high_water_bytes[3]}},
  };
  for (const auto& [name, values] : plain) {
    if (values.first != values.second) return differs(name, values.first, values.second);
  }
  for (size_t f = 0; f < kFieldCount; ++f) {
    if (printed.total.*kFields[f] != counted.total.*kFields[f]) {
      return differs(std::string("total ") + kFieldNames[f], printed.total.*kFields[f],
                     counted.total.*kFields[f]);
    }
    if (printed.max_block.*kFields[f] != counted.max_block.*kFields[f]) {
      return differs(std::string("max_block ") + kFieldNames[f], printed.max_block.*kFields[f],
                     counted.max_block.*kFields[f]);
    }
  }
  return "";
}

}  // namespace cannbot::ascendc
