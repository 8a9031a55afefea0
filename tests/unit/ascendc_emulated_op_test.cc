// Which op specs the Ascend C emulation takes (validator/ascendc_target.h, CheckEmulatedOp) and
// how the generated wrappers hand their tensors to the fp32 launch (PlanLaunchBuffers): an
// int8 spec tensor is taken where each tensor launches in its own dtype (packages, samples),
// widened exactly, and refused on the plain target, where every tensor shares one dtype.
#include <gtest/gtest.h>

#include "builtin_ops.h"
#include "cannbot/validator/ascendc_target.h"

namespace cannbot::validator {
namespace {

TEST(EmulatedOpTest, AnInt8SpecTensorIsTakenWhereTensorsLaunchInTheirOwnDtype) {
  const ops::OpSpec* dequantize = cannbot_test::BuiltInOps().Find("dequantize_int8");
  ASSERT_NE(dequantize, nullptr);
  EXPECT_TRUE(CheckEmulatedOp(*dequantize, "operator packages", false, true).ok());
  const Status plain = CheckEmulatedOp(*dequantize, "the ascendc target", true);
  ASSERT_FALSE(plain.ok());
  EXPECT_NE(plain.message().find("packages and samples take 8-bit integers too"),
            std::string::npos)
      << plain.message();
  EXPECT_NE(plain.message().find("declares x as int8_t"), std::string::npos) << plain.message();

  ops::OpSpec wide = *dequantize;  // an int32 input does not convert to fp32 exactly
  wide.params[0].dtype = ops::DType::kI32;
  const Status int32 = CheckEmulatedOp(wide, "operator packages", false, true);
  ASSERT_FALSE(int32.ok());
  EXPECT_NE(int32.message().find("declares x as int32_t"), std::string::npos) << int32.message();

  const LaunchBuffers buffers = PlanLaunchBuffers(*dequantize);
  EXPECT_EQ(buffers.widened, std::set<std::string>{"x"});
  EXPECT_EQ(buffers.Buffer("x"), "cb_x.data()");
  EXPECT_EQ(buffers.Buffer("y"), "y");
}

}  // namespace
}  // namespace cannbot::validator
