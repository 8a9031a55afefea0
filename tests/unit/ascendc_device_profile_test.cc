// Device profiles for the ascendc cost model: defaults, TOML overrides, and compile defines.
#include <gtest/gtest.h>

#include "cannbot/ascendc/device_profile.h"

namespace cannbot::ascendc {
namespace {

TEST(AscendcDeviceProfileTest, DefaultsDescribeA910B) {
  const DeviceProfile p = Ascend910BProfile();
  EXPECT_EQ(p.vector_cores, 48);
  EXPECT_EQ(p.cube_cores, 24);
  EXPECT_EQ(p.ub_bytes, 192 * 1024);
  EXPECT_DOUBLE_EQ(p.clock_ghz, 1.8);
  EXPECT_DOUBLE_EQ(p.vector_bytes_per_cycle, 256);
  EXPECT_EQ(CompileDefines(p),
            (std::vector<std::string>{"-DCANNBOT_VECTOR_CORES=48", "-DCANNBOT_UB_BYTES=196608",
                                      "-DCANNBOT_QUE_BUFFERS_PER_POSITION=8",
                                      "-DCANNBOT_L1_BYTES=524288", "-DCANNBOT_L0A_BYTES=65536",
                                      "-DCANNBOT_L0B_BYTES=65536", "-DCANNBOT_L0C_BYTES=131072"}));
}

TEST(AscendcDeviceProfileTest, TomlOverridesSomeFields) {
  auto p = ParseDeviceProfile(
      "name = \"910B 40-core SKU\"\nvector_cores = 40\nhbm_gbps = 1200\n"
      "copy_setup_us = 0\nque_buffers_per_position = 4\n");
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->name, "910B 40-core SKU");
  EXPECT_EQ(p->vector_cores, 40);
  EXPECT_DOUBLE_EQ(p->hbm_gbps, 1200);
  EXPECT_DOUBLE_EQ(p->copy_setup_us, 0);
  EXPECT_DOUBLE_EQ(p->clock_ghz, 1.8);  // untouched
  EXPECT_EQ(CompileDefines(*p)[0], "-DCANNBOT_VECTOR_CORES=40");
  EXPECT_EQ(CompileDefines(*p)[2], "-DCANNBOT_QUE_BUFFERS_PER_POSITION=4");
}

TEST(AscendcDeviceProfileTest, RejectsTyposAndNonsense) {
  EXPECT_FALSE(ParseDeviceProfile("vector_core = 40\n").ok());
  EXPECT_FALSE(ParseDeviceProfile("vector_cores = 0\n").ok());
  EXPECT_FALSE(ParseDeviceProfile("clock_ghz = -1\n").ok());
  EXPECT_FALSE(ParseDeviceProfile("hbm_gbps = \"fast\"\n").ok());
  EXPECT_FALSE(ParseDeviceProfile("ub_bytes = 12\n").ok());
  EXPECT_FALSE(ParseDeviceProfile("l1_bytes = 1099511627776\n").ok());  // a static array each
  EXPECT_TRUE(ParseDeviceProfile("l0c_bytes = 262144\ncube_fractals_per_cycle = 0.5\n").ok());
  EXPECT_FALSE(ParseDeviceProfile("que_buffers_per_position = 65\n").ok());
  EXPECT_FALSE(ParseDeviceProfile("this is not toml = = \n").ok());
}

}  // namespace
}  // namespace cannbot::ascendc
