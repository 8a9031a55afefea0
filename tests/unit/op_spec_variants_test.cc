// Op specs with `dtypes` (one op in several element types), `elementwise` expressions,
// `broadcast` rules and `reduce` tables (docs/op-spec.md), and the kernels cannbot writes from
// them.
#include <gtest/gtest.h>

#include "builtin_ops.h"
#include "cannbot/ops/op_spec_file.h"
#include "cannbot/ops/spec_elementwise.h"
#include "cannbot/skills/elementwise_kernel.h"
#include "cannbot/skills/reduce_kernel.h"

namespace cannbot::ops::variants_test {
namespace {

const char* kSpec = R"spec(name = "scaled_sigmoid"
summary = "y = s * sigmoid(x)"
family = "activation"
reference = "ref.cpp"
flops = "6*n"
dtypes = ["float", "half", "bfloat16"]
elementwise = "s / (1.0f + cb_exp(-x))"
params = [
  { name = "x", kind = "input", dtype = "T", extent = "n" },
  { name = "y", kind = "output", dtype = "T", extent = "n" },
  { name = "n", kind = "size" },
  { name = "s", kind = "scalar", default = 2.0 },
]
shapes = [
  { label = "tiny", n = 3 },
  { label = "perf", perf = true, n = 4096 },
]
[inputs.x]
distribution = "normal"
stddev = 4.0
edges = ["max", "min", 20.0]
)spec";

Result<std::vector<OpSpec>> Parse(const std::string& text) {
  auto load = [](const std::string&) -> Result<std::string> {
    return std::string("extern \"C\" void f() {}");
  };
  return ParseOpSpecVariants(text, "specs/scaled_sigmoid.toml", load);
}

std::string Error(const std::string& text) {
  auto ops = Parse(text);
  EXPECT_FALSE(ops.ok()) << text;
  return ops.ok() ? "" : ops.status().message();
}

std::string Replace(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

TEST(OpSpecVariantsTest, EachDtypeIsAnOpOfItsOwnNamedAfterIt) {
  auto ops = Parse(kSpec);
  ASSERT_TRUE(ops.ok()) << ops.status().ToString();
  ASSERT_EQ(ops->size(), 3u);
  EXPECT_EQ((*ops)[0].name, "scaled_sigmoid");
  EXPECT_EQ((*ops)[1].name, "scaled_sigmoid_fp16");
  EXPECT_EQ((*ops)[2].name, "scaled_sigmoid_bf16");
  EXPECT_EQ((*ops)[0].params[0].dtype, DType::kF32);
  EXPECT_EQ((*ops)[1].params[1].dtype, DType::kF16);
  EXPECT_EQ((*ops)[2].params[0].dtype, DType::kBF16);
  for (const OpSpec& op : *ops) {
    EXPECT_EQ(op.variant_of, "scaled_sigmoid");
    EXPECT_EQ(op.BaseName(), "scaled_sigmoid");
    EXPECT_EQ(op.elementwise, "s / (1.0f + cb_exp(-x))");
  }
  EXPECT_EQ((*ops)[1].CSignature(),
            "void scaled_sigmoid_fp16(const half* x, half* y, int64_t n, float s)");
  // Named edges resolve per dtype: "max" is 65504 in half, not an infinity.
  const auto& half_edges = (*ops)[1].inputs.at("x").edge_values;
  EXPECT_NE(std::find(half_edges.begin(), half_edges.end(), 65504.0), half_edges.end());
  // The first variant keeps the plain name, whichever dtype it is.
  auto half_first = Parse(Replace(kSpec, "[\"float\", \"half\", \"bfloat16\"]", "[\"half\", \"float\"]"));
  ASSERT_TRUE(half_first.ok()) << half_first.status().ToString();
  EXPECT_EQ((*half_first)[0].name, "scaled_sigmoid");
  EXPECT_EQ((*half_first)[0].params[0].dtype, DType::kF16);
  EXPECT_EQ((*half_first)[1].name, "scaled_sigmoid_fp32");
}

TEST(OpSpecVariantsTest, BadDtypeListsAndAStrayTAreRefused) {
  EXPECT_NE(Error(Replace(kSpec, "dtypes = [\"float\", \"half\", \"bfloat16\"]\n", ""))
                .find("\"T\" stands for each dtype of a top-level `dtypes` list"),
            std::string::npos);
  EXPECT_NE(Error(Replace(kSpec, "\"bfloat16\"]", "\"half\"]")).find("lists half twice"),
            std::string::npos);
  EXPECT_NE(Error(Replace(kSpec, "\"bfloat16\"]", "\"float16\"]")).find("dtypes[2]"),
            std::string::npos);
  EXPECT_NE(Error(Replace(kSpec, "[\"float\", \"half\", \"bfloat16\"]", "[]")).find("non-empty"),
            std::string::npos);
}

TEST(OpSpecVariantsTest, AnEdgeBeyondAVariantsRangeIsRefusedNamingTheVariant) {
  const std::string message = Error(Replace(kSpec, "20.0]", "1e5]"));
  EXPECT_NE(message.find("beyond half's range"), std::string::npos) << message;
  EXPECT_NE(message.find("in its half variant"), std::string::npos) << message;
  EXPECT_NE(message.find("\"max\""), std::string::npos) << message;
}

TEST(OpSpecVariantsTest, TheElementwiseExpressionIsHeldToItsSmallLanguage) {
  const std::vector<std::string> names = {"x", "alpha"};
  EXPECT_TRUE(CheckElementwiseExpression("x > 0.0f ? x : alpha * cb_expm1(x)", names).ok());
  EXPECT_TRUE(CheckElementwiseExpression("cb_max(x, 0.0f) + cb_log1p(cb_exp(-cb_abs(x)))", names).ok());
  EXPECT_TRUE(CheckElementwiseExpression("x * 1.5e-3f + 2", names).ok());
  for (const char* hostile : {"x; system(\"rm -rf /\")", "std::exp(x)", "exp(x)", "x[1]",
                              "({ int a = 1; a; })", "(x", "x)", "", "y + x", "x + 1.0fx",
                              "\"text\"", "x # y"}) {
    EXPECT_FALSE(CheckElementwiseExpression(hostile, names).ok()) << hostile;
  }
  EXPECT_NE(CheckElementwiseExpression("exp(x)", names).message().find("'exp'"),
            std::string::npos);
  // In a spec, the error names the field.
  EXPECT_NE(Error(Replace(kSpec, "cb_exp(-x)", "expf(-x)")).find("elementwise"),
            std::string::npos);
}

const char* kBroadcast = R"spec(name = "channel_scale"
summary = "y = a * b[c]"
family = "binary"
reference = "ref.cpp"
flops = "n*c*hw"
elementwise = "a * b"
broadcast = { b = "hw" }
params = [
  { name = "a", kind = "input", dtype = "float", extent = "n*c*hw" },
  { name = "b", kind = "input", dtype = "float", extent = "c" },
  { name = "y", kind = "output", dtype = "float", extent = "n*c*hw" },
  { name = "n", kind = "size" },
  { name = "c", kind = "size" },
  { name = "hw", kind = "size" },
]
shapes = [
  { label = "tiny", n = 1, c = 3, hw = 5 },
  { label = "perf", perf = true, n = 2, c = 64, hw = 4096 },
]
)spec";

TEST(OpSpecVariantsTest, BroadcastInputsMustTileTheOutput) {
  auto ops = Parse(kBroadcast);
  ASSERT_TRUE(ops.ok()) << ops.status().ToString();
  EXPECT_EQ((*ops)[0].broadcast.at("b"), "hw");
  EXPECT_NE(Error(Replace(kBroadcast, "broadcast = { b = \"hw\" }\n", "")).find("broadcast"),
            std::string::npos);
  EXPECT_NE(Error(Replace(kBroadcast, "b = \"hw\"", "y = \"hw\"")).find("not an input"),
            std::string::npos);
  EXPECT_NE(Error(Replace(kBroadcast, "extent = \"c\"", "extent = \"c+1\"")).find("does not tile"),
            std::string::npos);
}

TEST(ElementwiseKernelTest, TheKernelCarriesTheExpressionTheSignatureAndTheLoopNest) {
  auto ops = Parse(kSpec);
  ASSERT_TRUE(ops.ok());
  auto code = skills::ElementwiseKernel((*ops)[1], skills::Math::kVector, "UNROLL");
  ASSERT_TRUE(code.ok()) << code.status().ToString();
  EXPECT_NE(code->find("extern \"C\" void scaled_sigmoid_fp16(const half* x, half* y, int64_t n, float s)"),
            std::string::npos) << *code;
  EXPECT_NE(code->find("return (s / (1.0f + cb_exp(-x)));"), std::string::npos);
  // 16-bit elements are widened into a float tile, the element loop is pure float, and the
  // output tile is narrowed and copied out (streaming stores where STREAM allows).
  EXPECT_NE(code->find("ew_widen_half(x + t, x_t, n);"), std::string::npos) << *code;
  EXPECT_NE(code->find("y_t[j] = ew_element(x_t[j], s);"), std::string::npos) << *code;
  EXPECT_NE(code->find("ew_narrow_half(y_t, y_n, n);"), std::string::npos) << *code;
  EXPECT_NE(code->find("const bool stream = (0) &&"), std::string::npos) << *code;
  EXPECT_NE(code->find("EW_UNROLL(UNROLL)"), std::string::npos);
  auto streaming = skills::ElementwiseKernel((*ops)[1], skills::Math::kVector, "", "STREAM");
  ASSERT_TRUE(streaming.ok());
  EXPECT_NE(streaming->find("const bool stream = (STREAM) &&"), std::string::npos);
  EXPECT_NE(code->find(std::string(skills::VectorMathSource()).substr(0, 80)), std::string::npos);
  auto plain = skills::ElementwiseKernel((*ops)[0], skills::Math::kLibm);
  ASSERT_TRUE(plain.ok());
  EXPECT_NE(plain->find("std::exp(x)"), std::string::npos);

  auto bcast = Parse(kBroadcast);
  ASSERT_TRUE(bcast.ok());
  auto nest = skills::ElementwiseKernel((*bcast)[0], skills::Math::kVector);
  ASSERT_TRUE(nest.ok());
  // A row of [rows, cols] op [cols] is one run with b from its start; an inner block of
  // [n, c, h, w] op [c] is one run with b's element passed as a value.
  EXPECT_NE(nest->find("if (inner == 1)"), std::string::npos);
  EXPECT_NE(nest->find("ew_run(a + o * period, b, y + o * period, period, stream);"),
            std::string::npos) << *nest;
  EXPECT_NE(nest->find("ew_run_block(a + (o * period + m) * inner, b[m], "
                       "y + (o * period + m) * inner, inner, stream);"),
            std::string::npos) << *nest;
  // The plain loop (a 16-bit variant's baseline) is the one a developer would write.
  auto plain_nest = skills::ElementwiseKernel((*bcast)[0], skills::Math::kLibm);
  ASSERT_TRUE(plain_nest.ok());
  EXPECT_NE(plain_nest->find("ew_element(a[i], b[m])"), std::string::npos) << *plain_nest;

  OpSpec no_expression = (*ops)[0];
  no_expression.elementwise.clear();
  EXPECT_FALSE(skills::ElementwiseKernel(no_expression, skills::Math::kVector).ok());
}

}  // namespace
}  // namespace cannbot::ops::variants_test

namespace cannbot::ops::variants_test {
namespace {

TEST(OpSpecVariantsTest, AnOpNamedLikeACLibraryFunctionIsRefusedWithAWayOut) {
  const std::string message = Error(Replace(kSpec, "name = \"scaled_sigmoid\"", "name = \"exp\""));
  EXPECT_NE(message.find("'exp' is a C library function"), std::string::npos) << message;
  EXPECT_NE(message.find("exp_op"), std::string::npos) << message;
}

}  // namespace
}  // namespace cannbot::ops::variants_test

namespace cannbot::ops::variants_test {
namespace {

// A `reduce` table: a row reduction over the last axis, its combine and finish checked when
// the spec is read, and the kernel cannbot writes from it (skills/reduce_kernel.h).
const char* kReduceSpec = R"spec(name = "row_mean"
summary = "mean of each row"
family = "reduction"
reference = "ref.cpp"
flops = "rows*cols"
dtypes = ["float", "half"]
reduce = { combine = "sum", finish = "acc * scale / cols" }
params = [
  { name = "x", kind = "input", dtype = "T", extent = "rows*cols" },
  { name = "y", kind = "output", dtype = "T", extent = "rows" },
  { name = "rows", kind = "size" },
  { name = "cols", kind = "size" },
  { name = "scale", kind = "scalar", default = 1.0 },
]
shapes = [
  { label = "tiny", rows = 1, cols = 3 },
  { label = "perf", perf = true, rows = 64, cols = 1024 },
]
)spec";

TEST(OpSpecReduceTest, TheTableIsReadIntoEveryVariant) {
  auto ops = Parse(kReduceSpec);
  ASSERT_TRUE(ops.ok()) << ops.status().ToString();
  ASSERT_EQ(ops->size(), 2u);
  for (const OpSpec& op : *ops) {
    EXPECT_EQ(op.reduce, "sum");
    EXPECT_EQ(op.reduce_finish, "acc * scale / cols");
  }
  // The built-in reductions carry theirs.
  EXPECT_EQ(cannbot_test::BuiltInOps().Find("reduce_max_bf16")->reduce, "max");
  EXPECT_EQ(cannbot_test::BuiltInOps().Find("reduce_mean")->reduce_finish, "acc / cols");
}

TEST(OpSpecReduceTest, BadTablesAreRefusedNamingTheProblem) {
  EXPECT_NE(Error(Replace(kReduceSpec, "combine = \"sum\"", "combine = \"prod\"")).find("sum, max or min"),
            std::string::npos);
  EXPECT_NE(Error(Replace(kReduceSpec, "finish = \"acc * scale / cols\"", "finish = \"system(0)\""))
                .find("system"),
            std::string::npos);
  EXPECT_NE(Error(Replace(kReduceSpec, "finish = \"acc * scale / cols\"", "finish = \"acc / x\""))
                .find("x"),
            std::string::npos);
  EXPECT_NE(Error(Replace(kReduceSpec, "reduce = { combine", "reduce = { typo = 1, combine"))
                .find("typo"),
            std::string::npos);
  EXPECT_NE(Error(Replace(kReduceSpec, "extent = \"rows\"", "extent = \"rows+1\"")).find("not rows of"),
            std::string::npos);
  EXPECT_NE(Error(Replace(kReduceSpec, "  { name = \"rows\", kind = \"size\" },",
                          "  { name = \"z\", kind = \"input\", dtype = \"T\", extent = \"rows\" },\n"
                          "  { name = \"rows\", kind = \"size\" },"))
                .find("one input and one output"),
            std::string::npos);
}

TEST(RowReduceKernelTest, TheKernelCombinesLanesWidensSixteenBitRowsAndFinishes) {
  auto ops = Parse(kReduceSpec);
  ASSERT_TRUE(ops.ok());
  auto half = skills::RowReduceKernel((*ops)[1], "LANES");
  ASSERT_TRUE(half.ok()) << half.status().ToString();
  EXPECT_NE(half->find("extern \"C\" void row_mean_fp16(const half* x, half* y, int64_t rows, "
                       "int64_t cols, float scale)"),
            std::string::npos) << *half;
  EXPECT_NE(half->find("enum { EW_LANES = LANES };"), std::string::npos);
  EXPECT_NE(half->find("return acc + v;"), std::string::npos);
  EXPECT_NE(half->find("return (acc * scale / cols);"), std::string::npos);
  EXPECT_NE(half->find("ew_widen_half(row + t, tile, n);"), std::string::npos) << *half;
  EXPECT_NE(half->find("ew_float_to_half(ew_finish(acc, rows, cols, scale))"), std::string::npos);

  OpSpec max = (*ops)[0];
  max.reduce = "max";
  auto plain = skills::RowReduceKernel(max);
  ASSERT_TRUE(plain.ok());
  EXPECT_NE(plain->find("return v > acc ? v : acc;"), std::string::npos);
  EXPECT_NE(plain->find("= -__builtin_inff();"), std::string::npos);  // identity of max
  EXPECT_NE(plain->find("ew_accumulate(row, len, partial);"), std::string::npos);

  max.reduce.clear();
  EXPECT_FALSE(skills::RowReduceKernel(max).ok());
}

}  // namespace
}  // namespace cannbot::ops::variants_test
