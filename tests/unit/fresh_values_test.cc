// The perf gate's fresh values (fresh_values.h): the normal draws have the normal's moments and
// tails, uniform ones stay in range, streams are independent, and the AVX2 path and the portable
// one give the same bits.
#include "cannbot/validator/fresh_values.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace cannbot::validator {
namespace {

constexpr int64_t kCount = 1 << 20;

TEST(FreshValuesTest, NormalDrawsHaveTheNormalsMomentsAndTails) {
  std::vector<float> v(kCount);
  FillNormal(v.data(), kCount, FreshKey(7, 1, 2, 3), 2.0f, 4.0f);
  double sum = 0, squares = 0, fourth = 0;
  int64_t beyond_two = 0, beyond_three = 0;
  for (float x : v) {
    const double z = (x - 2.0) / 4.0;
    sum += z, squares += z * z, fourth += z * z * z * z;
    beyond_two += std::fabs(z) > 2, beyond_three += std::fabs(z) > 3;
  }
  const double n = kCount;
  EXPECT_NEAR(sum / n, 0, 0.005);
  EXPECT_NEAR(squares / n, 1, 0.01);
  EXPECT_NEAR(fourth / n, 3, 0.05);  // kurtosis: a sum of uniforms would give 2.4 or less
  EXPECT_NEAR(beyond_two / n, 0.0455, 0.0455 * 0.03);
  EXPECT_NEAR(beyond_three / n, 0.0027, 0.0027 * 0.1);
}

TEST(FreshValuesTest, UniformDrawsStayInTheirRangeAndFillIt) {
  std::vector<float> v(kCount);
  const float top = std::nextafter(1.0f, 0.0f);
  FillUniform(v.data(), kCount, FreshKey(7, 4, 5, 6), -1.0f, 1.0f, top);
  double sum = 0;
  float low = 2, high = -2;
  for (float x : v) {
    ASSERT_TRUE(x >= -1.0f && x <= top) << x;
    sum += x, low = std::min(low, x), high = std::max(high, x);
  }
  EXPECT_NEAR(sum / kCount, 0, 0.005);
  EXPECT_LT(low, -0.999f);
  EXPECT_GT(high, 0.999f);
}

TEST(FreshValuesTest, StreamsAreIndependentAndRepeatable) {
  std::vector<float> a(kCount), b(kCount), again(kCount);
  FillNormal(a.data(), kCount, FreshKey(7, 1, 0, 0), 0, 1);
  FillNormal(b.data(), kCount, FreshKey(7, 2, 0, 0), 0, 1);
  FillNormal(again.data(), kCount, FreshKey(7, 1, 0, 0), 0, 1);
  double cov = 0;
  for (int64_t i = 0; i < kCount; ++i) cov += double(a[i]) * b[i];
  EXPECT_LT(std::fabs(cov / kCount), 0.005);
  EXPECT_EQ(a, again);
  EXPECT_NE(FreshKey(7, 1, 0, 0), FreshKey(8, 1, 0, 0));
  EXPECT_NE(FreshWord(1, 0), FreshWord(1, 1));
}

TEST(FreshValuesTest, TheFastPathGivesThePortableBits) {
  for (int64_t n : {int64_t{1}, int64_t{7}, int64_t{8}, int64_t{1037}, int64_t{65549}}) {
    std::vector<float> fast(n), portable(n);
    FillNormal(fast.data(), n, 99, 0.5f, 3.0f);
    FillNormalPortable(portable.data(), n, 99, 0.5f, 3.0f);
    EXPECT_EQ(fast, portable) << n;
    FillUniform(fast.data(), n, 99, -3.0f, 5.0f, std::nextafter(5.0f, 0.0f));
    FillUniformPortable(portable.data(), n, 99, -3.0f, 5.0f, std::nextafter(5.0f, 0.0f));
    EXPECT_EQ(fast, portable) << n;
  }
}

}  // namespace
}  // namespace cannbot::validator
