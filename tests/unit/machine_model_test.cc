#include "cannbot/validator/machine_model.h"

#include <gtest/gtest.h>

#include "cannbot/validator/cpu_info.h"

namespace cannbot::validator {
namespace {

// Measured-looking figures: reads are cheaper than writes, streaming copy slower per byte
// than reading.
MachineModel Figures(double read, double copy, double triad) {
  MachineModel m;
  m.read_gbps = read;
  m.copy_gbps = copy;
  m.stream_gbps = triad;
  m.peak_gflops = 50;
  return m;
}

// The time the machine was measured to need for `traffic` when it is exactly one pattern.
double PatternSeconds(double gbps, const ops::Traffic& traffic) {
  return traffic.total() / (gbps * 1e9);
}

TEST(MachineModelTest, AnOpWithAMeasuredPatternsMixGetsThatPatternsBandwidth) {
  for (const MachineModel& m : {Figures(30, 20, 23), Figures(22, 24, 21), Figures(50, 30, 45),
                                Figures(20, 20, 20), Figures(12, 30, 15)}) {
    const double bytes = 1 << 20;
    const ops::Traffic read_only{bytes, 0}, copy{bytes, bytes}, triad{2 * bytes, bytes};
    EXPECT_DOUBLE_EQ(m.MemorySeconds(read_only), PatternSeconds(m.read_gbps, read_only));
    EXPECT_DOUBLE_EQ(m.MemorySeconds(copy), PatternSeconds(m.copy_gbps, copy));
    EXPECT_DOUBLE_EQ(m.MemorySeconds(triad), PatternSeconds(m.stream_gbps, triad));
    // Write-heavier than a copy: charged as a copy.
    const ops::Traffic writes{bytes, 3 * bytes};
    EXPECT_DOUBLE_EQ(m.MemorySeconds(writes), PatternSeconds(m.copy_gbps, writes));
  }
}

TEST(MachineModelTest, AnOpsMixOfReadsAndWritesSetsItsBandwidth) {
  const MachineModel m = Figures(30, 20, 23);
  const double bytes = 1 << 20;
  // Between read-only (30) and triad (23): a mix in between gets a bandwidth in between.
  const double mixed = m.PatternGbps({5 * bytes, bytes});
  EXPECT_GT(mixed, 23);
  EXPECT_LT(mixed, 30);
  EXPECT_NEAR(m.PatternGbps({bytes, bytes}), 20, 1e-9);
  // Compute-bound work is bounded by the FMA peak instead.
  const double flops = 1e9;
  EXPECT_NEAR(m.BoundSeconds(flops, {bytes, bytes}), flops / 50e9, 1e-12);
}

TEST(MachineModelTest, AModelWithOnlyATriadFigureChargesEveryByteAlike) {
  MachineModel m;
  m.stream_gbps = 20;
  EXPECT_NEAR(m.MemorySeconds({1e9, 1e9}), 0.1, 1e-12);
}

TEST(MachineModelTest, JsonRoundTripKeepsEveryFigureAndRefusesOldModels) {
  MachineModel m = Figures(30, 20, 23);
  m.machine_id = "abc";
  m.cpu_key = "GenuineIntel family 6 model 143";
  m.cpu_name = "Xeon";
  m.microarchitecture = "Sapphire Rapids (family 6 model 143)";
  m.features = "avx2 fma avx512f avx512_fp16 amx_tile";
  m.vector_isa = "avx512f";
  auto back = MachineModel::FromJson(m.ToJson());
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->ToJson(), m.ToJson());
  nlohmann::json old = m.ToJson();
  old.erase("method");
  old["triad"] = "best of plain and non-temporal stores";  // the first milestone's model
  EXPECT_FALSE(MachineModel::FromJson(old).ok());
}

constexpr const char* kSapphireRapids = R"(processor	: 0
vendor_id	: GenuineIntel
cpu family	: 6
model		: 143
model name	: Intel(R) Xeon(R) Platinum 8480+
stepping	: 8
flags		: fpu sse4_2 avx f16c fma avx2 avx512f avx512bw avx512vl avx512_bf16 avx512_fp16 amx_tile amx_bf16 amx_int8 avx_vnni

processor	: 1
vendor_id	: GenuineIntel
cpu family	: 6
model		: 143
model name	: Intel(R) Xeon(R) Platinum 8480+
stepping	: 8
flags		: fpu sse4_2 avx f16c fma avx2 avx512f
)";

TEST(CpuInfoTest, ReadsModelFeaturesAndCount) {
  const CpuInfo info = ParseCpuInfo(kSapphireRapids);
  EXPECT_EQ(info.vendor, "GenuineIntel");
  EXPECT_EQ(info.family, 6);
  EXPECT_EQ(info.model, 143);
  EXPECT_EQ(info.logical_cpus, 2);
  EXPECT_TRUE(info.Has("avx512_fp16"));
  EXPECT_TRUE(info.Has("amx_tile"));
  EXPECT_FALSE(info.Has("fpu"));  // not a speed feature
  EXPECT_EQ(info.Microarchitecture(), "Sapphire Rapids (family 6 model 143)");
  EXPECT_NE(info.Key().find("avx512_fp16"), std::string::npos) << info.Key();
}

TEST(CpuInfoTest, DifferentCpusHaveDifferentKeysAndTheSameCpuTheSameKey) {
  const std::string zen3 =
      "processor : 0\nvendor_id : AuthenticAMD\ncpu family : 25\nmodel : 1\n"
      "model name : AMD EPYC\nstepping : 1\nflags : avx avx2 fma\n";
  const std::string zen4 =
      "processor : 0\nvendor_id : AuthenticAMD\ncpu family : 25\nmodel : 17\n"
      "model name : AMD EPYC\nstepping : 1\nflags : avx avx2 fma avx512f avx512_bf16\n";
  EXPECT_EQ(ParseCpuInfo(zen3).Key(), ParseCpuInfo(zen3).Key());
  EXPECT_NE(ParseCpuInfo(zen3).Key(), ParseCpuInfo(zen4).Key());
  EXPECT_EQ(ParseCpuInfo(zen3).Microarchitecture(), "Zen 3 (family 25 model 1)");
  EXPECT_EQ(ParseCpuInfo(zen4).Microarchitecture(), "Zen 4 (family 25 model 17)");
}

TEST(CpuInfoTest, ThisMachineIsDescribed) {
  const CpuInfo info = ReadCpuInfo();
  EXPECT_FALSE(info.vendor.empty());
  EXPECT_GE(info.logical_cpus, 1);
  // Every x86-64 machine cannbot supports has SSE4.2 at least.
  EXPECT_TRUE(info.Has("sse4_2")) << info.FeatureText();
}

}  // namespace
}  // namespace cannbot::validator
