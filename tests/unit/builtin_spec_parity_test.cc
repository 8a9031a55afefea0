// Transitional: every built-in op's spec file (ops/*.toml) describes exactly the op the C++
// catalog built, field by field, on every listed shape.
#include <gtest/gtest.h>

#include <cmath>

#include "cannbot/ops/builtin_references.h"
#include "cannbot/ops/op_spec_file.h"
#include "cannbot/ops/registry.h"
#include "cannbot/validator/inputs.h"

namespace cannbot::ops {
namespace {

const EmbeddedSpec* SpecFor(const std::string& name) {
  for (const EmbeddedSpec& spec : EmbeddedOpSpecs()) {
    if (spec.path == "ops/" + name + ".toml") return &spec;
  }
  return nullptr;
}

void ExpectClose(double a, double b, const std::string& what) {
  EXPECT_NEAR(a, b, 1e-12 * std::max(1.0, std::fabs(a))) << what;
}

void ExpectSameDistribution(const Distribution& a, const Distribution& b, const std::string& what) {
  EXPECT_EQ(a.kind, b.kind) << what;
  EXPECT_DOUBLE_EQ(a.a, b.a) << what;
  EXPECT_DOUBLE_EQ(a.b, b.b) << what;
  EXPECT_DOUBLE_EQ(a.edge_fraction, b.edge_fraction) << what;
  ASSERT_EQ(a.edge_values.size(), b.edge_values.size()) << what;
  for (size_t i = 0; i < a.edge_values.size(); ++i) {  // as the fp32 tensors hold them
    EXPECT_EQ(static_cast<float>(a.edge_values[i]), static_cast<float>(b.edge_values[i])) << what;
  }
}

class BuiltinSpecParityTest : public ::testing::TestWithParam<std::string> {};

TEST_P(BuiltinSpecParityTest, TheSpecFileIsTheCatalogsOp) {
  std::vector<OpSpec> catalog;
  AddElementwiseOps(&catalog);
  AddNormalizationOps(&catalog);
  AddLinearOps(&catalog);
  AddConvolutionOps(&catalog);
  const OpSpec* old = nullptr;
  for (const OpSpec& op : catalog) old = op.name == GetParam() ? &op : old;
  ASSERT_NE(old, nullptr);
  const EmbeddedSpec* embedded = SpecFor(GetParam());
  ASSERT_NE(embedded, nullptr) << "no ops/" << GetParam() << ".toml";
  SpecLoadOptions options;
  options.builtin_reference = BuiltInReference;
  auto parsed = ParseOpSpec(std::string(embedded->text), std::string(embedded->path),
                            [](const std::string&) -> Result<std::string> {
                              return Status::NotFound("built-in specs name no files");
                            },
                            options);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  const OpSpec& spec = *parsed;
  EXPECT_EQ(spec.summary, old->summary);
  EXPECT_EQ(spec.semantics, old->semantics);
  EXPECT_EQ(spec.family, old->family);
  EXPECT_EQ(spec.CSignature(), old->CSignature());
  EXPECT_EQ(spec.reference_kind, ReferenceKind::kBuiltIn);
  EXPECT_FALSE(static_cast<bool>(spec.random_shape));
  ASSERT_EQ(spec.shapes.size(), old->shapes.size());
  for (size_t i = 0; i < spec.shapes.size(); ++i) {
    const Shape& s = spec.shapes[i];
    const Shape& o = old->shapes[i];
    const std::string where = GetParam() + " shape " + o.label;
    EXPECT_EQ(s.label, o.label);
    EXPECT_EQ(s.sizes, o.sizes) << where;
    EXPECT_EQ(s.scalars, o.scalars) << where;
    EXPECT_EQ(s.perf, o.perf) << where;
    EXPECT_TRUE(!old->check_shape || old->check_shape(o).ok()) << where;
    for (size_t p = 0; p < spec.params.size(); ++p) {
      if (spec.params[p].IsTensor()) {
        EXPECT_EQ(spec.params[p].elements(s), old->params[p].elements(o)) << where;
      }
    }
    const Tolerance t = spec.ToleranceFor(s, DType::kF32);
    const Tolerance ot = old->tolerance(o);
    EXPECT_EQ(t.kind, Tolerance::Kind::kAbsRel) << where;
    ExpectClose(t.atol, ot.atol, where + " atol");
    ExpectClose(t.rtol, ot.rtol, where + " rtol");
    ExpectClose(spec.flops(s), old->flops(o), where + " flops");
    ExpectClose(spec.Bytes(s), old->Bytes(o), where + " bytes");
    for (const Param* p : old->ParamsOfKind(ParamKind::kInput)) {
      ExpectSameDistribution(spec.InputDistribution(s.label, p->name),
                             old->InputDistribution(o.label, p->name), where + " " + p->name);
    }
    // The bound reference computes what the catalog's did, on the same inputs.
    if (s.perf) continue;
    const auto inputs = validator::GenerateInputs(*old, o, 5, "parity");
    std::vector<std::vector<float>> a, b;
    TensorArgs ta, tb;
    for (const Tensor& in : inputs) {
      ta.inputs.push_back(in.f32());
      tb.inputs.push_back(in.f32());
    }
    for (const Param* p : old->ParamsOfKind(ParamKind::kOutput)) {
      a.emplace_back(static_cast<size_t>(p->elements(o)));
      b.emplace_back(static_cast<size_t>(p->elements(o)));
    }
    for (auto& v : a) ta.outputs.push_back(v.data());
    for (auto& v : b) tb.outputs.push_back(v.data());
    spec.reference(ta, s);
    old->reference(tb, o);
    EXPECT_EQ(0, std::memcmp(a[0].data(), b[0].data(), a[0].size() * sizeof(float))) << where;
  }
  EXPECT_EQ(spec.reference_source, old->reference_source.empty()
                                       ? std::string(EmbeddedReferenceSource(GetParam()))
                                       : old->reference_source);
}

INSTANTIATE_TEST_SUITE_P(AllBuiltIns, BuiltinSpecParityTest,
                         ::testing::Values("add", "swish", "relu", "gelu", "prelu", "softmax",
                                           "layernorm", "layernorm_gelu", "matmul", "conv2d",
                                           "depthwise_conv2d", "conv_bn_relu", "dwsep_block"));

}  // namespace
}  // namespace cannbot::ops
