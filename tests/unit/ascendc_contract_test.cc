// The ascendc entry-point signatures derived from the op registry, and the prompt texts.
#include <gtest/gtest.h>
#include "builtin_ops.h"

#include "cannbot/ascendc/contract.h"
#include "cannbot/ascendc/device_profile.h"
#include "cannbot/ops/registry.h"

namespace cannbot::ascendc {
namespace {

TEST(AscendcContractTest, SignaturesFollowTheCpuParamOrder) {
  const ops::OpSpec* swish = cannbot_test::BuiltInOps().Find("swish");
  ASSERT_NE(swish, nullptr);
  EXPECT_EQ(TilingSignature(*swish),
            "extern \"C\" void swish_tiling(int64_t n, CannbotTiling* tiling)");
  EXPECT_EQ(KernelSignature(*swish),
            "extern \"C\" __global__ __aicore__ void swish_kernel(GM_ADDR x, GM_ADDR y, "
            "GM_ADDR tiling)");
  const ops::OpSpec* ln = cannbot_test::BuiltInOps().Find("layernorm");
  ASSERT_NE(ln, nullptr);
  EXPECT_EQ(TilingSignature(*ln),
            "extern \"C\" void layernorm_tiling(int64_t rows, int64_t cols, float eps, "
            "CannbotTiling* tiling)");
  EXPECT_EQ(KernelSignature(*ln),
            "extern \"C\" __global__ __aicore__ void layernorm_kernel(GM_ADDR x, GM_ADDR gamma, "
            "GM_ADDR beta, GM_ADDR y, GM_ADDR tiling)");
  EXPECT_EQ(TilingSymbol(*ln), "layernorm_tiling");
  EXPECT_EQ(KernelSymbol(*ln), "layernorm_kernel");
}

TEST(AscendcContractTest, PromptTextsNameTheEssentials) {
  const ops::OpSpec* add = cannbot_test::BuiltInOps().Find("add");
  ASSERT_NE(add, nullptr);
  const std::string text = DescribeAscendcContract(*add);
  EXPECT_NE(text.find(TilingSignature(*add)), std::string::npos);
  EXPECT_NE(text.find("DataCopyPad"), std::string::npos);
  EXPECT_NE(text.find("dtype_bits"), std::string::npos);
  const std::string device = DescribeDevice(Ascend910BProfile());
  EXPECT_NE(device.find("48 vector cores"), std::string::npos) << device;
  EXPECT_NE(device.find("192 KB"), std::string::npos) << device;
}

}  // namespace
}  // namespace cannbot::ascendc
