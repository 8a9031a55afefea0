// Importers on the shapes real tools write: every msprof table and column generation, the
// msprof output directory, Nsight Compute with application output, perf stat's plain report,
// and the message for a file that is none of them. Each import also round-trips through
// cannbot profile JSON.
#include <gtest/gtest.h>

#include <cmath>

#include "cannbot/profile/import.h"
#include "cannbot/profile/metric_names.h"

namespace cannbot::profile {
namespace {

std::string FormatsFixture(const std::string& relative) {
  return std::string(CANNBOT_SOURCE_DIR) + "/tests/fixtures/profiles/" + relative;
}

// Imports a fixture and checks that its JSON form reads back to the same profile.
Profile Import(const std::string& relative, Format expected) {
  Format used = Format::kAuto;
  auto profile = ImportProfileFile(FormatsFixture(relative), {}, &used);
  EXPECT_TRUE(profile.ok()) << relative << ": " << profile.status().ToString();
  if (!profile.ok()) return Profile();
  EXPECT_EQ(used, expected) << relative;
  auto back = Profile::FromJson(profile->ToJson());
  EXPECT_TRUE(back.ok() && *back == *profile) << relative << ": JSON round trip differs";
  return *profile;
}

const KernelProfile& Named(const Profile& p, const std::string& name) {
  for (const KernelProfile& k : p.kernels) {
    if (k.name == name) return k;
  }
  ADD_FAILURE() << "no kernel " << name;
  static KernelProfile none;
  return none;
}

double Value(const KernelProfile& k, const char* metric) {
  const Metric* m = k.Find(metric);
  EXPECT_NE(m, nullptr) << k.name << " has no " << metric;
  return m ? m->value : std::nan("");
}

bool AnyNote(const Profile& p, const std::string& part) {
  for (const std::string& n : p.notes) {
    if (n.find(part) != std::string::npos) return true;
  }
  return false;
}

TEST(ProfileFormatsTest, MsprofOpStatisticCountsLaunchesPerOpType) {
  Profile p = Import("msprof/op_statistic_0_1.csv", Format::kMsprof);
  ASSERT_EQ(p.kernels.size(), 5u);
  const KernelProfile& dw = Named(p, "DepthwiseConv2D");
  EXPECT_EQ(dw.launches, 4);
  EXPECT_NEAR(dw.duration_us, 4180.4, 1e-9);
  EXPECT_EQ(dw.type, "DepthwiseConv2D");
  EXPECT_EQ(dw.core_type, "AI_VECTOR_CORE");
  EXPECT_TRUE(dw.metrics.empty());
  EXPECT_TRUE(AnyNote(p, "op_statistic"));
}

TEST(ProfileFormatsTest, MsprofOpStatisticOfOlderVersionsWithoutUnits) {
  Profile p = Import("msprof/op_statistic_legacy.csv", Format::kMsprof);
  ASSERT_EQ(p.kernels.size(), 3u);
  EXPECT_EQ(Named(p, "Conv2D").launches, 32);
  EXPECT_NEAR(Named(p, "Conv2D").duration_us, 8812.5, 1e-9);
  // No Total Time: Avg Time x Count.
  EXPECT_NEAR(Named(p, "TransData").duration_us, 8 * 120.5, 1e-9);
}

TEST(ProfileFormatsTest, MsprofTaskTimeReadsKernelNamesAndTimes) {
  Profile p = Import("msprof/task_time_0_1.csv", Format::kMsprof);
  ASSERT_EQ(p.kernels.size(), 3u);
  const KernelProfile& swish = Named(p, "aclnnSwish_SwishAiv_Swish");
  EXPECT_EQ(swish.launches, 2);
  EXPECT_NEAR(swish.duration_us, 51.34 + 49.66, 1e-9);
  EXPECT_EQ(swish.core_type, "KERNEL_AIVEC");
  EXPECT_EQ(Named(p, "hcom_allReduce__184_0_1").core_type, "COMMUNICATION");
  EXPECT_TRUE(AnyNote(p, "task_time"));
}

TEST(ProfileFormatsTest, MsprofDurationBlockNumAndMixBlockNumColumns) {
  Profile p = Import("msprof/op_summary_duration_blocknum.csv", Format::kMsprof);
  EXPECT_EQ(p.source_tool, "msprof");
  const KernelProfile& gelu = Named(p, "aclnnGelu_GeluAiv_Gelu");
  EXPECT_EQ(gelu.launches, 2);
  EXPECT_NEAR(gelu.duration_us, 88.5 + 90.5, 1e-9);  // "Duration(us)"
  EXPECT_EQ(gelu.block_dim, 40);                       // "Block Num"
  EXPECT_NEAR(Value(gelu, metric::kVecRatio), (0.612 + 0.604) / 2, 1e-9);  // aiv_
  EXPECT_NEAR(Value(gelu, metric::kTaskWaitUs), 1.1, 1e-9);               // "Wait Time(us)"
  const KernelProfile& fa = Named(p, "aclnnFlashAttentionScore_FlashAttentionScore");
  EXPECT_EQ(fa.block_dim, 40);  // Block Num N/A: "Mix Block Num"
  EXPECT_NEAR(Value(fa, metric::kMacRatio), 0.52, 1e-9);   // aic_ only
  EXPECT_NEAR(Value(fa, metric::kMte2Ratio), 0.28, 1e-9);  // MIX_AIV prefers aiv_
}

TEST(ProfileFormatsTest, MsprofUnprefixedVectorColumnsWrittenAsPercentages) {
  Profile p = Import("msprof/op_summary_310p_vec_percent.csv", Format::kMsprof);
  const KernelProfile& ln = Named(p, "Default/network/LayerNorm-op12");
  EXPECT_EQ(ln.block_dim, 8);
  EXPECT_NEAR(Value(ln, metric::kVecRatio), 0.35, 1e-9);
  EXPECT_NEAR(Value(ln, metric::kMte2Ratio), 0.44, 1e-9);
  EXPECT_NEAR(Value(ln, metric::kScalarRatio), 0.732, 1e-9);
  EXPECT_TRUE(AnyNote(p, "read as percentages"));
}

TEST(ProfileFormatsTest, MsprofDirectoryJoinsItsCsvsPerOp) {
  Profile p = Import("msprof_dir", Format::kMsprofDir);
  EXPECT_EQ(p.source_tool, "msprof");
  ASSERT_EQ(p.kernels.size(), 2u);
  const KernelProfile& dw = Named(p, "aclnnConvolution_DepthwiseConv2D_DepthwiseConv2D");
  EXPECT_EQ(dw.launches, 2);  // from op_summary, not op_statistic or task_time as well
  EXPECT_NEAR(dw.duration_us, 1039.442 + 1045.558, 1e-9);
  EXPECT_NEAR(Value(dw, metric::kMte2Ratio), 0.625, 1e-9);
  EXPECT_NEAR(Value(dw, metric::kL2HitRate), 0.49, 1e-9);  // joined from l2_cache
  EXPECT_EQ(Named(p, "aclnnAdd_AddAiCore_Add").Find(metric::kL2HitRate), nullptr);
  ASSERT_FALSE(p.notes.empty());
  EXPECT_NE(p.notes[0].find("op_summary_20240304101530.csv"), std::string::npos) << p.notes[0];
  EXPECT_TRUE(AnyNote(p, "joined to 1 ops"));
  EXPECT_TRUE(AnyNote(p, "not needed: 1 task_time"));

  // The mindstudio_profiler_output folder itself, and the PROF_* folder, read the same.
  for (const char* sub : {"msprof_dir/PROF_000001_20240304101201_ABCDEFGHIJ",
                          "msprof_dir/PROF_000001_20240304101201_ABCDEFGHIJ/"
                          "mindstudio_profiler_output"}) {
    Profile q = Import(sub, Format::kMsprofDir);
    EXPECT_EQ(q.kernels, p.kernels) << sub;
  }
}

TEST(ProfileFormatsTest, MsprofLegacyDirectoryFoldsSlicesUnderDeviceSummary) {
  Profile p = Import("msprof_dir_legacy", Format::kMsprofDir);
  ASSERT_EQ(p.kernels.size(), 2u);
  const KernelProfile& conv = Named(p, "Default/network/conv1/Conv2D-op5");
  EXPECT_EQ(conv.launches, 2);  // one launch in each slice
  EXPECT_NEAR(conv.duration_us, 812.5 + 807.5, 1e-9);
  EXPECT_NEAR(Value(conv, metric::kMacRatio), 0.85, 1e-9);
}

TEST(ProfileFormatsTest, DirectoryWithoutMsprofCsvsIsAClearError) {
  auto p = ImportProfileFile(FormatsFixture("ncu"), {});
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), Status::Code::kInvalidArgument);
  EXPECT_NE(p.status().message().find("without msprof summary CSVs"), std::string::npos)
      << p.status().message();
  ImportOptions forced;
  forced.format = Format::kPerf;
  EXPECT_NE(ImportProfileFile(FormatsFixture("msprof_dir"), forced)
                .status().message().find("is a directory"),
            std::string::npos);
}

TEST(ProfileFormatsTest, NcuDetailsWithApplicationOutputAndRuleColumns) {
  Profile p = Import("ncu/details_app_output.csv", Format::kNcu);
  EXPECT_EQ(p.device, "NVIDIA H100 80GB HBM3");
  ASSERT_EQ(p.kernels.size(), 1u);
  const KernelProfile& k = p.kernels[0];
  EXPECT_EQ(k.launches, 2);
  EXPECT_NEAR(k.duration_us, 48.32 + 51.68, 1e-9);  // usecond and msecond
  EXPECT_NEAR(Value(k, metric::kMemoryUtilization), (0.8841 + 0.8759) / 2, 1e-9);
  EXPECT_NEAR(Value(k, metric::kComputeUtilization), (0.237 + 0.243) / 2, 1e-9);
  EXPECT_NEAR(Value(k, metric::kL2HitRate), 0.615, 1e-9);
  EXPECT_TRUE(AnyNote(p, "4 line(s) of the profiled application's own output"));
}

TEST(ProfileFormatsTest, NcuRawWithApplicationOutputAndAUnitsRow) {
  Profile p = Import("ncu/raw_app_output.csv", Format::kNcu);
  ASSERT_EQ(p.kernels.size(), 1u);
  const KernelProfile& k = p.kernels[0];
  EXPECT_EQ(k.launches, 2);
  EXPECT_NEAR(k.duration_us, 12.48 + 12.52, 1e-9);  // nsecond, thousands separators
  EXPECT_EQ(k.block_dim, 1024);
  EXPECT_NEAR(Value(k, metric::kMemoryUtilization), 0.926, 1e-9);
  EXPECT_NEAR(Value(k, metric::kL2HitRate), 0.40, 1e-9);
}

TEST(ProfileFormatsTest, PerfPlainReportWithRepeatsAndMultiplexing) {
  Profile p = Import("perf/stat_plain_repeat.txt", Format::kPerf);
  ASSERT_EQ(p.kernels.size(), 1u);
  const KernelProfile& k = p.kernels[0];
  EXPECT_EQ(k.name, "stat_plain_repeat");
  EXPECT_NEAR(k.duration_us, 1875000, 1e-3);  // seconds time elapsed
  EXPECT_NEAR(Value(k, metric::kTaskClockMs), 1873.52, 1e-9);
  EXPECT_NEAR(Value(k, metric::kIpc), 9012873311.0 / 6245839211.0, 1e-12);
  EXPECT_NEAR(Value(k, metric::kBranchMissRate), 205440014.0 / 1712000123.0, 1e-12);
  EXPECT_EQ(k.Find(metric::kCacheMissRate), nullptr);
  EXPECT_TRUE(AnyNote(p, "cache-references <not supported>"));
  EXPECT_TRUE(AnyNote(p, "perf stat -r 5: counts are means per run; time elapsed varied by "
                         "+- 0.35%"));
  EXPECT_TRUE(AnyNote(p, "cycles 49.98%"));
}

TEST(ProfileFormatsTest, PerfPlainIntervalsAreSummedAndSaidSo) {
  Profile p = Import("perf/stat_plain_interval.txt", Format::kPerf);
  const KernelProfile& k = p.kernels[0];
  EXPECT_NEAR(Value(k, metric::kTaskClockMs), 1001.45 * 2 + 500.20, 1e-9);
  EXPECT_NEAR(k.duration_us, (1001.45 * 2 + 500.20) * 1e3, 1e-6);
  EXPECT_NEAR(Value(k, metric::kCycles), 3203311002.0 * 2 + 1.6e9, 1e-3);
  EXPECT_TRUE(AnyNote(p, "perf stat -I: 3 intervals were summed"));
}

TEST(ProfileFormatsTest, PerfCsvIntervalsAreSaidSoToo) {
  Profile p = Import("perf/stat_interval_percpu.csv", Format::kPerf);
  EXPECT_TRUE(AnyNote(p, "perf stat -I: 2 intervals"));
}

TEST(ProfileFormatsTest, UnknownFormatNamesTheClosestAndTheLine) {
  auto p = ImportProfileFile(FormatsFixture("bad/almost_msprof.csv"), {});
  ASSERT_FALSE(p.ok());
  const std::string& m = p.status().message();
  EXPECT_NE(m.find("almost_msprof.csv:1: not a profile format"), std::string::npos) << m;
  EXPECT_NE(m.find("closest: msprof op_summary CSV"), std::string::npos) << m;
  EXPECT_NE(m.find("line 1 does not fit it: 'OpName;OpType;TaskDuration;aiv_vec_ratio'"),
            std::string::npos) << m;
  auto perfish = ImportProfileText("\n  lots of cycles and instructions here\n", "x.txt", {});
  ASSERT_FALSE(perfish.ok());
  EXPECT_NE(perfish.status().message().find("x.txt:2: not a profile format"), std::string::npos)
      << perfish.status().message();
  EXPECT_NE(perfish.status().message().find("closest: perf stat"), std::string::npos);
}

TEST(ProfileFormatsTest, DetectsTheNewShapesByContent) {
  EXPECT_EQ(DetectFormat("Device_id,OP Type,Core Type,Count,Total Time(us)\n", "x").value(),
            Format::kMsprof);
  EXPECT_EQ(DetectFormat("Device_id,kernel_name,kernel_type,task_time(us)\n", "x").value(),
            Format::kMsprof);
  EXPECT_EQ(DetectFormat("\n Performance counter stats for 'ls':\n", "x").value(),
            Format::kPerf);
  EXPECT_EQ(DetectFormat("hello\n\"ID\",\"Kernel Name\"\n", "x").value(), Format::kNcu);
  EXPECT_EQ(ParseFormat("msprof_dir").value(), Format::kMsprofDir);
}

}  // namespace
}  // namespace cannbot::profile
