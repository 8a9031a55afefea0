// The ascendc examples end to end, without the validator: each slow and fast kernel is built
// against the emulation with a wrapper generated from the registry, run on every registry
// shape with the registry's inputs (edge values included), judged with the CANN precision
// standard (the op's atol as the absolute floor), and the perf shape's stats are priced with
// the cost model: the fast kernel must be estimated clearly faster than the slow one.
#include <gtest/gtest.h>
#include "builtin_ops.h"

#include <string>
#include <vector>

#include "integration/ascendc_support.h"

namespace cannbot::ascendc {
namespace {

using cannbot::testing::SourcePath;
using testing::CompileKernel;
using testing::Reference;
using testing::RunKernel;
using testing::WrapperFor;

struct Variant {
  const char* name;
  std::string binary;
};

class AscendcExampleTest : public ::testing::TestWithParam<const char*> {};

TEST_P(AscendcExampleTest, SlowAndFastMeetTheStandardAndFastIsEstimatedFaster) {
  const std::string op_name = GetParam();
  const ops::OpSpec* op = cannbot_test::BuiltInOps().Find(op_name);
  ASSERT_NE(op, nullptr);
  auto dir = TempDir::Create("cannbot-ascendc-examples");
  ASSERT_TRUE(dir.ok());
  ASSERT_TRUE(WriteFile(dir->File("wrapper.cpp"), WrapperFor(*op)).ok());

  Variant variants[] = {{"slow", dir->File("slow")}, {"fast", dir->File("fast")}};
  for (const Variant& v : variants) {
    const std::string source = SourcePath("examples/ascendc/" + op_name + "_" + v.name + ".cpp");
    const Status built = CompileKernel(source, dir->File("wrapper.cpp"), v.binary);
    ASSERT_TRUE(built.ok()) << source << ":\n" << built.message();
  }

  const DeviceProfile profile = Ascend910BProfile();
  for (const ops::Shape& shape : op->shapes) {
    std::vector<std::vector<float>> inputs;  // the built-in ops are fp32 throughout
    for (const ops::Tensor& t :
         validator::GenerateInputs(*op, shape, 20240601, "numeric/" + shape.label)) {
      inputs.push_back(t.ToFloats());
    }
    const double atol = op->tolerance(shape).atol;
    double estimate_us[2] = {0, 0};
    for (int k = 0; k < 2; ++k) {
      const Variant& v = variants[k];
      SCOPED_TRACE(op_name + " " + v.name + " on " + shape.Describe());
      testing::KernelRun run = RunKernel(v.binary, *dir, *op, shape, inputs);
      ASSERT_TRUE(run.result.exit.Success()) << run.result.exit.Describe() << "\n"
                                             << run.result.output.substr(0, 2000);
      EXPECT_FALSE(FindViolation(run.result.output).has_value());
      auto stats = ParseStats(run.result.output);
      ASSERT_TRUE(stats.ok()) << stats.status().message();

      std::vector<int64_t> in_elems, out_elems;
      for (const ops::Param& p : op->params) {
        if (p.kind == ops::ParamKind::kInput) in_elems.push_back(p.elements(shape));
        if (p.kind == ops::ParamKind::kOutput) out_elems.push_back(p.elements(shape));
      }
      EXPECT_TRUE(CheckCompulsoryTraffic(
                      *stats, ComputeCompulsoryTraffic(in_elems, out_elems, stats->dtype_bits))
                      .ok());

      const auto expected = Reference(*op, shape, inputs, stats->dtype_bits);
      ASSERT_EQ(expected.size(), run.outputs.size());
      for (size_t o = 0; o < expected.size(); ++o) {
        const PrecisionReport report =
            CheckPrecision(expected[o].data(), run.outputs[o].data(),
                           static_cast<int64_t>(expected[o].size()), stats->dtype_bits, atol);
        EXPECT_TRUE(report.pass) << report.reason;
      }
      estimate_us[k] = Estimate(*stats, profile).total_us;
      if (shape.perf && k == 1) {
        EXPECT_TRUE(stats->overlap);
        EXPECT_EQ(stats->block_dim % static_cast<uint32_t>(profile.vector_cores), 0u);
        EXPECT_LE(stats->ub_high_water_bytes, static_cast<uint64_t>(profile.ub_bytes));
      }
      if (shape.perf) {
        std::printf("%s %s perf: %s\n", op_name.c_str(), v.name,
                    Estimate(*stats, profile).Describe().c_str());
      }
    }
    if (shape.perf) {
      // "A clear margin": an order of magnitude, from cores, overlap and vector width together.
      EXPECT_LT(estimate_us[1] * 10, estimate_us[0])
          << "fast " << estimate_us[1] << " us vs slow " << estimate_us[0] << " us";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Examples, AscendcExampleTest,
                         ::testing::Values("add", "swish", "gelu", "layernorm"),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           return std::string(info.param);
                         });

}  // namespace
}  // namespace cannbot::ascendc
