// What an operator package's launch does to a value of each dtype (ascendc/launch_dtype.h):
// the reference must see exactly the numbers the kernel sees.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "cannbot/ascendc/launch_dtype.h"
#include "cannbot/ascendc/precision.h"
#include "cannbot/ascendc/stats.h"

namespace cannbot::ascendc {
namespace {

TEST(LaunchDtypeTest, IntegersRoundToNearestAndSaturate) {
  EXPECT_EQ(AsLaunched("int32", 2.5f), 2.0f);  // nearest even, as the launch's nearbyint
  EXPECT_EQ(AsLaunched("int32", -7.6f), -8.0f);
  EXPECT_EQ(AsLaunched("int8", 300.0f), 127.0f);
  EXPECT_EQ(AsLaunched("int8", -300.0f), -128.0f);
  EXPECT_EQ(AsLaunched("uint8", -5.0f), 0.0f);
  EXPECT_EQ(AsLaunched("uint16", 70000.0f), 65535.0f);
  // INT32_MAX is no float: the top is the largest float below it, which the kernel holds too.
  EXPECT_EQ(AsLaunched("int32", 1e30f), 2147483520.0f);
  EXPECT_EQ(AsLaunched("int32", -1e30f), -2147483648.0f);
  EXPECT_EQ(AsLaunched("uint64", 1e30f), 18446742974197923840.0f);
  EXPECT_EQ(AsLaunched("int16", std::numeric_limits<float>::quiet_NaN()), 0.0f);
  EXPECT_EQ(AsLaunched("bool", -0.25f), 1.0f);
  EXPECT_EQ(AsLaunched("bool", 0.0f), 0.0f);
}

TEST(LaunchDtypeTest, IntegerResultsWrapAsTwosComplementArithmetic) {
  EXPECT_EQ(AsIntegerResult("int8", 142.0f), -114.0f);  // 100 + 42 in int8
  EXPECT_EQ(AsIntegerResult("int8", -200.0f), 56.0f);
  EXPECT_EQ(AsIntegerResult("uint8", -1.0f), 255.0f);
  EXPECT_EQ(AsIntegerResult("int16", 32768.0f), -32768.0f);
  EXPECT_EQ(AsIntegerResult("int64", 9223372036854775808.0f), -9223372036854775808.0f);
  EXPECT_EQ(AsIntegerResult("uint32", -1.0f), 4294967296.0f);  // 2^32 - 1, as fp32
  EXPECT_EQ(AsIntegerResult("int32", 41.5f), 42.0f);  // nearest even first
  EXPECT_EQ(AsIntegerResult("int32", -7.0f), -7.0f);
  EXPECT_EQ(AsIntegerResult("bool", 3.0f), 1.0f);
  EXPECT_EQ(AsIntegerResult("float16", 0.1f), AsLaunched("float16", 0.1f));
}

TEST(LaunchDtypeTest, FloatsKeepTheirOwnRounding) {
  EXPECT_EQ(AsLaunched("float32", 0.1f), 0.1f);
  EXPECT_EQ(AsLaunched("float16", 1e6f), 65504.0f);  // the launch saturates finite values
  EXPECT_EQ(AsLaunched("float16", 0.1f), QuantizeToHalf(0.1f));
  EXPECT_EQ(AsLaunched("bfloat16", 1e6f), QuantizeToBf16(1e6f));
  EXPECT_TRUE(std::isinf(AsLaunched("bfloat16", std::numeric_limits<float>::infinity())));
}

TEST(LaunchDtypeTest, NamesWidthsAndWhatIsNotLaunched) {
  EXPECT_EQ(GeDataTypeName("int64"), "DT_INT64");
  EXPECT_EQ(GeDataTypeName("bfloat16"), "DT_BF16");
  EXPECT_EQ(DtypeBits("uint8"), 8u);
  EXPECT_EQ(DtypeBits("int64"), 64u);
  EXPECT_TRUE(IsIntegerDtype("bool"));
  EXPECT_FALSE(IsIntegerDtype("float16"));
  EXPECT_FALSE(IsLaunchable("complex64"));
  EXPECT_EQ(GeDataTypeName("float64"), "");
  EXPECT_EQ(FirstUnlaunchable({"int32", "float64", "complex64"}), "float64");
  EXPECT_EQ(FirstUnlaunchable({"int32", "float16"}), "");
}

TEST(LaunchDtypeTest, CompulsoryTrafficCountsEachTensorAtItsOwnWidth) {
  // int8 inputs, a float output: 2 x 100 bytes read, 400 written.
  const CompulsoryTraffic t = ComputeCompulsoryTraffic({100, 100}, {100}, {8, 8, 32});
  EXPECT_EQ(t.input_bytes, 200u);
  EXPECT_EQ(t.output_bytes, 400u);
  const CompulsoryTraffic uniform = ComputeCompulsoryTraffic({100, 100}, {100}, 16);
  EXPECT_EQ(uniform.input_bytes, 400u);
  EXPECT_EQ(uniform.output_bytes, 200u);
}

}  // namespace
}  // namespace cannbot::ascendc
