// The count channel's records, added up by the validating process (ascendc/count_stream.h):
// the same statistics the launcher prints for an honest launch, and a refusal for streams no
// launch writes.
#include "cannbot/ascendc/count_stream.h"

#include <gtest/gtest.h>

#include <cstring>

namespace cannbot::ascendc {
namespace {

// The emulation's CounterField numbers used below.
constexpr uint64_t kGmToUbBytes = 0, kGmToUbCopies = 3, kVectorRepeats = 6, kScalarOps = 9;
constexpr uint64_t kUb = 0, kL0A = 2;

class Stream {
 public:
  Stream& Add(CountKind kind, uint32_t block, uint64_t arg, uint64_t amount) {
    const CountRecord r{kCountMagic << 16 | static_cast<uint32_t>(kind), block, arg, amount};
    bytes_.append(reinterpret_cast<const char*>(&r), sizeof(r));
    return *this;
  }
  Stream& Count(uint32_t block, uint64_t field, uint64_t amount) {
    return Add(CountKind::kCounter, block, field, amount);
  }
  const std::string& bytes() const { return bytes_; }

 private:
  std::string bytes_;
};

// Two blocks, each with a double-buffered input queue of 3 tiles and a single-buffered output
// queue that never carried a copy.
Stream TwoBlockLaunch() {
  Stream s;
  s.Add(CountKind::kLaunch, 0, 2, 16);
  for (uint32_t block = 0; block < 2; ++block) {
    s.Add(CountKind::kQueue, block, 0, 2).Add(CountKind::kQueue, block, 1, 1);
    s.Add(CountKind::kHighWater, block, kUb, 4096 * (block + 1));
    for (int tile = 0; tile < 3; ++tile) {
      s.Add(CountKind::kQueueCopy, block, 0, 1).Count(block, kGmToUbBytes, 1000 + block);
      s.Count(block, kGmToUbCopies, 1).Add(CountKind::kEnqueue, block, 0, tile == 2 ? 2 : 1);
      s.Count(block, kVectorRepeats, 10);
    }
    s.Add(CountKind::kEnqueue, block, 1, 1);
  }
  s.Count(1, kScalarOps, 7).Add(CountKind::kBarrierAll, 1, 0, 1);
  s.Add(CountKind::kHighWater, 0, kL0A, 512);
  s.Add(CountKind::kLaunchEnd, 0, 0, 0);
  return s;
}

TEST(CountStreamTest, AddsTheRecordsUpAsTheLauncherDoes) {
  auto stats = StatsFromCountRecords(TwoBlockLaunch().bytes());
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  EXPECT_EQ(stats->block_dim, 2u);
  EXPECT_EQ(stats->dtype_bits, 16u);
  EXPECT_FALSE(stats->bfloat16);
  EXPECT_EQ(stats->total.gm_to_ub_bytes, 3u * 1000 + 3u * 1001);
  EXPECT_EQ(stats->max_block.gm_to_ub_bytes, 3u * 1001);
  EXPECT_EQ(stats->total.gm_to_ub_copies, 6u);
  EXPECT_EQ(stats->total.vector_repeats, 60u);
  EXPECT_EQ(stats->max_block.scalar_ops, 7u);
  // The queue that carried copies decides: 2 buffers, 3 tiles; occupancy counts every queue.
  EXPECT_EQ(stats->buffer_num, 2);
  EXPECT_EQ(stats->tiles, 3u);
  EXPECT_EQ(stats->max_queue_occupancy, 2);
  EXPECT_EQ(stats->pipe_all_barriers, 1u);
  EXPECT_TRUE(stats->overlap);
  EXPECT_EQ(stats->ub_high_water_bytes, 8192u);
  EXPECT_EQ(stats->cube_high_water_bytes[1], 512u);  // L0A
}

TEST(CountStreamTest, AgreesWithAnEqualLineAndNamesTheFirstFieldThatDiffers) {
  auto counted = StatsFromCountRecords(TwoBlockLaunch().bytes());
  ASSERT_TRUE(counted.ok());
  LaunchStats printed = *counted;
  EXPECT_EQ(CompareCounted(*counted, printed), "");
  printed.total.vector_repeats = 0;
  printed.max_block.vector_repeats = 0;
  EXPECT_EQ(CompareCounted(*counted, printed),
            "total vector_repeats: the line says 0, the count channel 60");
  printed = *counted;
  printed.tiles = 8;
  EXPECT_EQ(CompareCounted(*counted, printed), "tiles: the line says 8, the count channel 3");
}

TEST(CountStreamTest, RefusesStreamsNoLaunchWrites) {
  EXPECT_NE(StatsFromCountRecords("").status().message().find("sent no counts"),
            std::string::npos);
  std::string partial = TwoBlockLaunch().bytes();
  partial.pop_back();
  EXPECT_NE(StatsFromCountRecords(partial).status().message().find("a partial record"),
            std::string::npos);
  const struct {
    Stream stream;
    const char* why;
  } bad[] = {
      {Stream().Count(0, kScalarOps, 1), "the first is not the launch's"},
      {Stream().Add(CountKind::kLaunch, 0, 1, 32).Add(CountKind::kLaunch, 0, 48, 32),
       "a second launch"},
      {Stream().Add(CountKind::kLaunch, 0, 1, 32).Count(1, kScalarOps, 1),
       "a block past the launch's block count"},
      {Stream().Add(CountKind::kLaunch, 0, 1, 32).Count(0, 99, 1), "an unknown counter"},
      {Stream().Add(CountKind::kLaunch, 0, 1, 32).Add(CountKind::kQueue, 0, 0, 2).Add(
           CountKind::kQueue, 0, 0, 4),
       "a queue made twice"},
      {Stream().Add(CountKind::kLaunch, 0, 1, 32).Add(CountKind::kEnqueue, 0, 3, 1),
       "a queue never made"},
      {Stream().Add(CountKind::kLaunch, 0, 1, 32).Add(static_cast<CountKind>(77), 0, 0, 0),
       "an unknown kind"},
      {Stream().Add(CountKind::kLaunch, 0, 1, 32), "the launch never ended"},
      {Stream().Add(CountKind::kLaunch, 0, 1, 32).Add(CountKind::kLaunchEnd, 0, 0, 0).Count(
           0, kScalarOps, 1),
       "a record after the launch ended"},
  };
  for (const auto& c : bad) {
    auto stats = StatsFromCountRecords(c.stream.bytes());
    ASSERT_FALSE(stats.ok()) << c.why;
    EXPECT_NE(stats.status().message().find(c.why), std::string::npos)
        << stats.status().message();
  }
  std::string garbage = TwoBlockLaunch().bytes();
  garbage[24 * 3 + 2] ^= 0x55;  // a record's magic
  EXPECT_NE(StatsFromCountRecords(garbage).status().message().find("not a record"),
            std::string::npos);
}

}  // namespace
}  // namespace cannbot::ascendc
