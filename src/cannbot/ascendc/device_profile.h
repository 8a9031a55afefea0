// DeviceProfile: the NPU the `ascendc` cost model estimates for, as a plain struct.
//
// The defaults describe a 910B-class Ascend device (figures from public sources, approximate):
// 48 vector and 24 cube cores, 192 KB of Unified Buffer per core, about 1.8 GHz, a vector unit
// that processes 256 bytes per cycle, and HBM bandwidth shared by all cores. A team with other
// silicon (40 vector cores, a different clock) overrides fields from a small TOML table whose
// keys are the field names; the kernel's tiling sees the core count and UB size through the
// compile definitions CompileDefines() returns, so tiling and estimate agree.
//
// Thread-safety: plain value; the functions are pure.
#pragma once

#include <string>
#include <vector>

#include "cannbot/util/status.h"

namespace cannbot::ascendc {

// The copy, scalar and launch defaults are calibrated (docs/ascendc.md, "Calibration"): fitted
// to published on-board measurements of Atlas A2 kernels whose counts are known
// (tests/fixtures/ascendc/published_timings.tsv), where every estimate lands within
// kCalibratedError (cost_model.h) of the measured time.
struct DeviceProfile {
  std::string name = "Ascend910B (approximate)";
  int vector_cores = 48;                 // AIV cores: blocks run on these, one wave at a time
  int cube_cores = 24;                   // AIC cores (reported; vector kernels do not use them)
  long long ub_bytes = 196608;           // Unified Buffer per core (192 KB)
  long long l1_bytes = 524288;           // the cube's L1 per core (512 KB)
  long long l0a_bytes = 65536;           // L0A (left operands, 64 KB)
  long long l0b_bytes = 65536;           // L0B (right operands, 64 KB)
  long long l0c_bytes = 131072;          // L0C (results, 128 KB)
  int que_buffers_per_position = 8;      // InitBuffer's queue buffers on one TPosition (A2: 8)
  double clock_ghz = 1.8;                // AI core clock
  double vector_bytes_per_cycle = 256;   // one repeat per cycle for simple instructions
  double complex_cycles_per_repeat = 4;  // Exp, Ln, Sqrt, Rsqrt, Div, Reciprocal
  double cube_fractals_per_cycle = 1;    // Mmad: one 16x16x16 fp16 block (4096 MACs) per cycle
  double cube_move_bytes_per_cycle = 256;  // LoadData L1 -> L0, L0C read-out (assumed)
  double vector_issue_cycles = 8;        // start-up of each vector instruction
  double scalar_cycles_per_op = 10;      // one LocalTensor element access, with the loop around it
  double hbm_gbps = 1400;                // HBM bandwidth the active cores share, as achieved, GB/s
  double core_copy_gbps = 60;            // what one core's copy engines move at most, GB/s
  double copy_setup_us = 0.005;          // fixed cost of one DataCopy (copies queue and overlap)
  double launch_overhead_us = 20;        // launch, block dispatch and kernel start-up (all cores)
};

// The defaults above.
DeviceProfile Ascend910BProfile();

// Reads a TOML table whose keys are DeviceProfile field names; absent keys keep the defaults,
// unknown keys and non-positive numbers are errors (a typo must not silently mean "default").
Result<DeviceProfile> ParseDeviceProfile(const std::string& toml_text);

// The profile as prompt text for {{hardware}}: cores, UB, clock, vector width, bandwidth,
// marked as approximate figures.
std::string DescribeDevice(const DeviceProfile& profile);

// Compiler flags that tell a kernel's tiling the device it runs on:
// {"-DCANNBOT_VECTOR_CORES=48", "-DCANNBOT_UB_BYTES=196608"}.
std::vector<std::string> CompileDefines(const DeviceProfile& profile);

}  // namespace cannbot::ascendc
