// DType: names, C types and sizes of tensor element types; parsed once at the edge.
#include <gtest/gtest.h>

#include "builtin_ops.h"
#include "cannbot/ops/dtype.h"

namespace cannbot::ops {
namespace {

TEST(DTypeTest, EveryNameParsesBackToItsType) {
  for (DType d : {DType::kF32, DType::kF16, DType::kBF16, DType::kI8, DType::kU8, DType::kI32,
                  DType::kI64}) {
    auto parsed = ParseDType(DTypeName(d));
    ASSERT_TRUE(parsed.ok()) << DTypeName(d);
    EXPECT_EQ(*parsed, d);
  }
  EXPECT_EQ(DTypeBytes(DType::kF16), 2u);
  EXPECT_EQ(DTypeBytes(DType::kBF16), 2u);
  EXPECT_EQ(DTypeBytes(DType::kI64), 8u);
  EXPECT_STREQ(DTypeCType(DType::kI8), "int8_t");
}

TEST(DTypeTest, AnUnknownNameIsRefusedWithTheAllowedOnes) {
  auto parsed = ParseDType("fp8", "params.x.dtype");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().code(), Status::Code::kInvalidArgument);
  EXPECT_NE(parsed.status().message().find(
                "field 'params.x.dtype' must be one of: float, half, bfloat16, int8_t, uint8_t, "
                "int32_t, int64_t (got \"fp8\")"),
            std::string::npos)
      << parsed.status().message();
}

TEST(DTypeTest, ASignatureAndTheTrafficFollowTheDType) {
  OpSpec op = *cannbot_test::BuiltInOps().Find("add");
  const Shape& perf = op.PerfShape();
  const double fp32_bytes = op.Bytes(perf);
  for (Param& p : op.params) {
    if (p.IsTensor()) p.dtype = DType::kF16;
  }
  // half and bfloat16 are the kernel prelude's names (dtype.h).
  EXPECT_EQ(op.CSignature(), "void add(const half* a, const half* b, half* y, int64_t n)");
  EXPECT_DOUBLE_EQ(op.Bytes(perf), fp32_bytes / 2);
}

}  // namespace
}  // namespace cannbot::ops
