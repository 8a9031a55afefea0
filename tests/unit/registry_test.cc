#include "cannbot/ops/registry.h"
#include "builtin_ops.h"

#include <gtest/gtest.h>

namespace cannbot::ops {
namespace {

TEST(RegistryTest, BuiltInCatalogIsConsistent) {
  const Registry& registry = cannbot_test::BuiltInOps();
  EXPECT_TRUE(registry.Check().ok()) << registry.Check().ToString();
}

TEST(RegistryTest, SignatureFollowsParamOrder) {
  const OpSpec* swish = cannbot_test::BuiltInOps().Find("swish");
  ASSERT_NE(swish, nullptr);
  EXPECT_EQ(swish->CSignature(), "void swish(const float* x, float* y, int64_t n)");
}

TEST(RegistryTest, UnknownOpIsNull) {
  EXPECT_EQ(cannbot_test::BuiltInOps().Find("no_such_op"), nullptr);
}

TEST(RegistryTest, ReferenceSourceIsEmbeddedAndExportable) {
  const OpSpec* swish = cannbot_test::BuiltInOps().Find("swish");
  ASSERT_NE(swish, nullptr);
  EXPECT_NE(swish->reference_source.find("namespace cannbot_ref"), std::string::npos);
  const std::string kernel = swish->ReferenceAsKernel();
  EXPECT_NE(kernel.find("extern \"C\" void swish(const float* x, float* y, int64_t n)"),
            std::string::npos);
}

}  // namespace
}  // namespace cannbot::ops
