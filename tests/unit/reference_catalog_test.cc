// The op catalog as a whole: at least 45 built-in ops, the first thirteen's exact C signatures (a contract with
// kernel authors), their perf shapes, and the invariants every shape must satisfy.
#include <gtest/gtest.h>
#include "builtin_ops.h"

#include <map>
#include <set>
#include <string>

#include "cannbot/ops/registry.h"

namespace cannbot::ops {
namespace {

const std::map<std::string, std::string>& ExpectedSignatures() {
  static const auto* const signatures = new std::map<std::string, std::string>{
      {"add", "void add(const float* a, const float* b, float* y, int64_t n)"},
      {"relu", "void relu(const float* x, float* y, int64_t n)"},
      {"swish", "void swish(const float* x, float* y, int64_t n)"},
      {"gelu", "void gelu(const float* x, float* y, int64_t n)"},
      {"prelu",
       "void prelu(const float* x, const float* alpha, float* y, int64_t n, int64_t c, "
       "int64_t hw)"},
      {"softmax", "void softmax(const float* x, float* y, int64_t rows, int64_t cols)"},
      {"layernorm",
       "void layernorm(const float* x, const float* gamma, const float* beta, float* y, "
       "int64_t rows, int64_t cols, float eps)"},
      {"layernorm_gelu",
       "void layernorm_gelu(const float* x, const float* gamma, const float* beta, float* y, "
       "int64_t rows, int64_t cols, float eps)"},
      {"matmul",
       "void matmul(const float* a, const float* b, float* c, int64_t m, int64_t n, int64_t k)"},
      {"conv2d",
       "void conv2d(const float* x, const float* w, const float* bias, float* y, int64_t n, "
       "int64_t c, int64_t h, int64_t w_, int64_t k, int64_t kh, int64_t kw, int64_t stride, "
       "int64_t pad)"},
      {"depthwise_conv2d",
       "void depthwise_conv2d(const float* x, const float* w, float* y, int64_t n, int64_t c, "
       "int64_t h, int64_t w_, int64_t kh, int64_t kw, int64_t stride, int64_t pad)"},
      {"conv_bn_relu",
       "void conv_bn_relu(const float* x, const float* w, const float* bias, const float* gamma, "
       "const float* beta, const float* mean, const float* var, float* y, int64_t n, int64_t c, "
       "int64_t h, int64_t w_, int64_t k, int64_t kh, int64_t kw, int64_t stride, int64_t pad, "
       "float eps)"},
      {"dwsep_block",
       "void dwsep_block(const float* x, const float* dw_w, const float* bn1_gamma, "
       "const float* bn1_beta, const float* bn1_mean, const float* bn1_var, const float* pw_w, "
       "const float* bn2_gamma, const float* bn2_beta, const float* bn2_mean, "
       "const float* bn2_var, float* y, int64_t n, int64_t c, int64_t h, int64_t w_, int64_t k, "
       "int64_t kh, int64_t kw, int64_t stride, int64_t pad, float eps)"},
  };
  return *signatures;
}

TEST(ReferenceCatalogTest, AtLeast45OpsAndTheFirstThirteenKeepTheirContractSignatures) {
  const Registry& registry = cannbot_test::BuiltInOps();
  std::set<std::string> ops;
  for (const OpSpec& op : registry.ops()) ops.insert(op.BaseName());
  EXPECT_GE(ops.size(), 45u);
  for (const auto& [name, signature] : ExpectedSignatures()) {
    const OpSpec* op = registry.Find(name);
    ASSERT_NE(op, nullptr) << name;
    EXPECT_EQ(op->CSignature(), signature);
  }
}

TEST(ReferenceCatalogTest, PerfShapesAreTheAgreedOnes) {
  const std::map<std::string, std::map<std::string, int64_t>> expected = {
      {"add", {{"n", 1 << 22}}},
      {"relu", {{"n", 1 << 22}}},
      {"swish", {{"n", 1 << 22}}},
      {"gelu", {{"n", 1 << 22}}},
      {"prelu", {{"n", 1}, {"c", 64}, {"hw", 65536}}},
      {"softmax", {{"rows", 4096}, {"cols", 1024}}},
      {"layernorm", {{"rows", 4096}, {"cols", 1024}}},
      {"layernorm_gelu", {{"rows", 4096}, {"cols", 1024}}},
      {"matmul", {{"m", 512}, {"n", 512}, {"k", 512}}},
      {"conv2d",
       {{"n", 1},
        {"c", 32},
        {"h", 56},
        {"w_", 56},
        {"k", 32},
        {"kh", 3},
        {"kw", 3},
        {"stride", 1},
        {"pad", 1}}},
      {"conv_bn_relu",
       {{"n", 1},
        {"c", 32},
        {"h", 56},
        {"w_", 56},
        {"k", 32},
        {"kh", 3},
        {"kw", 3},
        {"stride", 1},
        {"pad", 1}}},
      {"depthwise_conv2d",
       {{"n", 1},
        {"c", 64},
        {"h", 112},
        {"w_", 112},
        {"kh", 3},
        {"kw", 3},
        {"stride", 1},
        {"pad", 1}}},
      {"dwsep_block",
       {{"n", 1},
        {"c", 64},
        {"h", 56},
        {"w_", 56},
        {"k", 64},
        {"kh", 3},
        {"kw", 3},
        {"stride", 1},
        {"pad", 1}}},
  };
  for (const auto& [name, sizes] : expected) {
    const OpSpec* op = cannbot_test::BuiltInOps().Find(name);
    ASSERT_NE(op, nullptr) << name;
    EXPECT_EQ(op->PerfShape().sizes, sizes) << name;
    EXPECT_TRUE(op->PerfShape().perf) << name;
    if (op->PerfShape().scalars.count("eps")) {
      EXPECT_FLOAT_EQ(op->PerfShape().Scalar("eps"), 1e-5f) << name;
    }
  }
}

TEST(ReferenceCatalogTest, EveryShapeIsValidNonEmptyAndHasPositiveWork) {
  for (const OpSpec& op : cannbot_test::BuiltInOps().ops()) {
    bool has_tiny = false;
    bool has_odd = false;
    int perf_shapes = 0;
    for (const Shape& shape : op.shapes) {
      const std::string where = op.name + "/" + shape.label;
      has_tiny = has_tiny || shape.label == "tiny";
      has_odd = has_odd || shape.label == "odd";
      perf_shapes += shape.perf ? 1 : 0;
      if (op.check_shape) {
        Status status = op.check_shape(shape);
        EXPECT_TRUE(status.ok()) << where << ": " << status.ToString();
      }
      for (const Param& p : op.params) {
        if (p.IsTensor()) {
          EXPECT_GE(p.elements(shape), 1) << where << " " << p.name;
        }
      }
      EXPECT_GT(op.Bytes(shape), 0.0) << where;
      EXPECT_GE(op.flops(shape), 0.0) << where;  // data movement (transpose, gather) does none
      for (const Param* out : op.ParamsOfKind(ParamKind::kOutput)) {
        const Tolerance tol = op.ToleranceFor(shape, out->dtype);
        EXPECT_GE(tol.atol, 0.0) << where;
        EXPECT_GE(tol.rtol, 0.0) << where;
        if (out->dtype == DType::kF16 || out->dtype == DType::kBF16) {
          // 16-bit outputs: the CANN standard for their dtype, or something as tight.
          if (tol.kind != Tolerance::Kind::kCann) {
            EXPECT_LE(tol.atol, 1e-3) << where;
            EXPECT_LE(tol.rtol, 1e-2) << where;
          }
          continue;
        }
        // Anything looser would let a visibly wrong fp32 kernel through; a sum over a row
        // may differ by its summation order (rtol grows with the row: ~cols x epsilon).
        EXPECT_LE(tol.atol, 1e-3) << where;
        EXPECT_LE(tol.rtol, op.family == "reduction" ? 1e-3 : 1e-4) << where;
      }
    }
    EXPECT_TRUE(has_tiny) << op.name;
    EXPECT_TRUE(has_odd) << op.name;
    EXPECT_EQ(perf_shapes, 1) << op.name;
    EXPECT_GE(op.shapes.size(), 4u) << op.name;
    EXPECT_FALSE(op.summary.empty()) << op.name;
    EXPECT_FALSE(op.semantics.empty()) << op.name;
  }
}

TEST(ReferenceCatalogTest, EveryInputHasADistribution) {
  for (const OpSpec& op : cannbot_test::BuiltInOps().ops()) {
    for (const Param* p : op.ParamsOfKind(ParamKind::kInput)) {
      for (const Shape& shape : op.shapes) {
        const Distribution& d = op.InputDistribution(shape.label, p->name);
        if (d.kind == Distribution::Kind::kUniform) {
          EXPECT_LT(d.a, d.b) << op.name << " " << p->name;
        } else {
          EXPECT_GT(d.b, 0.0) << op.name << " " << p->name;  // standard deviation
        }
      }
    }
  }
}

TEST(ReferenceCatalogTest, ReferenceSourcesAreSelfContainedHeaders) {
  for (const OpSpec& op : cannbot_test::BuiltInOps().ops()) {
    const std::string& src = op.reference_source;
    EXPECT_NE(src.find("namespace cannbot_ref"), std::string::npos) << op.name;
    EXPECT_NE(src.find("inline void " + op.BaseName() + "("), std::string::npos) << op.name;
    // Compiled alone as the perf baseline: no project headers may be pulled in.
    EXPECT_EQ(src.find("#include \""), std::string::npos) << op.name;
    EXPECT_NE(op.ReferenceAsKernel().find("extern \"C\" " + op.CSignature()), std::string::npos)
        << op.name;
  }
}

TEST(ReferenceCatalogTest, BatchNormVarianceIsDrawnPositive) {
  for (const char* name : {"conv_bn_relu", "dwsep_block"}) {
    const OpSpec* op = cannbot_test::BuiltInOps().Find(name);
    ASSERT_NE(op, nullptr);
    for (const Param* p : op->ParamsOfKind(ParamKind::kInput)) {
      if (p->name.find("var") == std::string::npos) continue;
      const Distribution& d = op->inputs.at(p->name);
      EXPECT_EQ(d.kind, Distribution::Kind::kUniform) << name << " " << p->name;
      EXPECT_GT(d.a, 0.0) << name << " " << p->name;
      EXPECT_TRUE(d.edge_values.empty()) << name << " " << p->name;
    }
  }
}

TEST(ReferenceCatalogTest, LayerNormHasAnOffsetShape) {
  for (const char* name : {"layernorm", "layernorm_gelu"}) {
    const OpSpec* op = cannbot_test::BuiltInOps().Find(name);
    ASSERT_NE(op, nullptr);
    const Distribution& x = op->InputDistribution("offset", "x");
    EXPECT_EQ(x.kind, Distribution::Kind::kNormal);
    EXPECT_DOUBLE_EQ(x.a, 100.0);
    EXPECT_DOUBLE_EQ(x.b, 1.0);
    EXPECT_DOUBLE_EQ(op->InputDistribution("medium", "x").a, 0.0);
    bool found = false;
    for (const Shape& s : op->shapes) found = found || (s.label == "offset" && !s.perf);
    EXPECT_TRUE(found) << name;
  }
}

Shape ConvShape(int64_t h, int64_t w, int64_t kh, int64_t kw, int64_t stride, int64_t pad) {
  return {"bad",
          {{"n", 1},
           {"c", 2},
           {"h", h},
           {"w_", w},
           {"k", 2},
           {"kh", kh},
           {"kw", kw},
           {"stride", stride},
           {"pad", pad}},
          {},
          false};
}

TEST(ReferenceCatalogTest, ConvCheckShapeRejectsImpossibleGeometry) {
  const OpSpec* conv = cannbot_test::BuiltInOps().Find("conv2d");
  ASSERT_NE(conv, nullptr);
  EXPECT_TRUE(conv->check_shape(ConvShape(5, 5, 3, 3, 1, 0)).ok());
  EXPECT_TRUE(conv->check_shape(ConvShape(1, 1, 3, 3, 1, 1)).ok());   // padding makes room
  EXPECT_FALSE(conv->check_shape(ConvShape(2, 5, 3, 3, 1, 0)).ok());  // oh would be 0
  EXPECT_FALSE(conv->check_shape(ConvShape(5, 2, 3, 3, 1, 0)).ok());  // ow would be 0
  EXPECT_FALSE(conv->check_shape(ConvShape(5, 5, 3, 3, 0, 0)).ok());  // stride 0
  EXPECT_FALSE(conv->check_shape(ConvShape(5, 5, 0, 3, 1, 0)).ok());  // empty kernel
  // Element counts must stay sane for a shape check_shape rejects.
  for (const Param& p : conv->params) {
    if (p.IsTensor()) {
      EXPECT_GE(p.elements(ConvShape(5, 5, 3, 3, 0, 0)), 0) << p.name;
    }
  }
}

TEST(ReferenceCatalogTest, LayerNormCheckShapeRejectsNonPositiveEps) {
  const OpSpec* ln = cannbot_test::BuiltInOps().Find("layernorm");
  ASSERT_NE(ln, nullptr);
  Shape s{"bad", {{"rows", 2}, {"cols", 3}}, {{"eps", 0.0f}}, false};
  EXPECT_FALSE(ln->check_shape(s).ok());
  s.scalars["eps"] = 1e-5f;
  EXPECT_TRUE(ln->check_shape(s).ok());
}

TEST(ReferenceCatalogTest, ConvOutputShapeUsesFloorDivision) {
  const OpSpec* conv = cannbot_test::BuiltInOps().Find("conv2d");
  ASSERT_NE(conv, nullptr);
  // h = 14, kh = 3, stride 2, pad 1: (14 + 2 - 3) / 2 + 1 = 7 rows; w_ = 7, kw = 2: 4 cols.
  Shape s{"t",
          {{"n", 2},
           {"c", 3},
           {"h", 14},
           {"w_", 7},
           {"k", 5},
           {"kh", 3},
           {"kw", 2},
           {"stride", 2},
           {"pad", 1}},
          {},
          false};
  for (const Param& p : conv->params) {
    if (p.name == "y") {
      EXPECT_EQ(p.elements(s), 2 * 5 * 7 * 4);
    }
    if (p.name == "w") {
      EXPECT_EQ(p.elements(s), 5 * 3 * 3 * 2);
    }
  }
}

}  // namespace
}  // namespace cannbot::ops
