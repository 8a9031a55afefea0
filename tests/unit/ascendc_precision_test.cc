// The CANN precision standard as cannbot applies it to ascendc kernels.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "cannbot/ascendc/precision.h"

namespace cannbot::ascendc {
namespace {

TEST(AscendcPrecisionTest, Thresholds) {
  const PrecisionStandard h = CannPrecisionStandard(16);
  EXPECT_DOUBLE_EQ(h.threshold, 1.0 / 1024);
  EXPECT_DOUBLE_EQ(h.small_value, 1.0 / 2048);
  EXPECT_DOUBLE_EQ(h.small_value_error, 1.0 / 65536);
  const PrecisionStandard f = CannPrecisionStandard(32);
  EXPECT_DOUBLE_EQ(f.threshold, 1.0 / 8192);
  EXPECT_DOUBLE_EQ(f.max_factor, 10);
}

TEST(AscendcPrecisionTest, Fp16IsJudgedAgainstTheReferenceRoundedToHalf) {
  // 1 + 2^-12 is not a half: a correct half kernel returns 1, the nearest half.
  std::vector<float> expected = {1.0f + 1.0f / 4096, 3.0f, -2.5f};
  std::vector<float> got = {1.0f, 3.0f, -2.5f};
  PrecisionReport r = CheckPrecision(expected.data(), got.data(), 3, 16);
  EXPECT_TRUE(r.pass) << r.reason;
  EXPECT_DOUBLE_EQ(r.mare, 0);
  // The same numbers as fp32 are off by 2^-12 relative: MERE 8e-5 < 2^-13, MARE < 10 x 2^-13.
  r = CheckPrecision(expected.data(), got.data(), 3, 32);
  EXPECT_TRUE(r.pass) << r.reason;
  EXPECT_GT(r.mare, 0);
}

TEST(AscendcPrecisionTest, MeanAndMaxBounds) {
  std::vector<float> expected(100, 1.0f), got(100, 1.0f);
  got[7] = 1.0f + 0.02f;  // one element 2% off: MARE 0.02 > 10 x 2^-10
  PrecisionReport r = CheckPrecision(expected.data(), got.data(), 100, 16);
  EXPECT_FALSE(r.pass);
  EXPECT_EQ(r.mare_index, 7);
  EXPECT_NE(r.reason.find("max relative error"), std::string::npos) << r.reason;
  for (float& g : got) g = 1.0f + 1.0f / 512;  // every element 2^-9 off: MERE too large
  r = CheckPrecision(expected.data(), got.data(), 100, 16);
  EXPECT_FALSE(r.pass);
  EXPECT_NE(r.reason.find("mean relative error"), std::string::npos) << r.reason;
}

TEST(AscendcPrecisionTest, SmallValuesAreJudgedByAbsoluteError) {
  // A half subnormal off by one unit: relative error is huge, absolute error tiny.
  std::vector<float> expected = {6e-8f, 1.0f};
  std::vector<float> got = {1.2e-7f, 1.0f};
  PrecisionReport r = CheckPrecision(expected.data(), got.data(), 2, 16);
  EXPECT_TRUE(r.pass) << r.reason;
  EXPECT_EQ(r.small_elements, 1);
  got[0] = 1e-4f;  // above 2^-16 absolute
  r = CheckPrecision(expected.data(), got.data(), 2, 16);
  EXPECT_FALSE(r.pass);
  EXPECT_EQ(r.small_value_errors, 1);
}

TEST(AscendcPrecisionTest, NonFiniteValuesMustMatch) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> expected = {inf, nan, 1.0f, 70000.0f};
  std::vector<float> got = {inf, nan, 1.0f, inf};  // 70000 is inf in half
  PrecisionReport r = CheckPrecision(expected.data(), got.data(), 4, 16);
  EXPECT_TRUE(r.pass) << r.reason;
  got[2] = nan;  // a never-written poison value where a number was expected
  r = CheckPrecision(expected.data(), got.data(), 4, 16);
  EXPECT_FALSE(r.pass);
  EXPECT_EQ(r.first_nonfinite_index, 2);
  got[2] = 1.0f;
  got[3] = 65504.0f;
  r = CheckPrecision(expected.data(), got.data(), 4, 32);  // fp32: 70000 expected, 65504 got
  EXPECT_FALSE(r.pass);
}

TEST(AscendcPrecisionTest, AbsoluteFloorForgivesCancellationNoise) {
  // A layernorm-like output near zero with float-sized absolute error.
  std::vector<float> expected = {1e-4f, 0.5f};
  std::vector<float> got = {1e-4f + 2.4e-7f, 0.5f};
  EXPECT_FALSE(CheckPrecision(expected.data(), got.data(), 2, 32).pass);
  const PrecisionReport r = CheckPrecision(expected.data(), got.data(), 2, 32, 1e-5);
  EXPECT_TRUE(r.pass) << r.reason;
  EXPECT_EQ(r.within_floor, 2);
}

TEST(AscendcPrecisionTest, QuantizeToHalfSaturates) {
  EXPECT_EQ(QuantizeToHalf(3e38f), 65504.0f);
  EXPECT_EQ(QuantizeToHalf(-70000.0f), -65504.0f);
  EXPECT_EQ(QuantizeToHalf(1.0f + 1.0f / 4096), 1.0f);
  EXPECT_TRUE(std::isinf(QuantizeToHalf(std::numeric_limits<float>::infinity())));
  EXPECT_TRUE(std::isnan(QuantizeToHalf(std::nanf(""))));
  EXPECT_EQ(QuantizeToHalf(1e-9f), 0.0f);
}

// Expected fp16 outputs round as half arithmetic does: an overflow is inf (as the kernel's
// own instructions give), not the input conversion's 65504, so exp(12) in fp16 matches.
TEST(AscendcPrecisionTest, ExpectedHalfResultsOverflowToInfinity) {
  float values[4] = {70000.0f, -3e38f, 1.0f + 1.0f / 4096, 65504.0f};
  RoundAsHalfResult(values, 4);
  EXPECT_TRUE(std::isinf(values[0]) && values[0] > 0);
  EXPECT_TRUE(std::isinf(values[1]) && values[1] < 0);
  EXPECT_EQ(values[2], 1.0f);
  EXPECT_EQ(values[3], 65504.0f);
  const float got[1] = {std::numeric_limits<float>::infinity()};
  EXPECT_TRUE(CheckPrecision(values, got, 1, 16).pass);
}

TEST(AscendcPrecisionTest, Bf16HasItsOwnStandardAndRounding) {
  const PrecisionStandard s = CannPrecisionStandard(16, /*bfloat16=*/true);
  EXPECT_EQ(StandardName(s), std::string("bf16"));
  EXPECT_EQ(s.threshold, std::ldexp(1.0, -7));
  EXPECT_EQ(QuantizeToBf16(1.0f + 1.0f / 512), 1.0f);              // below half an ulp
  EXPECT_EQ(QuantizeToBf16(1.0f + 3.0f / 256), 1.0f + 2.0f / 128);  // tie to even
  const float big = QuantizeToBf16(3e38f);  // float's range: no saturation, no infinity
  EXPECT_TRUE(std::isfinite(big));
  EXPECT_NEAR(big / 3e38f, 1.0f, 1.0f / 256);
  EXPECT_TRUE(std::isnan(QuantizeToBf16(std::nanf(""))));
  // An error of 1% passes bf16 (2^-7 = 0.78% mean, 7.8% max) and fails fp16.
  std::vector<float> expected(64, 1.0f), got(64, 1.0f);
  got[0] = 1.5f;  // the golden is 1 in both: one element 50% off, the mean 0.78%
  got[1] = 1.0f + 1.0f / 64;
  const PrecisionReport bf16 = CheckPrecision(expected.data(), got.data(), 64, 16, 0, true);
  EXPECT_FALSE(bf16.pass);  // 50% is beyond 10 x 2^-7
  EXPECT_NE(bf16.reason.find("CANN bf16 standard"), std::string::npos) << bf16.reason;
  got[0] = 1.0f;
  EXPECT_TRUE(CheckPrecision(expected.data(), got.data(), 64, 16, 0, true).pass);
  EXPECT_FALSE(CheckPrecision(expected.data(), got.data(), 64, 16, 0, false).pass);
}

}  // namespace
}  // namespace cannbot::ascendc
