// The ascendc cost model: waves, bandwidth sharing, overlap and the scalar penalty behave as
// documented, and the arithmetic of one hand-checked case.
#include <gtest/gtest.h>

#include "cannbot/ascendc/cost_model.h"

namespace cannbot::ascendc {
namespace {

// One block's work: `bytes` in and out, `repeats` simple vector repeats in `tiles` tiles.
LaunchStats Stats(uint32_t blocks, uint64_t bytes, uint64_t repeats, uint64_t tiles,
                  bool double_buffered) {
  LaunchStats s;
  s.block_dim = blocks;
  s.buffer_num = double_buffered ? 2 : 1;
  s.tiles = tiles;
  s.overlap = double_buffered && tiles >= 2;
  WorkCounters b;
  b.gm_to_ub_bytes = bytes;
  b.ub_to_gm_bytes = bytes;
  b.gm_to_ub_copies = tiles;
  b.ub_to_gm_copies = tiles;
  b.vector_instructions = tiles;
  b.vector_repeats = repeats;
  s.max_block = b;
  s.total = b;  // every block alike
  for (uint64_t* counter : {&s.total.gm_to_ub_bytes, &s.total.ub_to_gm_bytes,
                            &s.total.gm_to_ub_copies, &s.total.ub_to_gm_copies,
                            &s.total.vector_instructions, &s.total.vector_repeats}) {
    *counter *= blocks;
  }
  return s;
}

TEST(AscendcCostModelTest, HandCheckedSingleBlock) {
  DeviceProfile p;  // 1.8 GHz, 8 issue cycles
  p.core_copy_gbps = 100;
  p.copy_setup_us = 0.5;
  const LaunchStats s = Stats(1, 1000000, 18000, 10, /*double_buffered=*/false);
  const CostEstimate e = Estimate(s, p);
  // copy: 2e6 bytes at 100 GB/s = 20 us, plus 20 copies x 0.5 us = 30 us.
  EXPECT_NEAR(e.copy_us, 30.0, 1e-9);
  // vector: (18000 + 10 x 8) cycles at 1800 cycles/us.
  EXPECT_NEAR(e.vector_us, 18080.0 / 1800.0, 1e-9);
  EXPECT_NEAR(e.block_us, e.copy_us + e.vector_us, 1e-9);
  EXPECT_NEAR(e.total_us, p.launch_overhead_us + e.block_us, 1e-9);
  EXPECT_EQ(e.waves, 1);
  EXPECT_EQ(e.active_cores, 1);
  EXPECT_EQ(e.bound, "copy");
  EXPECT_DOUBLE_EQ(e.overlap_saved_us, 0);
}

TEST(AscendcCostModelTest, CubeWorkIsComputeOnTheAiCores) {
  DeviceProfile p;  // 48 vector cores, 24 cube cores, one fractal per cycle
  LaunchStats s = Stats(48, 1000, 0, 1, false);
  EXPECT_EQ(Estimate(s, p).waves, 1);  // a vector launch: 48 blocks on 48 vector cores
  s.max_block.cube_fractals = 180000;  // 100 us at 1.8 GHz
  s.max_block.cube_move_bytes = 256 * 1800;  // 1 us at 256 bytes per cycle
  s.total.cube_fractals = 48 * s.max_block.cube_fractals;
  s.total.cube_move_bytes = 48 * s.max_block.cube_move_bytes;
  const CostEstimate e = Estimate(s, p);
  EXPECT_EQ(e.waves, 2);  // the same 48 blocks on 24 AI cores
  EXPECT_EQ(e.active_cores, 24);
  EXPECT_NEAR(e.cube_us, 101.0, 1e-9);
  EXPECT_NEAR(e.block_us, e.copy_us + e.vector_us + e.cube_us, 1e-9);
  EXPECT_EQ(e.bound, "cube");
  EXPECT_NEAR(e.cube_busy, e.cube_us / e.block_us, 1e-12);
  EXPECT_NE(e.Describe().find("cube 101"), std::string::npos) << e.Describe();
  EXPECT_EQ(Estimate(Stats(1, 1000, 0, 1, false), p).Describe().find("cube"), std::string::npos);
}

TEST(AscendcCostModelTest, DoubleBufferingHidesTheSmallerTerm) {
  DeviceProfile p;
  const CostEstimate serial = Estimate(Stats(1, 1000000, 18000, 10, false), p);
  const CostEstimate overlapped = Estimate(Stats(1, 1000000, 18000, 10, true), p);
  EXPECT_LT(overlapped.total_us, serial.total_us);
  EXPECT_NEAR(overlapped.block_us, serial.copy_us + serial.vector_us / 10, 1e-9);
  EXPECT_NEAR(overlapped.overlap_saved_us, serial.vector_us * 0.9, 1e-9);
}

TEST(AscendcCostModelTest, CoresShareHbmAndTheLastWaveCounts) {
  DeviceProfile p;  // 48 cores sharing HBM: 1400 / 48 = 29.2 GB/s each when all are busy
  const uint64_t total = 48ull * 1000000;
  const CostEstimate one_wave = Estimate(Stats(48, total / 48, 0, 1, false), p);
  EXPECT_EQ(one_wave.waves, 1);
  EXPECT_NEAR(one_wave.per_core_gbps, p.hbm_gbps / 48, 1e-9);
  // 49 blocks: same total work, but a second wave for one block.
  const CostEstimate two_waves = Estimate(Stats(49, total / 49, 0, 1, false), p);
  EXPECT_EQ(two_waves.waves, 2);
  EXPECT_GT(two_waves.total_us, 1.8 * one_wave.total_us - p.launch_overhead_us);
  // 96 blocks fill two waves evenly: the time of one wave of 48 plus the fixed costs of the
  // second wave's copies and instruction.
  const CostEstimate even = Estimate(Stats(96, total / 96, 0, 1, false), p);
  const double second_wave_fixed = 2 * p.copy_setup_us + p.vector_issue_cycles / 1800.0;
  EXPECT_NEAR(even.total_us, one_wave.total_us + second_wave_fixed, 1e-6);
}

TEST(AscendcCostModelTest, ScalarWorkIsSerialAndExpensive) {
  DeviceProfile p;
  LaunchStats s = Stats(1, 4096, 16, 1, false);
  s.max_block.scalar_ops = 3 * 4096;
  const CostEstimate e = Estimate(s, p);
  EXPECT_NEAR(e.scalar_us, 3 * 4096 * p.scalar_cycles_per_op / 1800.0, 1e-9);
  EXPECT_EQ(e.bound, "scalar");
  EXPECT_NE(e.Describe().find("scalar-bound"), std::string::npos);
  EXPECT_TRUE(e.ToJson()["estimated"].get<bool>());
}

TEST(AscendcCostModelTest, ComplexRepeatsCostMore) {
  DeviceProfile p;
  LaunchStats s = Stats(1, 0, 1000, 1, false);
  const double simple = Estimate(s, p).vector_us;
  s.max_block.vector_complex_repeats = 1000;
  EXPECT_NEAR(Estimate(s, p).vector_us - simple, 1000 * (p.complex_cycles_per_repeat - 1) / 1800.0,
              1e-9);
}

// 48 blocks where one (the tail core of an uneven split) does twice the work of the others:
// the estimate pays for it and says so; the pipes' shares follow the terms.
TEST(AscendcCostModelTest, AnUnevenSplitShowsAsImbalanceAndThePipesAsShares) {
  DeviceProfile p;
  LaunchStats even = Stats(48, 1000000, 8000, 4, /*double_buffered=*/true);
  even.ub_high_water_bytes = 96 * 1024;
  even.ub_capacity_bytes = 192 * 1024;
  const CostEstimate balanced = Estimate(even, p);
  EXPECT_NEAR(balanced.imbalance, 1.0, 1e-9);

  LaunchStats uneven = even;  // the same total work, but the slowest block does 2 shares
  uneven.max_block = Stats(1, 2000000, 16000, 8, true).max_block;
  const CostEstimate tail = Estimate(uneven, p);
  EXPECT_NEAR(tail.imbalance, 2.0, 0.05);
  EXPECT_GT(tail.total_us, balanced.total_us);

  EXPECT_NEAR(balanced.copy_busy, balanced.copy_us / balanced.block_us, 1e-12);
  EXPECT_NEAR(balanced.vector_busy, balanced.vector_us / balanced.block_us, 1e-12);
  EXPECT_GT(balanced.copy_busy + balanced.vector_busy, 1.0);  // overlapped, both at work
  EXPECT_DOUBLE_EQ(balanced.scalar_busy, 0);
  const std::string text = tail.Describe();
  EXPECT_NE(text.find("slowest block 2.0"), std::string::npos) << text;
  EXPECT_NE(text.find("UB high water 96 of 192 KB"), std::string::npos) << text;
  EXPECT_NEAR(tail.ToJson()["imbalance"].get<double>(), tail.imbalance, 1e-12);
}

// A statistics line that claims its bytes were spread over many blocks (a tiny slowest block)
// still gets the whole traffic at full HBM bandwidth: the floor comes from sizes alone.
TEST(AscendcCostModelTest, TheTrustedFloorIsTheCompulsoryTrafficAtFullBandwidth) {
  DeviceProfile p;
  CompulsoryTraffic t;
  t.input_bytes = 32ull << 20;
  t.output_bytes = 16ull << 20;
  const double floor = TrustedFloorUs(t, p);
  EXPECT_NEAR(floor, p.launch_overhead_us + (48.0 * (1 << 20)) / (p.hbm_gbps * 1e3), 1e-9);
  LaunchStats forged = Stats(1, 0, 0, 1, false);  // one block that moved nothing
  forged.total.gm_to_ub_bytes = t.input_bytes;
  forged.total.ub_to_gm_bytes = t.output_bytes;
  EXPECT_LT(Estimate(forged, p).total_us, floor);  // what the floor is for
}

}  // namespace
}  // namespace cannbot::ascendc
