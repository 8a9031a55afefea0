#include "cannbot/util/stats.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace cannbot {
namespace {

// 1..n in a scrambled (but deterministic) order.
std::vector<double> Shuffled(int n, uint64_t seed) {
  std::vector<double> v;
  for (int i = 1; i <= n; ++i) v.push_back(i);
  std::mt19937_64 engine(seed);
  std::shuffle(v.begin(), v.end(), engine);
  return v;
}

// The largest j >= 0 with P(B < j) <= alpha/2 for B ~ Binomial(n, 1/2), computed with exact
// integer binomial coefficients (independently of the code under test).
int ExpectedOrderIndex(int n, double confidence) {
  const long double alpha_half = (1.0L - static_cast<long double>(confidence)) / 2.0L;
  const long double total = std::ldexp(1.0L, n);
  uint64_t coefficient = 1;  // C(n, 0)
  uint64_t cumulative = 0;   // sum_{k < j} C(n, k)
  int j = 0;
  for (int k = 0; k < n; ++k) {
    cumulative += coefficient;  // now sum_{i <= k} C(n, i) = 2^n P(B <= k) = 2^n P(B < k+1)
    if (static_cast<long double>(cumulative) / total > alpha_half) break;
    j = k + 1;
    coefficient = coefficient * static_cast<uint64_t>(n - k) / static_cast<uint64_t>(k + 1);
  }
  return j;
}

TEST(StatsTest, MedianOfOddCount) {
  EXPECT_DOUBLE_EQ(Median({3.0}), 3.0);
  EXPECT_DOUBLE_EQ(Median({1.0, 2.0, 10.0}), 2.0);
}

TEST(StatsTest, MedianOfEvenCountAveragesMiddlePair) {
  EXPECT_DOUBLE_EQ(Median({1.0, 2.0}), 1.5);
  EXPECT_DOUBLE_EQ(Median({1.0, 2.0, 4.0, 100.0}), 3.0);
}

TEST(StatsTest, MedianOfUnsortedInput) {
  EXPECT_DOUBLE_EQ(Median({9.0, -1.0, 5.0, 3.0, 7.0}), 5.0);
  EXPECT_DOUBLE_EQ(Median({8.0, 1.0, 6.0, 2.0}), 4.0);
  EXPECT_DOUBLE_EQ(Median(Shuffled(101, 7)), 51.0);
  EXPECT_DOUBLE_EQ(Median(Shuffled(100, 8)), 50.5);
}

TEST(StatsTest, MedianIsRobustToOutliers) {
  EXPECT_DOUBLE_EQ(Median({1.0, 2.0, 3.0, 4.0, 1e12}), 3.0);
}

TEST(StatsTest, IntervalForTwentySamplesIsSixthToFifteenth) {
  // P(B<=5) = 0.0207 <= 0.025 < P(B<=6) = 0.0577 for B ~ Binomial(20, 1/2): the interval is
  // [x(6), x(15)] in sorted 1-based order, whatever order the samples come in.
  for (uint64_t seed : {1u, 2u, 3u}) {
    Interval ci = MedianConfidenceInterval(Shuffled(20, seed), 0.95);
    EXPECT_DOUBLE_EQ(ci.low, 6.0);
    EXPECT_DOUBLE_EQ(ci.high, 15.0);
  }
  Interval by_default = MedianConfidenceInterval(Shuffled(20, 4));
  EXPECT_DOUBLE_EQ(by_default.low, 6.0);
  EXPECT_DOUBLE_EQ(by_default.high, 15.0);
}

TEST(StatsTest, IntervalMatchesExactBinomialOrderStatistics) {
  for (double confidence : {0.90, 0.95, 0.99}) {
    for (int n = 6; n <= 60; ++n) {
      SCOPED_TRACE("n=" + std::to_string(n) + " confidence=" + std::to_string(confidence));
      const int j = ExpectedOrderIndex(n, confidence);
      Interval ci = MedianConfidenceInterval(Shuffled(n, static_cast<uint64_t>(n)), confidence);
      if (j < 1) {
        EXPECT_DOUBLE_EQ(ci.low, 1.0);
        EXPECT_DOUBLE_EQ(ci.high, n);
      } else {
        EXPECT_DOUBLE_EQ(ci.low, j);           // x(j), 1-based
        EXPECT_DOUBLE_EQ(ci.high, n - j + 1);  // x(n-j+1)
      }
    }
  }
}

TEST(StatsTest, HigherConfidenceNeverNarrowsTheInterval) {
  std::vector<double> samples = Shuffled(40, 11);
  Interval c90 = MedianConfidenceInterval(samples, 0.90);
  Interval c95 = MedianConfidenceInterval(samples, 0.95);
  Interval c99 = MedianConfidenceInterval(samples, 0.99);
  EXPECT_LE(c95.low, c90.low);
  EXPECT_GE(c95.high, c90.high);
  EXPECT_LE(c99.low, c95.low);
  EXPECT_GE(c99.high, c95.high);
  EXPECT_LT(c99.low, c90.low);  // strictly wider across that range of confidence
}

TEST(StatsTest, SmallSamplesGiveMinAndMax) {
  for (int n = 1; n < 6; ++n) {
    SCOPED_TRACE("n=" + std::to_string(n));
    std::vector<double> samples;
    for (int i = 0; i < n; ++i) samples.push_back(10.0 - 3.0 * i);  // descending
    Interval ci = MedianConfidenceInterval(samples, 0.95);
    EXPECT_DOUBLE_EQ(ci.low, *std::min_element(samples.begin(), samples.end()));
    EXPECT_DOUBLE_EQ(ci.high, *std::max_element(samples.begin(), samples.end()));
  }
}

TEST(StatsTest, IntervalContainsTheSampleMedian) {
  std::mt19937_64 engine(1234);
  std::lognormal_distribution<double> skewed(0.0, 1.0);
  for (int n : {1, 2, 5, 6, 7, 10, 19, 20, 21, 50, 101, 500}) {
    std::vector<double> samples;
    for (int i = 0; i < n; ++i) samples.push_back(skewed(engine));
    Interval ci = MedianConfidenceInterval(samples, 0.95);
    const double median = Median(samples);
    SCOPED_TRACE("n=" + std::to_string(n));
    EXPECT_LE(ci.low, median);
    EXPECT_GE(ci.high, median);
    EXPECT_LE(ci.low, ci.high);
  }
}

TEST(StatsTest, IntervalCoversTrueMedianAtNominalRate) {
  // Exponential(1) has median ln 2. For n = 25 the exact coverage of the order-statistic
  // interval is about 95.7%; with 2000 trials the simulated rate has a standard deviation of
  // about 0.5%, so [0.93, 0.99] is a wide margin on both sides (and rules out [min, max],
  // whose coverage would be ~100%).
  const double true_median = std::log(2.0);
  std::mt19937_64 engine(20240601);
  std::exponential_distribution<double> exponential(1.0);
  const int trials = 2000;
  int covered = 0;
  for (int t = 0; t < trials; ++t) {
    std::vector<double> samples(25);
    for (double& s : samples) s = exponential(engine);
    Interval ci = MedianConfidenceInterval(samples, 0.95);
    if (ci.low <= true_median && true_median <= ci.high) ++covered;
  }
  const double coverage = static_cast<double>(covered) / trials;
  EXPECT_GE(coverage, 0.93);
  EXPECT_LE(coverage, 0.99);
}

}  // namespace
}  // namespace cannbot
