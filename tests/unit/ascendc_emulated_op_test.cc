// Which op specs the Ascend C emulation takes (validator/ascendc_target.h, CheckEmulatedOp) and
// how the generated wrappers hand their tensors to the fp32 launch (PlanLaunchBuffers): an
// integer spec tensor is taken where each tensor launches in its own dtype (packages,
// samples), widened (int32 and int64 exactly up to 2^24, checked by the launch), and refused
// on the plain target, where every tensor shares one dtype.
#include <gtest/gtest.h>

#include "builtin_ops.h"
#include "cannbot/validator/ascendc_target.h"

namespace cannbot::validator {
namespace {

TEST(EmulatedOpTest, AnIntegerSpecTensorIsTakenWhereTensorsLaunchInTheirOwnDtype) {
  const ops::OpSpec* dequantize = cannbot_test::BuiltInOps().Find("dequantize_int8");
  ASSERT_NE(dequantize, nullptr);
  EXPECT_TRUE(CheckEmulatedOp(*dequantize, "operator packages", false, true).ok());
  const Status plain = CheckEmulatedOp(*dequantize, "the ascendc target", true);
  ASSERT_FALSE(plain.ok());
  EXPECT_NE(plain.message().find("packages and samples take integers too"),
            std::string::npos)
      << plain.message();
  EXPECT_NE(plain.message().find("declares x as int8_t"), std::string::npos) << plain.message();

  // embedding's int32 ids: taken by packages and samples, refused on the plain target.
  const ops::OpSpec* embedding = cannbot_test::BuiltInOps().Find("embedding");
  ASSERT_NE(embedding, nullptr);
  EXPECT_TRUE(CheckEmulatedOp(*embedding, "samples", false, true).ok());
  const Status int32 = CheckEmulatedOp(*embedding, "the ascendc target", true);
  ASSERT_FALSE(int32.ok());
  EXPECT_NE(int32.message().find("declares ids as int32_t"), std::string::npos) << int32.message();

  const LaunchBuffers buffers = PlanLaunchBuffers(*dequantize);
  EXPECT_EQ(buffers.widened, std::set<std::string>{"x"});
  EXPECT_EQ(buffers.Buffer("x"), "cb_x.data()");
  EXPECT_EQ(buffers.Buffer("y"), "y");
  EXPECT_NE(buffers.before.find("cannbot_ascendc::Widened(x, elements_x, true)"),
            std::string::npos)
      << buffers.before;
  // An output is widened too (the launch keeps what the kernel leaves), unchecked on the way in.
  ops::OpSpec argmax = *cannbot_test::BuiltInOps().Find("argmax");
  const LaunchBuffers indices = PlanLaunchBuffers(argmax);
  EXPECT_NE(indices.before.find("Widened(y, elements_y, false)"), std::string::npos)
      << indices.before;
  EXPECT_NE(indices.after.find("Narrow(cb_y, cb_y_before, y)"), std::string::npos)
      << indices.after;
}

}  // namespace
}  // namespace cannbot::validator
