// Device profiles for the ascendc cost model: defaults, TOML overrides, and compile defines.
#include <gtest/gtest.h>

#include "cannbot/ascendc/device_profile.h"
#include "cannbot/engine/providers.h"
#include "cannbot/util/fs.h"

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

// The config's ascendc_device names a profile file; the validator's device is read from it, and
// a file that cannot be read or parsed is an error naming it.
TEST(AscendcDeviceProfileTest, TheConfigsDeviceFileBecomesTheValidatorsDevice) {
  config::Config config;
  auto plain = engine::MakeValidatorConfig(config);
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  EXPECT_EQ(plain->device.ub_bytes, Ascend910BProfile().ub_bytes);

  config.ascendc_device =
      std::string(CANNBOT_SOURCE_DIR) + "/examples/ascendc/devices/ascend950.toml";
  auto a950 = engine::MakeValidatorConfig(config);
  ASSERT_TRUE(a950.ok()) << a950.status().ToString();
  EXPECT_EQ(a950->device.ub_bytes, 262144);
  EXPECT_EQ(a950->device.vector_cores, Ascend910BProfile().vector_cores);
  EXPECT_NE(a950->device.name.find("Ascend950"), std::string::npos);

  auto dir = TempDir::Create("cannbot-device-test");
  ASSERT_TRUE(dir.ok());
  config.ascendc_device = dir->File("missing.toml");
  auto missing = engine::MakeValidatorConfig(config);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("the ascendc device profile"), std::string::npos)
      << missing.status().ToString();
  EXPECT_NE(missing.status().message().find(dir->File("missing.toml")), std::string::npos)
      << missing.status().ToString();
  config.ascendc_device = dir->File("typo.toml");
  ASSERT_TRUE(WriteFile(config.ascendc_device, "vector_core = 40\n").ok());
  auto typo = engine::MakeValidatorConfig(config);
  ASSERT_FALSE(typo.ok());
  EXPECT_NE(typo.status().message().find("typo.toml"), std::string::npos)
      << typo.status().ToString();
  EXPECT_NE(typo.status().message().find("unknown key 'vector_core'"), std::string::npos)
      << typo.status().ToString();
}

}  // namespace
}  // namespace cannbot::ascendc
