// Parsing the ascendc emulation's output lines: stats, violations, and the compulsory-traffic
// sanity check that bounds forged stats.
#include <gtest/gtest.h>

#include <string>

#include "cannbot/ascendc/stats.h"

namespace cannbot::ascendc {
namespace {

// A line exactly as targets/ascendc/cannbot_launch.h prints it.
constexpr const char* kLine =
    "cannbot-ascendc-stats: {\"version\":1,\"block_dim\":48,\"dtype_bits\":16,"
    "\"input_bytes\":8388608,\"output_bytes\":8388608,\"ub_capacity_bytes\":196608,"
    "\"ub_high_water_bytes\":131072,\"buffer_num\":2,\"max_queue_occupancy\":1,\"tiles\":11,"
    "\"pipe_all_barriers\":0,\"overlap\":true,"
    "\"total\":{\"gm_to_ub_bytes\":8388608,\"ub_to_gm_bytes\":8388608,\"ub_to_ub_bytes\":0,"
    "\"gm_to_ub_copies\":528,\"ub_to_gm_copies\":528,\"vector_instructions\":3168,"
    "\"vector_repeats\":196608,\"vector_bytes\":50331648,\"vector_complex_repeats\":65536,"
    "\"scalar_ops\":0},"
    "\"max_block\":{\"gm_to_ub_bytes\":174768,\"ub_to_gm_bytes\":174768,\"ub_to_ub_bytes\":0,"
    "\"gm_to_ub_copies\":11,\"ub_to_gm_copies\":11,\"vector_instructions\":66,"
    "\"vector_repeats\":4098,\"vector_bytes\":1048608,\"vector_complex_repeats\":1366,"
    "\"scalar_ops\":0}}";

TEST(AscendcStatsTest, ParsesTheLauncherLine) {
  auto stats = ParseStats(std::string("kernel says hi\n") + kLine + "\n");
  ASSERT_TRUE(stats.ok()) << stats.status().message();
  EXPECT_EQ(stats->block_dim, 48u);
  EXPECT_EQ(stats->dtype_bits, 16u);
  EXPECT_EQ(stats->buffer_num, 2);
  EXPECT_EQ(stats->tiles, 11u);
  EXPECT_TRUE(stats->overlap);
  EXPECT_EQ(stats->total.gm_to_ub_bytes, 8388608u);
  EXPECT_EQ(stats->total.vector_complex_repeats, 65536u);
  EXPECT_EQ(stats->max_block.vector_repeats, 4098u);
  // A line from before the cube's high-water marks has none: 0.
  EXPECT_EQ(stats->cube_high_water_bytes[0], 0u);
  // Round trip through ToJson keeps every field.
  stats->cube_high_water_bytes[2] = 8192;
  auto again = ParseStats(std::string(kStatsPrefix) + stats->ToJson().dump() + "\n");
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(again->ToJson(), stats->ToJson());
  EXPECT_EQ(again->cube_high_water_bytes[2], 8192u);  // L0B
}

TEST(AscendcStatsTest, FindsALineAfterPartialKernelOutput) {
  auto stats = ParseStats(std::string("no newline here") + kLine);
  ASSERT_TRUE(stats.ok()) << stats.status().message();
}

TEST(AscendcStatsTest, OneLaunchMeansOneLine) {
  EXPECT_FALSE(ParseStats("nothing\n").ok());
  const std::string two = std::string(kLine) + "\n" + kLine + "\n";
  EXPECT_FALSE(ParseStats(two).ok());
  auto all = ParseAllStats(two);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->size(), 2u);
}

TEST(AscendcStatsTest, RejectsMalformedLines) {
  const std::string prefix = kStatsPrefix;
  EXPECT_FALSE(ParseStats(prefix + "{\"version\":1}\n").ok());
  EXPECT_FALSE(ParseStats(prefix + "not json\n").ok());
  std::string negative = kLine;
  negative.replace(negative.find("\"tiles\":11"), 10, "\"tiles\":-1");
  EXPECT_FALSE(ParseStats(negative).ok());
  std::string bad_dim = kLine;
  bad_dim.replace(bad_dim.find("\"block_dim\":48"), 14, "\"block_dim\":0");
  EXPECT_FALSE(ParseStats(bad_dim).ok());
  std::string bad_version = kLine;
  bad_version.replace(bad_version.find("\"version\":1"), 11, "\"version\":2");
  EXPECT_FALSE(ParseStats(bad_version).ok());
}

TEST(AscendcStatsTest, FindsTheFirstViolation) {
  const std::string output =
      "partial cannbot-ascendc-violation: ub-overflow: InitBuffer(queue, num=2, len=102400) "
      "asks for 204800 bytes\ncannbot-ascendc-violation: tensor-leak: second\n";
  auto v = FindViolation(output);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->rule, "ub-overflow");
  EXPECT_EQ(v->message, "InitBuffer(queue, num=2, len=102400) asks for 204800 bytes");
  EXPECT_EQ(v->Describe(),
            "the kernel broke the Ascend C rule ub-overflow: InitBuffer(queue, num=2, "
            "len=102400) asks for 204800 bytes");
  EXPECT_FALSE(FindViolation("all fine\n").has_value());
  // What the emulation cannot run is said to be its limit, not a rule the kernel broke.
  auto limit = FindViolation("cannbot-ascendc-violation: not-emulated: Add on int32_t tensors\n");
  ASSERT_TRUE(limit.has_value());
  EXPECT_EQ(limit->Describe(),
            "the kernel uses what cannbot's emulation does not have yet: Add on int32_t tensors");
  EXPECT_FALSE(FindViolation("cannbot-ascendc-violation: Not A Rule: x\n").has_value());
}

TEST(AscendcStatsTest, CompulsoryTrafficCatchesImpossibleStats) {
  auto stats = ParseStats(kLine);
  ASSERT_TRUE(stats.ok());
  const int64_t n = 4194304;
  CompulsoryTraffic need = ComputeCompulsoryTraffic({n}, {n}, 16);
  EXPECT_EQ(need.input_bytes, 8388608u);
  EXPECT_TRUE(CheckCompulsoryTraffic(*stats, need).ok());
  // The same counts claimed for fp32 tensors are half the compulsory traffic: a lie.
  need = ComputeCompulsoryTraffic({n}, {n}, 32);
  const Status lie = CheckCompulsoryTraffic(*stats, need);
  EXPECT_FALSE(lie.ok());
  EXPECT_EQ(lie.code(), Status::Code::kAborted);
  EXPECT_NE(lie.message().find("fewer than the 16777216 bytes of its inputs"), std::string::npos);
}

}  // namespace
}  // namespace cannbot::ascendc
