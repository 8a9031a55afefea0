// Diagnosis rules on hand-made profiles: the domain brief's worked case, compute-bound
// matrix ops, the vendor advisor's thresholds, ordering, and what cannot be judged.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "cannbot/diagnosis/diagnosis.h"
#include "cannbot/profile/metric_names.h"

namespace cannbot::diagnosis {
namespace {

namespace m = profile::metric;
using profile::KernelProfile;
using profile::Metric;
using profile::Profile;

KernelProfile Kernel(std::map<std::string, double> ratios, double duration_us = 500) {
  KernelProfile k;
  k.name = "k";
  k.launches = 1;
  k.duration_us = duration_us;
  for (const auto& [name, value] : ratios) k.metrics[name] = Metric{value, "ratio"};
  return k;
}

Diagnosis DiagnoseOne(const KernelProfile& k, const std::string& device = "") {
  Profile p;
  p.device = device;
  p.kernels = {k};
  return Diagnose(p, p.kernels[0]);
}

const Finding* FindingOf(const Diagnosis& d, const std::string& id) {
  for (const Finding& f : d.findings) {
    if (f.bottleneck == id) return &f;
  }
  return nullptr;
}

// The domain brief: DepthwiseConv2D [1,64,112,112] 3x3 on Ascend 910B, before optimisation.
TEST(DiagnosisRulesTest, TheBriefsDepthwiseCaseIsMemoryBoundWithPoorVectorisationAndMisses) {
  KernelProfile k = Kernel({{m::kComputeUtilization, 0.123}, {m::kL2HitRate, 0.48},
                            {m::kVecRatio, 0.35}},
                           4200);
  k.metrics[m::kMemoryBandwidth] = {85, "GB/s"};
  k.metrics[m::kPeakMemoryBandwidth] = {300, "GB/s"};
  Diagnosis d = DiagnoseOne(k, "Ascend910B");
  ASSERT_NE(d.Top(), nullptr);
  EXPECT_EQ(d.Top()->bottleneck, kMemoryBound);
  EXPECT_EQ(d.Top()->severity, Severity::kCritical);
  EXPECT_TRUE(d.Has(kLowVectorization));
  EXPECT_TRUE(d.Has(kCacheMisses));
  EXPECT_FALSE(d.Has(kComputeBound));
  const Evidence& e = d.Top()->evidence[0];
  EXPECT_EQ(e.metric, m::kComputeUtilization);
  EXPECT_DOUBLE_EQ(e.value, 0.123);
  EXPECT_EQ(e.comparison, "<");
  EXPECT_DOUBLE_EQ(e.threshold, 0.30);
  EXPECT_EQ(e.source, "domain brief");
  EXPECT_EQ(e.Describe(), "compute_utilization = 12.3% (< 30.0%; domain brief)");
  EXPECT_FALSE(d.Top()->remedies.empty());
  EXPECT_NE(d.Top()->remedies[0].find("Double-buffer"), std::string::npos);
  EXPECT_EQ(FindingOf(d, kCacheMisses)->evidence[0].Describe(),
            "l2_hit_rate = 48.0% (< 85.0%; domain brief)");
}

TEST(DiagnosisRulesTest, AComputeBoundMatmulIsNeverCalledMemoryBound) {
  const std::vector<std::map<std::string, double>> matmuls = {
      {{m::kMacRatio, 0.88}, {m::kMte2Ratio, 0.55}, {m::kMte1Ratio, 0.47}},
      {{m::kMacRatio, 0.85}, {m::kMte2Ratio, 0.96}, {m::kVecRatio, 0.02}},  // both busy
      {{m::kMacRatio, 0.82}, {m::kComputeUtilization, 0.2}},  // inconsistent, cube wins
      {{m::kComputeUtilization, 0.91}, {m::kMemoryUtilization, 0.45}},
  };
  for (const auto& ratios : matmuls) {
    KernelProfile k = Kernel(ratios);
    k.type = "MatMulV2";
    Diagnosis d = DiagnoseOne(k);
    ASSERT_NE(d.Top(), nullptr);
    EXPECT_EQ(d.Top()->bottleneck, kComputeBound) << d.RenderText();
    EXPECT_FALSE(d.Has(kMemoryBound)) << d.RenderText();
    EXPECT_FALSE(d.Has(kLowVectorization)) << d.RenderText();
  }
}

TEST(DiagnosisRulesTest, VendorMemoryBoundIndicator) {
  Diagnosis d = DiagnoseOne(Kernel({{m::kVecRatio, 0.2}, {m::kMte2Ratio, 0.5}, {m::kMte3Ratio, 0.1}}));
  const Finding* f = FindingOf(d, kMemoryBound);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->evidence[0].metric, "mte2_over_compute");
  EXPECT_DOUBLE_EQ(f->evidence[0].value, 2.5);
  EXPECT_EQ(f->evidence[0].source, "vendor docs");
  EXPECT_NE(f->evidence[0].derivation.find("mte2_ratio 50.0%"), std::string::npos);
}

TEST(DiagnosisRulesTest, BoundByNothingIgnoresShortOps) {
  const std::map<std::string, double> idle = {
      {m::kVecRatio, 0.3}, {m::kMte2Ratio, 0.25}, {m::kMte3Ratio, 0.1}, {m::kScalarRatio, 0.2}};
  EXPECT_TRUE(DiagnoseOne(Kernel(idle, 45)).Has(kLatencyBound));
  EXPECT_FALSE(DiagnoseOne(Kernel(idle, 12)).Has(kLatencyBound));  // under 20 us per launch
  KernelProfile many = Kernel(idle, 120);
  many.launches = 10;  // 12 us per launch
  EXPECT_FALSE(DiagnoseOne(many).Has(kLatencyBound));
}

TEST(DiagnosisRulesTest, SerialisedPipelinesAreNotCalledLatencyBound) {
  Diagnosis d = DiagnoseOne(Kernel({{m::kVecRatio, 0.52}, {m::kMte2Ratio, 0.28}, {m::kMte3Ratio, 0.15}}));
  ASSERT_NE(d.Top(), nullptr);
  EXPECT_EQ(d.Top()->bottleneck, kSerializedPipelines);
  EXPECT_FALSE(d.Has(kLatencyBound));
  // Ratios adding up to well over 1 prove the pipelines overlap.
  EXPECT_FALSE(DiagnoseOne(Kernel({{m::kVecRatio, 0.6}, {m::kMte2Ratio, 0.5}, {m::kMte3Ratio, 0.3}}))
                   .Has(kSerializedPipelines));
}

TEST(DiagnosisRulesTest, CoreImbalanceNeedsTheCoreCountOfTheSku) {
  KernelProfile k = Kernel({{m::kMacRatio, 0.6}, {m::kMte2Ratio, 0.4}});
  k.block_dim = 30;
  k.core_type = "AI_CORE";
  EXPECT_TRUE(DiagnoseOne(k, "Ascend910B3").Has(kCoreImbalance));    // 20 cube cores
  EXPECT_TRUE(DiagnoseOne(k, "Ascend910B1").Has(kCoreImbalance));    // 24 cube cores
  k.block_dim = 40;
  EXPECT_FALSE(DiagnoseOne(k, "Ascend910B4").Has(kCoreImbalance));   // 2 full waves of 20
  k.core_type = "AI_VECTOR_CORE";
  EXPECT_FALSE(DiagnoseOne(k, "Ascend910B3").Has(kCoreImbalance));   // 40 vector cores
  EXPECT_TRUE(DiagnoseOne(k, "Ascend910B2").Has(kCoreImbalance));    // 48 vector cores
  // The SKU not named: the family's smallest part (40 vector cores) is a lower bound, which
  // judges a launch far narrower than it but makes no multiple-of claim.
  EXPECT_FALSE(DiagnoseOne(k, "Ascend910B").Has(kCoreImbalance));
  k.block_dim = 8;
  const Diagnosis family = DiagnoseOne(k, "Ascend910B");
  ASSERT_TRUE(family.Has(kCoreImbalance)) << family.RenderText();
  EXPECT_EQ(FindingOf(family, kCoreImbalance)->evidence[0].Describe(),
            "idle_core_share = 80.0% [1 - block_dim 8 / core_count_at_least 40] (>= 50.0%; "
            "cannbot heuristic)");
  ASSERT_EQ(family.coverage.assumed.size(), 1u);
  EXPECT_NE(family.coverage.assumed[0].find(
                "at least 40 vector cores, from the smallest Ascend910B part"),
            std::string::npos)
      << family.coverage.assumed[0];
  // No device and no other kernel: nothing bounds the core count (a kernel's own block dim
  // says nothing about the cores it left idle).
  Diagnosis unknown = DiagnoseOne(k);
  EXPECT_FALSE(unknown.Has(kCoreImbalance));
  bool listed = false;
  for (const std::string& u : unknown.unjudged) listed |= u.rfind("core-count imbalance", 0) == 0;
  EXPECT_TRUE(listed);
  EXPECT_TRUE(unknown.coverage.assumed.empty());
  k.metrics[m::kCoreCount] = {48, ""};
  k.block_dim = 50;
  Diagnosis custom = DiagnoseOne(k);
  ASSERT_TRUE(custom.Has(kCoreImbalance));
  EXPECT_EQ(FindingOf(custom, kCoreImbalance)->evidence[0].Describe(),
            "block_dim = 50 (not a multiple of core_count = 48; vendor advisor)");
}

TEST(DiagnosisRulesTest, ANarrowLaunchIsFlaggedByTheWidestLaunchOfTheSameProfile) {
  Profile p;
  p.kernels = {Kernel({{m::kMacRatio, 0.7}, {m::kMte2Ratio, 0.4}}),
               Kernel({{m::kMacRatio, 0.6}, {m::kMte2Ratio, 0.3}}),
               Kernel({{m::kVecRatio, 0.6}, {m::kMte2Ratio, 0.3}, {m::kMte3Ratio, 0.1}})};
  p.kernels[0].name = "MatMul_wide";
  p.kernels[0].core_type = "AI_CORE";
  p.kernels[0].block_dim = 20;
  p.kernels[1].name = "MatMul_narrow";
  p.kernels[1].core_type = "AI_CORE";
  p.kernels[1].block_dim = 2;
  p.kernels[2].name = "Add_vector";
  p.kernels[2].core_type = "AI_VECTOR_CORE";
  p.kernels[2].block_dim = 40;  // vector cores: says nothing about cube cores
  const Diagnosis narrow = Diagnose(p, p.kernels[1]);
  const Finding* f = FindingOf(narrow, kCoreImbalance);
  ASSERT_NE(f, nullptr) << narrow.RenderText();
  EXPECT_EQ(f->evidence[0].Describe(),
            "idle_core_share = 90.0% [1 - block_dim 2 / core_count_at_least 20] (>= 50.0%; "
            "cannbot heuristic)");
  ASSERT_EQ(narrow.coverage.assumed.size(), 1u);
  EXPECT_NE(narrow.coverage.assumed[0].find("at least 20 cube cores, from the largest block dim "
                                            "among this profile's cube-core kernels "
                                            "(MatMul_wide: 20)"),
            std::string::npos)
      << narrow.coverage.assumed[0];
  EXPECT_NE(narrow.RenderText().find("Assumed: core count: at least 20 cube cores"),
            std::string::npos);
  // The widest launch itself is judged (against the narrow one it is not narrow) and passes.
  const Diagnosis wide = Diagnose(p, p.kernels[0]);
  EXPECT_FALSE(wide.Has(kCoreImbalance)) << wide.RenderText();
  EXPECT_EQ(std::count(wide.coverage.not_judged.begin(), wide.coverage.not_judged.end(),
                       kCoreImbalance),
            0);
  // A named SKU gives the exact count, and that is what the output says it used.
  p.device = "Ascend910B4";
  const Diagnosis exact = Diagnose(p, p.kernels[1]);
  ASSERT_TRUE(exact.Has(kCoreImbalance));
  ASSERT_EQ(exact.coverage.assumed.size(), 1u);
  EXPECT_EQ(exact.coverage.assumed[0],
            "core count: 20 cube cores of Ascend910B4 (the profile's device)");
}

// A matmul's vector unit idles by design: the cube rules judge it, never the vector ones.
TEST(DiagnosisRulesTest, ACubeKernelIsJudgedByCubeRulesNotVectorOnes) {
  KernelProfile mm = Kernel({{m::kMacRatio, 0.31}, {m::kVecRatio, 0.02}, {m::kMte1Ratio, 0.58},
                             {m::kMte2Ratio, 0.47}, {m::kScalarRatio, 0.08}});
  mm.type = "MatMulV3";
  mm.core_type = "MIX_AIC";
  const Diagnosis d = DiagnoseOne(mm);
  ASSERT_NE(d.Top(), nullptr) << d.RenderText();
  EXPECT_EQ(d.Top()->bottleneck, kCubeStarved) << d.RenderText();
  EXPECT_EQ(d.Top()->severity, Severity::kCritical);
  EXPECT_EQ(d.Top()->evidence[0].Describe(),
            "cube_feed_over_mac = 1.87x [mte1_ratio 58.0% / mac_ratio 31.0%] (> 1.00x; cannbot "
            "heuristic)");
  EXPECT_EQ(d.Top()->evidence[1].metric, "cube_kernel");
  EXPECT_NE(d.Top()->remedies[0].find("L0A/L0B"), std::string::npos);
  EXPECT_FALSE(d.Has(kLowVectorization)) << d.RenderText();
  EXPECT_FALSE(d.Has(kMemoryBound)) << d.RenderText();
  EXPECT_FALSE(d.Has(kLatencyBound)) << d.RenderText();  // starved, not bound by nothing

  // Without pipeline ratios the op type and core say it is a cube kernel.
  KernelProfile by_type = Kernel({{m::kMacRatio, 0.0}, {m::kMte1Ratio, 0.75}});
  by_type.type = "BatchMatMulV2";
  by_type.core_type = "AI_CORE";
  const Diagnosis typed = DiagnoseOne(by_type);
  EXPECT_TRUE(typed.Has(kCubeStarved)) << typed.RenderText();

  // A vector kernel: the cube rules are judged (they do not apply), the vector ones fire.
  KernelProfile vector = Kernel({{m::kVecRatio, 0.3}, {m::kMte2Ratio, 0.2}, {m::kMte3Ratio, 0.1}});
  vector.core_type = "AI_VECTOR_CORE";
  const Diagnosis v = DiagnoseOne(vector);
  EXPECT_TRUE(v.Has(kLowVectorization));
  EXPECT_FALSE(v.Has(kCubeStarved));
  EXPECT_EQ(std::count(v.coverage.not_judged.begin(), v.coverage.not_judged.end(), kCubeStarved),
            0);

  // A saturated cube is compute-bound, not starved, however busy its feeders.
  const Diagnosis busy = DiagnoseOne(Kernel({{m::kMacRatio, 0.86}, {m::kMte1Ratio, 0.9}}));
  EXPECT_FALSE(busy.Has(kCubeStarved));
  EXPECT_EQ(busy.Top()->bottleneck, kComputeBound);
}

TEST(DiagnosisRulesTest, NothingJudgedIsNeverCalledAPass) {
  KernelProfile k = Kernel({});
  k.metrics[m::kTaskClockMs] = {190.7, "ms"};
  const Diagnosis d = DiagnoseOne(k);
  EXPECT_TRUE(d.findings.empty());
  EXPECT_EQ(d.coverage.rules_judged, 0);
  EXPECT_GT(d.coverage.rules_not_judged, 30);
  EXPECT_EQ(d.coverage.not_judged.size(), 11u);
  const std::string text = d.RenderText();
  EXPECT_NE(text.find("Nothing could be judged: this profile has none of the metrics the rules "
                      "need"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("every rule that could be judged passed"), std::string::npos) << text;
  EXPECT_NE(text.find("- no cube/vector pipeline ratios in this profile (mac_ratio, vec_ratio, "
                      "scalar_ratio, mte1_ratio, mte2_ratio, mte3_ratio): 14 pipeline rules not "
                      "judged"),
            std::string::npos)
      << text;

  // One rule judged, and passed: the text says how few.
  k.metrics[m::kBranchMissRate] = {0.01, "ratio"};
  const Diagnosis one = DiagnoseOne(k);
  EXPECT_TRUE(one.findings.empty());
  EXPECT_EQ(one.coverage.rules_judged, 1);
  EXPECT_NE(one.RenderText().find("No bottleneck found by the 1 rule that could be judged; " +
                                  std::to_string(one.coverage.rules_not_judged) +
                                  " could not be (below)."),
            std::string::npos)
      << one.RenderText();
  EXPECT_EQ(one.coverage.rules_judged + one.coverage.rules_not_judged,
            d.coverage.rules_not_judged);
}

TEST(DiagnosisRulesTest, CoverageRoundTripsThroughJson) {
  Profile p;
  p.kernels = {Kernel({{m::kVecRatio, 0.3}, {m::kMte2Ratio, 0.7}}), Kernel({})};
  p.kernels[0].core_type = p.kernels[1].core_type = "AI_VECTOR_CORE";
  p.kernels[0].block_dim = 8;
  p.kernels[1].name = "wide";
  p.kernels[1].block_dim = 40;
  const Diagnosis d = Diagnose(p, p.kernels[0]);
  ASSERT_FALSE(d.coverage.assumed.empty());
  const nlohmann::json j = d.ToJson();
  EXPECT_EQ(j["coverage"]["rules_judged"], d.coverage.rules_judged);
  EXPECT_TRUE(j["coverage"]["not_judged"].is_array());
  auto back = Diagnosis::FromJson(j);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->coverage, d.coverage);
  EXPECT_EQ(back->RenderText(), d.RenderText());
  nlohmann::json old = j;
  old.erase("coverage");  // written before coverage existed
  EXPECT_TRUE(Diagnosis::FromJson(old).ok());
  old["coverage"] = {{"rules_judged", "many"}};
  auto bad = Diagnosis::FromJson(old);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("diagnosis.coverage.rules_judged"), std::string::npos)
      << bad.status().ToString();
}

TEST(DiagnosisRulesTest, LayoutTransformsAndMisalignedInnerAxes) {
  Profile p;
  p.kernels = {Kernel({}, 700), Kernel({}, 300)};
  p.kernels[0].name = "Conv2D_1";
  p.kernels[1].name = "trans_TransData_3";
  p.kernels[1].type = "TransData";
  Diagnosis d = Diagnose(p, p.kernels[0]);
  ASSERT_TRUE(d.Has(kLayoutMismatch));
  EXPECT_NEAR(FindingOf(d, kLayoutMismatch)->evidence[0].value, 0.3, 1e-12);

  KernelProfile mm = Kernel({{m::kMacRatio, 0.6}, {m::kMte2Ratio, 0.5}});
  mm.type = "MatMul";
  mm.input_shapes = "4096,1000;1000,4096";
  mm.input_dtypes = "FLOAT16;FLOAT16";
  Diagnosis misaligned = DiagnoseOne(mm);
  ASSERT_TRUE(misaligned.Has(kLayoutMismatch));
  EXPECT_EQ(FindingOf(misaligned, kLayoutMismatch)->evidence[0].value, 2000);
  mm.input_shapes = "4096,1024;1024,4096";
  EXPECT_FALSE(DiagnoseOne(mm).Has(kLayoutMismatch));
}

TEST(DiagnosisRulesTest, ScalarDominanceIsControlFlow) {
  Diagnosis d = DiagnoseOne(Kernel({{m::kScalarRatio, 0.74}, {m::kVecRatio, 0.12}, {m::kMte2Ratio, 0.1},
                            {m::kMte3Ratio, 0.05}}));
  ASSERT_NE(d.Top(), nullptr);
  EXPECT_EQ(d.Top()->bottleneck, kControlFlow);
  EXPECT_TRUE(d.Has(kLowVectorization));
}

TEST(DiagnosisRulesTest, CpuCountersAndTheRoofline) {
  KernelProfile k = Kernel({{m::kBranchMissRate, 0.12}, {m::kCacheMissRate, 0.05}});
  EXPECT_EQ(DiagnoseOne(k).Top()->bottleneck, kControlFlow);
  // A self-profiled kernel far below the roofline: latency, not bandwidth.
  KernelProfile self = Kernel({{m::kComputeUtilization, 0.03}, {m::kMemoryUtilization, 0.15},
                               {m::kRooflineFraction, 0.15}});
  Diagnosis d = DiagnoseOne(self);
  EXPECT_EQ(d.Top()->bottleneck, kLatencyBound);
  EXPECT_FALSE(d.Has(kMemoryBound));
}

// A CPU self-profile without counters: the compiler's report and the object code name the
// cause, and "bound by nothing" gives way to it.
TEST(DiagnosisRulesTest, ScalarCodeAndLibraryCallsAreTheCauseNotLatency) {
  KernelProfile k = Kernel({{m::kRooflineFraction, 0.08}, {m::kComputeUtilization, 0.02},
                            {m::kMemoryUtilization, 0.08}});
  k.metrics[m::kVectorizedLoopShare] = {0, "ratio", "the loop at line 9 is not vectorised: "
                                                    "the call to expf blocks it"};
  k.metrics[m::kScalarFpShare] = {1, "ratio", "2 scalar and 0 vector"};
  k.metrics[m::kMathCalls] = {1, "count", "expf"};
  const Diagnosis d = DiagnoseOne(k);
  ASSERT_NE(d.Top(), nullptr) << d.RenderText();
  EXPECT_EQ(d.Top()->bottleneck, kLowVectorization);
  EXPECT_EQ(d.Top()->severity, Severity::kCritical);
  EXPECT_NE(d.Top()->summary.find("line 9 is not vectorised: the call to expf blocks it"),
            std::string::npos)
      << d.Top()->summary;
  EXPECT_FALSE(d.Has(kLatencyBound)) << d.RenderText();
}

TEST(DiagnosisRulesTest, AVectorKernelWithAScalarTailIsNotCalledScalar) {
  KernelProfile k = Kernel({{m::kRooflineFraction, 0.5}});
  k.metrics[m::kVectorizedLoopShare] = {1, "ratio", "every innermost loop is vectorised"};
  k.metrics[m::kScalarFpShare] = {0.55, "ratio", "60 scalar and 48 vector"};
  k.metrics[m::kMathCalls] = {0, "count", "no library math calls"};
  EXPECT_FALSE(DiagnoseOne(k).Has(kLowVectorization));
}

TEST(DiagnosisRulesTest, SubnormalNumbersAreATrapWhereverTheyShow) {
  KernelProfile made = Kernel({});
  made.metrics[m::kSubnormalResults] = {1, "count", "MXCSR underflow on the op's edge inputs"};
  made.metrics[m::kSubnormalSlowdown] = {1.02, "x", "on the edge inputs"};
  const Diagnosis on_amd = DiagnoseOne(made);
  const Finding* f = FindingOf(on_amd, kSubnormalNumbers);
  ASSERT_NE(f, nullptr) << on_amd.RenderText();
  EXPECT_EQ(f->severity, Severity::kWarning);
  EXPECT_NE(f->summary.find("MXCSR underflow"), std::string::npos) << f->summary;

  made.metrics[m::kSubnormalSlowdown] = {6.5, "x", "on the edge inputs"};
  const Diagnosis on_intel = DiagnoseOne(made);
  f = FindingOf(on_intel, kSubnormalNumbers);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kCritical);
  EXPECT_NE(f->summary.find("6.50x"), std::string::npos) << f->summary;

  KernelProfile clean = Kernel({});
  clean.metrics[m::kSubnormalResults] = {0, "count", "no subnormal numbers"};
  clean.metrics[m::kSubnormalSlowdown] = {1.0, "x", ""};
  EXPECT_FALSE(DiagnoseOne(clean).Has(kSubnormalNumbers));
}

TEST(DiagnosisRulesTest, FindingsAreOrderedBySeverityThenStrength) {
  Diagnosis d = DiagnoseOne(Kernel({{m::kComputeUtilization, 0.25}, {m::kL2HitRate, 0.2},
                            {m::kBranchMissRate, 0.06}, {m::kVecRatio, 0.45}}));
  ASSERT_GE(d.findings.size(), 3u);
  EXPECT_EQ(d.findings[0].bottleneck, kMemoryBound);  // critical, though weak evidence
  for (size_t i = 1; i < d.findings.size(); ++i) {
    const Finding& a = d.findings[i - 1];
    const Finding& b = d.findings[i];
    EXPECT_TRUE(a.severity > b.severity ||
                (a.severity == b.severity && a.strength >= b.strength))
        << d.RenderText();
  }
}

TEST(DiagnosisRulesTest, MissingOrStrangeMetricsNeverCrash) {
  Diagnosis empty = DiagnoseOne(Kernel({}));
  EXPECT_TRUE(empty.findings.empty());
  EXPECT_EQ(empty.unjudged.size(), 11u);  // every bottleneck
  EXPECT_NE(empty.RenderText().find("Not judged"), std::string::npos);

  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  KernelProfile weird = Kernel({{m::kVecRatio, nan}, {m::kMte2Ratio, inf}, {m::kMacRatio, -1},
                                {"made_up_metric", 7}, {m::kL2HitRate, 1e300}});
  weird.block_dim = 0;
  weird.metrics[m::kCoreCount] = {0, ""};
  Diagnosis d = DiagnoseOne(weird);
  EXPECT_NO_THROW(d.ToJson().dump());
  EXPECT_NO_THROW(d.RenderText());
}

TEST(DiagnosisRulesTest, JsonCarriesTopEvidenceAndUnjudged) {
  Diagnosis d = DiagnoseOne(Kernel({{m::kMte2Ratio, 0.97}, {m::kVecRatio, 0.3}}));
  d.picked_because = "the only kernel in the profile";
  nlohmann::json j = d.ToJson();
  EXPECT_EQ(j["top"], kMemoryBound);
  EXPECT_EQ(j["findings"][0]["severity"], "critical");
  EXPECT_TRUE(j["findings"][0]["evidence"][0]["threshold"].is_number());
  EXPECT_TRUE(j["findings"][0]["evidence"][0]["text"].is_string());
  EXPECT_TRUE(j["findings"][0]["remedies"].is_array());
  EXPECT_TRUE(j["unjudged"].is_array());
  EXPECT_EQ(j["picked_because"], "the only kernel in the profile");
}

}  // namespace
}  // namespace cannbot::diagnosis
