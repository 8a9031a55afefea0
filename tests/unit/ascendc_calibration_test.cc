// The cost model against published on-board measurements (tests/fixtures/ascendc/
// published_timings.tsv): with the default profile every estimate lies within
// kCalibratedError of the measured time, and the band is tight (its ends are what the rows
// reach, so a model change that improves or worsens the fit must update the band and the
// table in docs/ascendc.md with it). Prints the table the docs show.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cannbot/ascendc/cost_model.h"

namespace cannbot::ascendc {
namespace {

struct Published {
  std::string name;
  LaunchStats stats;
  double measured_us = 0;
};

std::vector<Published> ReadTable() {
  std::ifstream in(std::string(CANNBOT_SOURCE_DIR) +
                   "/tests/fixtures/ascendc/published_timings.tsv");
  std::vector<Published> rows;
  std::string line;
  bool header = true;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (header) {  // the column names
      header = false;
      continue;
    }
    std::vector<std::string> f;
    std::stringstream cells(line);
    for (std::string cell; std::getline(cells, cell, '\t');) f.push_back(cell);
    EXPECT_EQ(f.size(), 14u) << line;
    if (f.size() != 14u) continue;
    Published p;
    p.name = f[0];
    p.stats.block_dim = static_cast<uint32_t>(std::stoul(f[1]));
    WorkCounters& b = p.stats.max_block;
    b.gm_to_ub_bytes = std::stoull(f[2]);
    b.ub_to_gm_bytes = std::stoull(f[3]);
    b.gm_to_ub_copies = std::stoull(f[4]);
    b.ub_to_gm_copies = std::stoull(f[5]);
    b.vector_instructions = std::stoull(f[6]);
    b.vector_repeats = std::stoull(f[7]);
    b.scalar_ops = std::stoull(f[8]);
    p.stats.overlap = f[9] == "1";
    p.stats.buffer_num = p.stats.overlap ? 2 : 1;
    p.stats.tiles = std::stoull(f[10]);
    p.stats.total = b;  // totals only feed the imbalance, not the estimate checked here
    p.measured_us = std::stod(f[11]);
    rows.push_back(p);
  }
  return rows;
}

TEST(AscendcCalibrationTest, TheDefaultProfileIsWithinItsStatedErrorOfEveryPublishedMeasurement) {
  const std::vector<Published> rows = ReadTable();
  ASSERT_GE(rows.size(), 8u);
  const DeviceProfile profile;
  double lowest = 1e9, highest = 0;
  std::printf("| case | measured us | estimated us | estimate / measured | bound |\n");
  for (const Published& row : rows) {
    const CostEstimate e = Estimate(row.stats, profile);
    const double ratio = e.total_us / row.measured_us;
    std::printf("| %s | %.2f | %.2f | %.3f | %s |\n", row.name.c_str(), row.measured_us,
                e.total_us, ratio, e.bound.c_str());
    EXPECT_GE(ratio, kCalibratedError.low) << row.name;
    EXPECT_LE(ratio, kCalibratedError.high) << row.name;
    lowest = std::min(lowest, ratio);
    highest = std::max(highest, ratio);
  }
  // The stated band is what the rows reach, rounded outwards by at most 0.01.
  EXPECT_NEAR(lowest, kCalibratedError.low, 0.01);
  EXPECT_NEAR(highest, kCalibratedError.high, 0.01);
}

// What the calibration changed matters in the rows that pull against each other: many small
// copies against few large ones, one core against 48, a scalar loop against vector work.
TEST(AscendcCalibrationTest, TheModelRanksThePublishedVariantsAsMeasured) {
  const std::vector<Published> rows = ReadTable();
  const DeviceProfile profile;
  auto estimate = [&](const std::string& name) {
    for (const Published& row : rows) {
      if (row.name == name) return Estimate(row.stats, profile).total_us;
    }
    ADD_FAILURE() << "no row " << name;
    return 0.0;
  };
  EXPECT_GT(estimate("add_fp16_scalar_1core"), estimate("add_fp16_vector_1core"));
  EXPECT_GT(estimate("add_fp16_vector_1core"), estimate("add_fp16_48core_8k"));
  EXPECT_GT(estimate("add_fp16_48core_8k"), estimate("add_fp16_48core_32k"));
  EXPECT_GT(estimate("add_fp16_48core_32k"), estimate("add_fp16_48core_32k_db"));
  EXPECT_GT(estimate("copy_fp16_128B"), estimate("copy_fp16_8K"));
  EXPECT_GT(estimate("copy_fp16_8K"), estimate("copy_fp16_128K"));
}

TEST(AscendcCalibrationTest, ASpeedupIsShownWithTheRangeTheErrorAllows) {
  const ErrorBand range = SpeedupRange(10.0);
  EXPECT_NEAR(range.low, 10.0 * kCalibratedError.low / kCalibratedError.high, 1e-12);
  EXPECT_NEAR(range.high, 10.0 * kCalibratedError.high / kCalibratedError.low, 1e-12);
  EXPECT_LT(range.low, 10.0);
  EXPECT_GT(range.high, 10.0);
  EXPECT_EQ(DescribeRange({905.4, 1740.2}), "905x-1740x");
  EXPECT_EQ(DescribeRange({1.714, 23.71}), "1.71x-23.7x");
}

}  // namespace
}  // namespace cannbot::ascendc
