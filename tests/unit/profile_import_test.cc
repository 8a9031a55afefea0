// Importers: every format and generation, their quirks, detection by content, bad input.
#include <gtest/gtest.h>

#include <cmath>

#include "cannbot/profile/import.h"
#include "cannbot/profile/metric_names.h"

namespace cannbot::profile {
namespace {

std::string Fixture(const std::string& relative) {
  return std::string(CANNBOT_SOURCE_DIR) + "/tests/fixtures/profiles/" + relative;
}

Profile Load(const std::string& relative, ImportOptions options = {}, Format* used = nullptr) {
  auto profile = ImportProfileFile(Fixture(relative), options, used);
  EXPECT_TRUE(profile.ok()) << profile.status().ToString();
  return profile.ok() ? *profile : Profile();
}

const KernelProfile& Kernel(const Profile& p, const std::string& name) {
  for (const KernelProfile& k : p.kernels) {
    if (k.name == name) return k;
  }
  ADD_FAILURE() << "no kernel " << name;
  static KernelProfile none;
  return none;
}

double MetricOf(const KernelProfile& k, const char* name) {
  const Metric* m = k.Find(name);
  EXPECT_NE(m, nullptr) << k.name << " has no " << name;
  return m ? m->value : std::nan("");
}

Status ErrorOf(std::string_view text, Format format = Format::kAuto) {
  ImportOptions options;
  options.format = format;
  auto p = ImportProfileText(text, "upload.csv", options);
  return p.ok() ? Status::Ok() : p.status();
}

TEST(ProfileImportTest, MsprofAtlasA2FoldsLaunchesAndPrefersTheCoreOfTheTask) {
  Format used = Format::kAuto;
  Profile p = Load("msprof/op_summary_a2_depthwise.csv", {}, &used);
  EXPECT_EQ(used, Format::kMsprof);
  EXPECT_EQ(p.source_tool, "msprof");
  ASSERT_EQ(p.kernels.size(), 6u);
  const KernelProfile& dw = Kernel(p, "aclnnConvolution_DepthwiseConv2D_DepthwiseConv2D");
  EXPECT_EQ(dw.launches, 4);
  EXPECT_NEAR(dw.duration_us, 4180.4, 0.1);
  EXPECT_EQ(dw.type, "DepthwiseConv2D");
  EXPECT_EQ(dw.core_type, "AI_VECTOR_CORE");
  EXPECT_EQ(dw.block_dim, 48);
  EXPECT_EQ(dw.input_shapes, "1,64,112,112;64,1,3,3");  // quoted in the file
  EXPECT_EQ(dw.input_dtypes, "FLOAT16;FLOAT16");
  EXPECT_NEAR(MetricOf(dw, metric::kMte2Ratio), 0.625, 0.01);
  EXPECT_NEAR(MetricOf(dw, metric::kVecRatio), 0.201, 0.01);
  EXPECT_EQ(dw.Find(metric::kMacRatio), nullptr);  // N/A on every launch
  EXPECT_EQ(dw.Find(metric::kMte2Ratio)->unit, "ratio");

  const KernelProfile& mm = Kernel(p, "aclnnMatmul_MatMulV2_MatMulV2");
  EXPECT_EQ(mm.core_type, "MIX_AIC");
  // A MIX_AIC task reads aic_ first: mte2 of the cube core, not of the vector core.
  EXPECT_NEAR(MetricOf(mm, metric::kMte2Ratio), 0.38, 0.03);
  EXPECT_NEAR(MetricOf(mm, metric::kVecRatio), 0.08, 0.03);  // only aiv_ has it
  EXPECT_NEAR(MetricOf(mm, metric::kCubeUtilization), 0.712, 0.02);  // percent -> ratio

  const KernelProfile& comm = Kernel(p, "hcom_allReduce__184_0_1");
  EXPECT_EQ(comm.core_type, "COMMUNICATION");
  EXPECT_FALSE(comm.block_dim.has_value());
  EXPECT_TRUE(comm.metrics.empty() || comm.Find(metric::kVecRatio) == nullptr);
  const KernelProfile& cpu = Kernel(p, "aclnnNonzero_NonZero_NonZero");
  EXPECT_EQ(cpu.core_type, "AI_CPU");
  EXPECT_EQ(cpu.Find(metric::kMte2Ratio), nullptr);
}

TEST(ProfileImportTest, MsprofOlderGenerationUsesUnprefixedNamesAndCrlf) {
  Profile p = Load("msprof/op_summary_310p_matmul.csv");
  ASSERT_EQ(p.kernels.size(), 2u);
  const KernelProfile& mm = Kernel(p, "Default/network/dense1/MatMul-op31");
  EXPECT_EQ(mm.launches, 6);
  EXPECT_NEAR(MetricOf(mm, metric::kMacRatio), 0.88, 0.02);
  EXPECT_NEAR(MetricOf(mm, metric::kMte1Ratio), 0.47, 0.02);
  EXPECT_GT(MetricOf(mm, metric::kTotalCycles), 1e6);
  EXPECT_EQ(mm.input_dtypes, "FLOAT16;FLOAT16");
}

TEST(ProfileImportTest, MsprofWithoutTheColumnsSomeChipsDrop) {
  Profile p = Load("msprof/op_summary_swish_serialized.csv");
  ASSERT_EQ(p.kernels.size(), 1u);
  EXPECT_EQ(p.kernels[0].launches, 5);
  EXPECT_NEAR(MetricOf(p.kernels[0], metric::kMte3Ratio), 0.15, 0.02);
}

TEST(ProfileImportTest, MsprofL2CacheCompanion) {
  Profile p = Load("msprof/l2_cache_0_20240304.csv");
  ASSERT_EQ(p.kernels.size(), 2u);
  EXPECT_NEAR(MetricOf(p.kernels[0], metric::kL2HitRate), 0.620, 0.001);
  EXPECT_NEAR(MetricOf(p.kernels[0], metric::kL2VictimRate), 0.2008, 0.001);
  EXPECT_EQ(p.kernels[0].launches, 2);
}

TEST(ProfileImportTest, KernelDetailsWithStepIdAndBlockNum) {
  Format used = Format::kAuto;
  Profile p = Load("kernel_details/kernel_details.csv", {}, &used);
  EXPECT_EQ(used, Format::kKernelDetails);
  EXPECT_EQ(p.source_tool, "kernel_details");
  const KernelProfile& ln = Kernel(p, "aclnnLayerNorm_LayerNormV4_LayerNormV4");
  EXPECT_EQ(ln.launches, 3);  // one per step
  EXPECT_EQ(ln.type, "LayerNormV4");
  EXPECT_NEAR(MetricOf(ln, metric::kScalarRatio), 0.74, 0.02);

  Profile old = Load("kernel_details/kernel_details_block_num.csv");
  const KernelProfile& bmm = Kernel(old, "aclnnBatchMatMul_BatchMatMulV2_BatchMatMulV2");
  EXPECT_EQ(bmm.block_dim, 30);
  EXPECT_EQ(bmm.core_type, "AI_CORE");
  EXPECT_NEAR(MetricOf(bmm, metric::kMacRatio), 0.78, 0.01);
}

TEST(ProfileImportTest, TimelineSumsDeviceEventsOnly) {
  Format used = Format::kAuto;
  Profile p = Load("timeline/msprof_20240304.json", {}, &used);
  EXPECT_EQ(used, Format::kTimeline);
  EXPECT_EQ(p.source_tool, "msprof-timeline");
  const KernelProfile& conv = Kernel(p, "Conv2D_1");
  EXPECT_EQ(conv.launches, 3);
  EXPECT_DOUBLE_EQ(conv.duration_us, 3 * 812.5);
  EXPECT_EQ(conv.core_type, "AI_CORE");
  EXPECT_DOUBLE_EQ(Kernel(p, "TransData_2").duration_us, 3 * 402.125);  // "dur" as a string
  EXPECT_NEAR(Kernel(p, "ReduceSum_4").duration_us, 3 * 60.5, 1e-6);    // B/E pairs
  for (const KernelProfile& k : p.kernels) {
    EXPECT_NE(k.name, "AscendCL@aclnnConvolution");  // host API span
    EXPECT_NE(k.name, "Computing");                  // overlap analysis
    EXPECT_NE(k.name, "HostToDevice");               // flow events
  }
}

TEST(ProfileImportTest, TimelineInObjectFormWithoutProcessNames) {
  auto p = ImportProfileText(
      R"({"displayTimeUnit": "ns", "traceEvents": [
           {"name": "k1", "ph": "X", "ts": 1, "dur": 5, "pid": 1, "tid": 1},
           {"name": "k1", "ph": "X", "ts": 9, "dur": 7, "pid": 1, "tid": 1, "args": {"a": [1, {"b": 2}]}},
           {"name": "k2", "ph": "i", "ts": 3, "pid": 1, "tid": 1}]})",
      "trace.json", {});
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  ASSERT_EQ(p->kernels.size(), 1u);
  EXPECT_EQ(p->kernels[0].launches, 2);
  EXPECT_DOUBLE_EQ(p->kernels[0].duration_us, 12);
  EXPECT_FALSE(p->notes.empty());  // says every X event was counted
}

TEST(ProfileImportTest, NsightComputeDetailsPage) {
  Format used = Format::kAuto;
  Profile p = Load("ncu/details.csv", {}, &used);
  EXPECT_EQ(used, Format::kNcu);
  EXPECT_EQ(p.device, "NVIDIA A100-SXM4-40GB");
  ASSERT_EQ(p.kernels.size(), 2u);
  const KernelProfile& gelu = p.kernels[0];
  EXPECT_EQ(gelu.launches, 2);  // IDs 0 and 2
  EXPECT_NEAR(gelu.duration_us, 1234.56 + 1228.02, 1e-6);  // thousands separators
  EXPECT_EQ(gelu.block_dim, 524288);
  EXPECT_EQ(gelu.grid, "(524288, 1, 1)");
  EXPECT_NEAR(MetricOf(gelu, metric::kMemoryUtilization), 0.9142, 1e-9);
  EXPECT_NEAR(MetricOf(gelu, metric::kComputeUtilization), 0.1795, 1e-9);
  EXPECT_NEAR(MetricOf(gelu, metric::kMemoryBandwidth), 1423.87, 1e-9);  // same name, GB/s
  EXPECT_NEAR(MetricOf(gelu, metric::kL2HitRate), 0.5012, 1e-9);
  EXPECT_EQ(gelu.Find(metric::kL1HitRate), nullptr);  // n/a
  EXPECT_NEAR(MetricOf(gelu, metric::kCycles), 1494732, 1e-9);
}

TEST(ProfileImportTest, NsightComputeRawPageWithUnitsRow) {
  Profile p = Load("ncu/raw.csv");
  ASSERT_EQ(p.kernels.size(), 2u);
  const KernelProfile& gemm = Kernel(p, "ampere_sgemm_128x128_nn");
  EXPECT_EQ(gemm.launches, 2);
  EXPECT_NEAR(gemm.duration_us, 2410 + 2430, 1e-6);  // msecond -> us
  EXPECT_EQ(gemm.block_dim, 32 * 64);
  EXPECT_NEAR(MetricOf(gemm, metric::kComputeUtilization), (0.9132 + 0.9158) / 2, 1e-9);
  EXPECT_EQ(gemm.Find(metric::kL1HitRate), nullptr);
}

TEST(ProfileImportTest, PerfStatCsvWithCounters) {
  Format used = Format::kAuto;
  Profile p = Load("perf/stat_x_baremetal.csv", {}, &used);
  EXPECT_EQ(used, Format::kPerf);
  ASSERT_EQ(p.kernels.size(), 1u);
  const KernelProfile& k = p.kernels[0];
  EXPECT_EQ(k.name, "stat_x_baremetal");
  EXPECT_NEAR(k.duration_us, 1874012.345, 1e-3);  // duration_time in ns
  EXPECT_NEAR(MetricOf(k, metric::kBranchMissRate), 0.12, 1e-6);
  EXPECT_NEAR(MetricOf(k, metric::kCacheMissRate), 0.1, 1e-6);
  EXPECT_NEAR(MetricOf(k, metric::kIpc), 9012873311.0 / 6245839211.0, 1e-9);
  EXPECT_NEAR(MetricOf(k, metric::kTaskClockMs), 1873.52, 1e-9);
}

TEST(ProfileImportTest, PerfStatWithoutHardwareCountersSaysSo) {
  ImportOptions options;
  options.kernel_name = "swish";
  Profile p = Load("perf/stat_x_vm.csv", options);
  ASSERT_EQ(p.kernels.size(), 1u);
  EXPECT_EQ(p.kernels[0].name, "swish");
  EXPECT_NEAR(p.kernels[0].duration_us, 190700, 1e-6);
  EXPECT_EQ(p.kernels[0].Find(metric::kIpc), nullptr);
  ASSERT_FALSE(p.notes.empty());
  EXPECT_NE(p.notes[0].find("cycles <not supported>"), std::string::npos) << p.notes[0];
}

TEST(ProfileImportTest, PerfStatJsonLines) {
  Profile p = Load("perf/stat_j.jsonl");
  const KernelProfile& k = p.kernels[0];
  EXPECT_NEAR(MetricOf(k, metric::kCacheMissRate), 0.45, 1e-9);
  EXPECT_NEAR(k.duration_us, 3805720, 1e-3);  // cpu-clock msec
  ASSERT_FALSE(p.notes.empty());
  EXPECT_NE(p.notes[0].find("L1-dcache-loads <not counted>"), std::string::npos);
}

TEST(ProfileImportTest, PerfStatIntervalsAndCpusAreSummed) {
  Profile p = Load("perf/stat_interval_percpu.csv");
  const KernelProfile& k = p.kernels[0];
  EXPECT_NEAR(MetricOf(k, metric::kTaskClockMs), 4 * 1001.45, 1e-6);
  EXPECT_NEAR(MetricOf(k, metric::kBranchMissRate), 42715407.0 / 610220100.0, 1e-12);
}

TEST(ProfileImportTest, DetectsByContentNotByName) {
  std::string csv =
      "Op Name,OP Type,Task Type,Task Duration(us),aiv_vec_ratio\nadd,Add,AI_VECTOR_CORE,5,0.4\n";
  Format used = Format::kAuto;
  auto p = ImportProfileText(csv, "profile.json", {}, &used);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(used, Format::kMsprof);
  EXPECT_EQ(DetectFormat("==PROF== Connected\n\"ID\",\"Kernel Name\"\n", "x").value(),
            Format::kNcu);
  EXPECT_EQ(DetectFormat("# started on Mon\n\n1.0,msec,task-clock,1,100.00,,\n", "x").value(),
            Format::kPerf);
  EXPECT_EQ(DetectFormat("[{\"name\":\"a\",\"ph\":\"X\"}]", "x").value(), Format::kTimeline);
  EXPECT_EQ(DetectFormat("{\"kernels\": []}", "x").value(), Format::kJson);
  EXPECT_EQ(DetectFormat("{\"counter-value\" : \"1\", \"event\" : \"e\"}\n", "x").value(),
            Format::kPerf);
}

TEST(ProfileImportTest, ForcedFormatThatDoesNotFitIsAClearError) {
  std::string csv = "Op Name,Task Duration(us)\nadd,5\n";
  Status s = ErrorOf(csv, Format::kNcu);
  EXPECT_NE(s.message().find("upload.csv:1: not an Nsight Compute CSV"), std::string::npos)
      << s.message();
  EXPECT_NE(ErrorOf(csv, Format::kTimeline).message().find("upload.csv"), std::string::npos);
  EXPECT_TRUE(ErrorOf(csv, Format::kKernelDetails).ok());  // same importer family
}

TEST(ProfileImportTest, BadInputsNameTheFileAndTheLine) {
  struct Case {
    const char* fixture;
    const char* message;
  } cases[] = {
      {"bad/empty.csv", "empty.csv: the file is empty"},
      {"bad/blank.txt", "blank.txt: the file is empty"},
      {"bad/garbage.bin", "garbage.bin: not a profile: it looks binary"},
      {"bad/header_only.csv", "header_only.csv: no rows after the header"},
      {"bad/missing_duration.csv",
       "missing_duration.csv:1: the header has no 'Task Duration(us)' column"},
      {"bad/mixed_formats.csv", "first problem at line 4: wrong number of fields"},
      {"bad/truncated_timeline.json", "truncated_timeline.json:4: not valid JSON"},
      {"bad/unknown_format.txt", "unknown_format.txt:1: not a profile format"},
      {"bad/unknown_json.json", "unknown_json.json: a JSON document that is neither"},
      {"bad/bad_types.json", "kernels[0].metrics.vec_ratio.value: expected a number"},
  };
  for (const Case& c : cases) {
    auto p = ImportProfileFile(Fixture(c.fixture), {});
    ASSERT_FALSE(p.ok()) << c.fixture;
    EXPECT_EQ(p.status().code(), Status::Code::kInvalidArgument) << c.fixture;
    EXPECT_NE(p.status().message().find(c.message), std::string::npos)
        << c.fixture << ": " << p.status().message();
  }
  EXPECT_EQ(ImportProfileFile(Fixture("bad/no_such_file.csv"), {}).status().code(),
            Status::Code::kNotFound);
  EXPECT_EQ(ImportProfileFile(Fixture("bad"), {}).status().code(),
            Status::Code::kInvalidArgument);
}

TEST(ProfileImportTest, PartialImportsSayWhatWasSkipped) {
  Profile p = Load("bad/partial_rows.csv");
  ASSERT_EQ(p.kernels.size(), 1u);
  EXPECT_EQ(p.kernels[0].launches, 6);
  ASSERT_EQ(p.notes.size(), 2u);
  EXPECT_NE(p.notes[0].find("skipped 1 row: wrong number of fields (first at line 4"),
            std::string::npos) << p.notes[0];
  EXPECT_NE(p.notes[1].find("no usable duration (first at line 6"), std::string::npos);

  Profile q = Load("bad/unterminated_quote.csv");
  EXPECT_EQ(q.kernels[0].launches, 1);
  EXPECT_NE(q.notes[0].find("unbalanced quotes (first at line 2"), std::string::npos);
}

TEST(ProfileImportTest, NonUtf8NamesAreRepairedAndNoted) {
  Profile p = Load("bad/non_utf8_name.csv");
  ASSERT_EQ(p.kernels.size(), 2u);
  EXPECT_EQ(p.kernels[0].name, "Conv_\xEF\xBF\xBDt\xEF\xBF\xBD_\xEF\xBF\xBD");
  EXPECT_NO_THROW(p.ToJson().dump());
  ASSERT_FALSE(p.notes.empty());
  EXPECT_NE(p.notes[0].find("not valid UTF-8"), std::string::npos);
}

TEST(ProfileImportTest, ArbitraryBytesNeverCrash) {
  std::string seed = "Op Name,Task Duration(us),aiv_vec_ratio\n\"a\",1,0.5\n";
  for (int trial = 0; trial < 300; ++trial) {
    std::string text = seed;
    uint32_t state = static_cast<uint32_t>(trial) * 2654435761u + 1;
    for (int flips = 0; flips < 6; ++flips) {
      state = state * 1664525u + 1013904223u;
      text[state % text.size()] = static_cast<char>(state >> 24);
    }
    for (Format f : {Format::kAuto, Format::kMsprof, Format::kNcu, Format::kPerf,
                     Format::kTimeline, Format::kJson}) {
      ImportOptions options;
      options.format = f;
      auto p = ImportProfileText(text, "fuzz", options);
      if (p.ok()) {
        EXPECT_NO_THROW(p->ToJson().dump());
      }
    }
  }
}

TEST(ProfileImportTest, TheKernelLimitBoundsMemoryAndIsNoted) {
  std::string csv = "Op Name,Task Duration(us)\n";
  for (int i = 0; i < 50; ++i) csv += "op" + std::to_string(i) + ",1\n";
  ImportOptions options;
  options.max_kernels = 10;
  auto p = ImportProfileText(csv, "many.csv", options);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->kernels.size(), 10u);
  ASSERT_FALSE(p->notes.empty());
  EXPECT_NE(p->notes.back().find("40 rows of further kernels were skipped"), std::string::npos);
}

TEST(ProfileImportTest, DeviceOptionOverridesTheFile) {
  ImportOptions options;
  options.device = "Ascend910B3";
  EXPECT_EQ(Load("ncu/raw.csv", options).device, "Ascend910B3");
}

TEST(ProfileImportTest, FormatNamesRoundTrip) {
  for (Format f : {Format::kAuto, Format::kMsprof, Format::kKernelDetails, Format::kTimeline,
                   Format::kNcu, Format::kPerf, Format::kJson}) {
    EXPECT_EQ(ParseFormat(FormatName(f)).value(), f);
  }
  EXPECT_NE(ParseFormat("xls").status().message().find("known: auto, msprof"),
            std::string::npos);
}

}  // namespace
}  // namespace cannbot::profile
