// The lines an `ascendc` kernel's child process prints, parsed into values.
//
// cannbot's emulation (targets/ascendc) writes, on stdout, one line per launch
//   cannbot-ascendc-stats: {json}
// and, when the kernel breaks a hardware rule, one line before it aborts
//   cannbot-ascendc-violation: <rule>: <one sentence>
// The formats are specified in docs/kernel-abi.md ("ascendc target").
//
// Trust: these lines come from the same process as the untrusted kernel, which can print or
// forge anything. They are evidence, not proof: ParseAllStats rejects malformed lines, callers
// should insist on one stats line per launch they made, and CheckCompulsoryTraffic rejects
// stats that claim less global-memory traffic than reading every input and writing every
// output once, which bounds how fast a forged line can make a kernel look.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cannbot/util/status.h"

namespace cannbot::ascendc {

inline constexpr char kStatsPrefix[] = "cannbot-ascendc-stats: ";
// What the kernel or its host code printed on purpose (printf, DumpTensor): shown, not judged.
inline constexpr char kPrintPrefix[] = "cannbot-ascendc-print: ";
inline constexpr char kViolationPrefix[] = "cannbot-ascendc-violation: ";

// Work counted by the emulation: for one block, or summed over a launch.
struct WorkCounters {
  uint64_t gm_to_ub_bytes = 0;   // MTE2: global memory -> Unified Buffer
  uint64_t ub_to_gm_bytes = 0;   // MTE3: Unified Buffer -> global memory
  uint64_t ub_to_ub_bytes = 0;   // UB -> UB DataCopy (also counted as vector work)
  uint64_t gm_to_ub_copies = 0;  // DataCopy / DataCopyPad instructions per direction
  uint64_t ub_to_gm_copies = 0;
  uint64_t vector_instructions = 0;
  uint64_t vector_repeats = 0;          // 256-byte repeats
  uint64_t vector_bytes = 0;            // bytes the vector instructions processed
  uint64_t vector_complex_repeats = 0;  // the part of vector_repeats spent in Exp, Ln, Div, ...
  uint64_t scalar_ops = 0;              // LocalTensor element reads and writes
  // The matrix path (absent from lines of emulations before it: 0).
  uint64_t cube_fractals = 0;    // Mmad's 16 x 16 x (32 bytes of K) blocks, one per cycle
  uint64_t cube_move_bytes = 0;  // on chip: LoadData L1 -> L0A/L0B, L0C -> CO2
  // GlobalTensor::GetPhyAddr calls: raw GM pointers, whose traffic no counter sees.
  uint64_t gm_raw_pointers = 0;
  // LocalTensor::GetPhyAddr calls on UB tensors, and register-function instructions (which
  // take such addresses); both absent from older lines (0).
  uint64_t ub_raw_pointers = 0;
  uint64_t reg_instructions = 0;
};

struct LaunchStats {
  int version = 1;
  uint32_t block_dim = 1;
  // 32: float tensors, 16: half (or bf16 with `bfloat16`); an operator package's launch: the
  // first output's width (8 to 64 for integers; each tensor has its own dtype there).
  uint32_t dtype_bits = 32;
  bool bfloat16 = false;
  uint64_t input_bytes = 0;  // sizes of the GM tensors as the launcher laid them out
  uint64_t output_bytes = 0;
  uint64_t ub_capacity_bytes = 0;
  uint64_t ub_high_water_bytes = 0;  // the most UB any block allocated
  // The same for the cube's memories, L1, L0A, L0B, L0C (optional fields: 0 in older lines
  // and in launches that never touch them).
  uint64_t cube_high_water_bytes[4] = {};
  int buffer_num = 1;                // fewest buffers among queues that carried copies
  int max_queue_occupancy = 0;       // most tensors waiting in one queue at once
  uint64_t tiles = 0;                // most EnQue calls on one such queue in one block
  uint64_t pipe_all_barriers = 0;    // most PipeBarrier<PIPE_ALL> calls in one block
  bool overlap = false;              // copies can overlap compute: buffer_num >= 2, tiles >= 2
  WorkCounters total;                // summed over all blocks
  WorkCounters max_block;            // per-counter maximum over blocks

  // A launch that ran Mmad: its blocks are AI cores (cube, with their vector cores beside).
  bool UsesCube() const { return total.cube_fractals > 0; }
  nlohmann::json ToJson() const;
};

struct Violation {
  std::string rule;     // "ub-overflow", "copy-misaligned", ... (docs/kernel-abi.md)
  std::string message;  // one sentence
  // "the kernel broke the Ascend C rule ub-overflow: <message>"
  std::string Describe() const;
};

// Every stats line in `output`, in order. A line with the prefix that does not parse is an
// error (a kernel printing half a line is as suspicious as one printing none).
Result<std::vector<LaunchStats>> ParseAllStats(const std::string& output);
// Exactly one stats line (one launch); zero or several are errors.
Result<LaunchStats> ParseStats(const std::string& output);
// The first violation line, if any.
std::optional<Violation> FindViolation(const std::string& output);

// Bytes the kernel must move at the least: every input read once, every output written once.
struct CompulsoryTraffic {
  uint64_t input_bytes = 0;
  uint64_t output_bytes = 0;
};
// From element counts per tensor and the element width the launch used.
CompulsoryTraffic ComputeCompulsoryTraffic(const std::vector<int64_t>& input_elements,
                                           const std::vector<int64_t>& output_elements,
                                           uint32_t dtype_bits);
// The same with each tensor's own width (`tensor_bits`: inputs then outputs).
CompulsoryTraffic ComputeCompulsoryTraffic(const std::vector<int64_t>& input_elements,
                                           const std::vector<int64_t>& output_elements,
                                           const std::vector<uint32_t>& tensor_bits);
// Aborted status ("the stats claim 1024 bytes read from global memory, fewer than the 4096
// bytes of its inputs") when the stats cannot be true.
Status CheckCompulsoryTraffic(const LaunchStats& stats, const CompulsoryTraffic& minimum);

}  // namespace cannbot::ascendc
