// Cost model: what an emulated Ascend C launch would take on an NPU, in microseconds.
//
// An estimate, not a measurement, built from what the emulation counted (stats.h) and a
// DeviceProfile:
//  - blocks run in waves of `vector_cores` (`cube_cores` for a launch that used the cube); the
//    slowest block (per-counter maximum) bounds a
//    wave, so a block dim just above the core count pays for a nearly empty last wave;
//  - a block's copies move at its share of HBM bandwidth, min(core_copy_gbps,
//    hbm_gbps / active cores), plus a fixed set-up per DataCopy;
//  - vector time counts 256-byte repeats at one per cycle (complex instructions cost
//    `complex_cycles_per_repeat`), plus a start-up per instruction;
//  - cube time counts Mmad's 16 x 16 x (32 bytes of K) fractals at `cube_fractals_per_cycle`
//    and LoadData / L0C read-out bytes at `cube_move_bytes_per_cycle`; it is compute, like
//    vector time, and overlaps copies the same way (uncalibrated: no published matmul timing
//    is in the calibration table yet);
//  - scalar time counts LocalTensor element accesses; it never overlaps anything;
//  - with double buffering (stats.overlap) copies and vector work overlap except for the
//    first and last tile: max(copy, vector) + min(copy, vector) / tiles; without it they add.
// Measured msprof profiles of the same kernels, when a user has them, decide instead.
//
// Calibration: on the published measurements in tests/fixtures/ascendc/published_timings.tsv
// the default profile's estimates lie within kCalibratedError of the measured times
// (tests/unit/ascendc_calibration_test.cc holds them there); a speedup estimate is shown with
// the range that error allows (SpeedupRange), never as a bare number.
//
// Thread-safety: pure functions.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "cannbot/ascendc/device_profile.h"
#include "cannbot/ascendc/stats.h"

namespace cannbot::ascendc {

struct CostEstimate {
  double total_us = 0;          // the estimate: launch overhead + waves x block time
  double block_us = 0;          // the slowest block
  double copy_us = 0;           // its GM<->UB traffic and copy set-ups
  double vector_us = 0;         // its vector instructions
  double cube_us = 0;           // its Mmad fractals and on-chip cube moves
  double scalar_us = 0;         // its scalar element accesses
  double overlap_saved_us = 0;  // how much double buffering hid
  int active_cores = 1;         // min(block_dim, vector cores)
  int waves = 1;                // ceil(block_dim / vector cores)
  double per_core_gbps = 0;     // the copy bandwidth one block gets
  double achieved_gbps = 0;     // total GM bytes / total_us
  std::string bound;  // "copy", "vector", "cube", "scalar" or "launch": the largest term
  // What msprof's op summary would show. The slowest block's time over the average block's
  // (1 = an even split; a tail core or an uneven tiling shows above 1), the share of the
  // slowest block's time each pipe works (MTE2+MTE3 copies, vector, scalar; with double
  // buffering copy and vector overlap, so the shares may add to more than 1), and the UB
  // the kernel used.
  double imbalance = 1;
  double copy_busy = 0;
  double vector_busy = 0;
  double cube_busy = 0;
  double scalar_busy = 0;
  uint64_t ub_high_water_bytes = 0;
  uint64_t ub_capacity_bytes = 0;
  // A matrix launch's L1, L0A, L0B and L0C use and capacity (all 0 for a vector launch).
  uint64_t cube_high_water_bytes[4] = {};
  uint64_t cube_capacity_bytes[4] = {};

  nlohmann::json ToJson() const;
  // "12.3 us estimated (48 cores x 1 wave; block 9.1 us: copy 8.7, vector 2.0, scalar 0.0,
  //  overlap saved 1.6; copy-bound; slowest block 1.02x the mean; pipes busy: MTE 96%,
  //  vector 22%, scalar 0%; UB high water 96 of 192 KB)"; a matrix launch adds
  //  "; L1 high water 96 of 512 KB, L0A 16 of 64, L0B 16 of 64, L0C 32 of 128"
  std::string Describe() const;
};

CostEstimate Estimate(const LaunchStats& stats, const DeviceProfile& profile);

// Estimate / measured time, lowest and highest, over the published measurements.
struct ErrorBand {
  double low;
  double high;
};
inline constexpr ErrorBand kCalibratedError{0.85, 1.18};

// The speedups a `speedup` estimate allows when each of its two estimates may be off by
// kCalibratedError independently: {speedup x low / high, speedup x high / low}.
ErrorBand SpeedupRange(double speedup);
// "905x-1740x", "1.71x-2.37x": digits that fit the size.
std::string DescribeRange(const ErrorBand& range);

// The least time any launch moving `traffic` could take: the launch overhead plus the
// compulsory bytes at the device's whole HBM bandwidth. Computed from tensor sizes alone, never
// from a kernel's counters (which the kernel's own process writes), it is the floor under an
// estimate: a forged statistics line can at most claim this.
double TrustedFloorUs(const CompulsoryTraffic& traffic, const DeviceProfile& profile);

}  // namespace cannbot::ascendc
