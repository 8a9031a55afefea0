// Op spec files (docs/op-spec.md): what a good spec becomes, and every kind of bad spec
// refused with the file, the line and the field.
#include "cannbot/ops/op_spec_file.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "builtin_ops.h"
#include "cannbot/engine/job_spec.h"
#include "cannbot/ops/dtype_values.h"
#include "cannbot/validator/inputs.h"

namespace cannbot::ops {
namespace {

std::string FixturePath(const std::string& relative) {
  return std::string(CANNBOT_SOURCE_DIR) + "/tests/fixtures/" + relative;
}

// A small valid spec; tests replace parts of it.
const char* kSpec = R"(name = "scale"
summary = "y = x * s"
reference = "ref.cpp"
flops = "n"
params = [
  { name = "x", kind = "input", dtype = "half", extent = "n" },
  { name = "y", kind = "output", dtype = "half", extent = "n" },
  { name = "n", kind = "size" },
  { name = "s", kind = "scalar", default = 2.0 },
]
shapes = [
  { label = "tiny", n = 3 },
  { label = "perf", perf = true, n = 4096 },
]
)";

const char* kReference = "extern \"C\" void scale_reference(const half* x, half* y, int64_t n, float s) {}";

Result<OpSpec> Parse(const std::string& text, SpecLoadOptions options = {}) {
  auto load = [](const std::string& name) -> Result<std::string> {
    if (name == "ref.cpp") return std::string(kReference);
    return Status::NotFound("the reference file " + name + " does not exist");
  };
  return ParseOpSpec(text, "specs/scale.toml", load, options);
}

// The message of parsing `text`, which must fail.
std::string Error(const std::string& text, SpecLoadOptions options = {}) {
  auto op = Parse(text, options);
  EXPECT_FALSE(op.ok()) << text;
  return op.ok() ? "" : op.status().message();
}

std::string Replace(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

TEST(OpSpecFileTest, TheFixtureRmsNormBecomesAnFp16OpWithTheCannStandard) {
  auto op = LoadOpSpecFile(FixturePath("user_ops/rms_norm.toml"));
  ASSERT_TRUE(op.ok()) << op.status().ToString();
  EXPECT_EQ(op->CSignature(),
            "void rms_norm_custom(const half* x, const half* gamma, half* y, int64_t rows, "
            "int64_t cols, float eps)");
  EXPECT_EQ(op->reference_kind, ReferenceKind::kSource);
  EXPECT_NE(op->reference_source.find("rms_norm_custom_reference"), std::string::npos);
  EXPECT_EQ(op->family, "normalization");
  const Shape& perf = op->PerfShape();
  EXPECT_EQ(perf.Size("cols"), 4096);
  EXPECT_FLOAT_EQ(perf.Scalar("eps"), 1e-6f);  // the param's default
  EXPECT_DOUBLE_EQ(op->flops(perf), 4.0 * 256 * 4096 + 2 * 256);
  const Tolerance t = op->ToleranceFor(perf, DType::kF16);
  EXPECT_EQ(t.kind, Tolerance::Kind::kCann);
  EXPECT_DOUBLE_EQ(t.threshold, std::ldexp(1.0, -10));
  // Edge values: in the numeric cases, never in the perf shape.
  EXPECT_EQ(op->InputDistribution("tiny", "x").edge_values.size(), 4u);
  EXPECT_TRUE(op->InputDistribution("perf", "x").edge_values.empty());
  // The subnormal edge is a real fp16 subnormal.
  const double subnormal = op->InputDistribution("tiny", "x").edge_values[2];
  EXPECT_GT(subnormal, 0);
  EXPECT_LT(subnormal, Limits(DType::kF16).min_normal);
}

TEST(OpSpecFileTest, TheRandomCaseStaysWithinTheBoundsAndVariesWithTheSeed) {
  auto op = LoadOpSpecFile(FixturePath("user_ops/rms_norm.toml"));
  ASSERT_TRUE(op.ok()) << op.status().ToString();
  ASSERT_TRUE(op->random_shape);
  std::set<int64_t> cols;
  for (uint64_t seed = 0; seed < 20; ++seed) {
    auto shape = op->random_shape(seed);
    ASSERT_TRUE(shape.has_value());
    EXPECT_GE(shape->Size("rows"), 1);
    EXPECT_LE(shape->Size("rows"), 64);
    EXPECT_LE(shape->Size("cols"), 2048);
    cols.insert(shape->Size("cols"));
    EXPECT_EQ(op->random_shape(seed)->sizes, shape->sizes);  // reproducible from the seed
  }
  EXPECT_GT(cols.size(), 10u);
}

TEST(OpSpecFileTest, InputsAreDrawnInTheTensorsDtype) {
  auto op = Parse(kSpec);
  ASSERT_TRUE(op.ok()) << op.status().ToString();
  const auto inputs = validator::GenerateInputs(*op, op->shapes[0], 1, "t");
  ASSERT_EQ(inputs.size(), 1u);
  EXPECT_EQ(inputs[0].dtype(), DType::kF16);
  EXPECT_EQ(inputs[0].bytes(), 3u * 2);
  for (int64_t i = 0; i < 3; ++i) {
    const double v = inputs[0].At(i);
    EXPECT_GE(v, -1.0);
    EXPECT_LT(v, 1.0);
    EXPECT_EQ(HalfToDouble(HalfFromDouble(v)), v);  // exactly a half
  }
}

TEST(OpSpecFileTest, ToleranceDefaultsFollowTheOutputDtype) {
  auto half_op = Parse(kSpec);
  ASSERT_TRUE(half_op.ok());
  EXPECT_EQ(half_op->ToleranceFor(half_op->shapes[0], DType::kF16).kind, Tolerance::Kind::kCann);
  const std::string ints = Replace(Replace(kSpec, "dtype = \"half\"", "dtype = \"int32_t\""),
                                   "dtype = \"half\"", "dtype = \"int32_t\"");
  auto int_op = Parse(ints + "[inputs.x]\ndistribution = \"integer\"\nlow = -5\nhigh = 5\n");
  ASSERT_TRUE(int_op.ok()) << int_op.status().ToString();
  EXPECT_EQ(int_op->ToleranceFor(int_op->shapes[0], DType::kI32).kind, Tolerance::Kind::kExact);
}

TEST(OpSpecFileTest, PerDtypeToleranceTablesWin) {
  auto op = Parse(std::string(kSpec) + "[tolerance]\natol = 0.1\nrtol = 0.2\n[tolerance.half]\natol = 0.01\n");
  ASSERT_TRUE(op.ok()) << op.status().ToString();
  const Tolerance t = op->ToleranceFor(op->shapes[0], DType::kF16);
  EXPECT_EQ(t.kind, Tolerance::Kind::kAbsRel);
  EXPECT_DOUBLE_EQ(t.atol, 0.01);
  EXPECT_DOUBLE_EQ(t.rtol, 0.0);
}

TEST(OpSpecFileTest, ASyntaxErrorNamesTheFileAndLine) {
  const std::string e = Error(std::string(kSpec) + "broken = [\n");
  EXPECT_NE(e.find("specs/scale.toml:"), std::string::npos) << e;
}

TEST(OpSpecFileTest, AnUnknownKeyNamesItsLineAndField) {
  const std::string e = Error(Replace(kSpec, "flops = \"n\"", "flops = \"n\"\nflop = \"n\""));
  EXPECT_NE(e.find("specs/scale.toml:5: field 'flop': unknown key"), std::string::npos) << e;
}

TEST(OpSpecFileTest, AnUnknownDtypeListsTheAllowedOnes) {
  const std::string e = Error(Replace(kSpec, "dtype = \"half\"", "dtype = \"fp16\""));
  EXPECT_NE(e.find("params[0].dtype"), std::string::npos) << e;
  EXPECT_NE(e.find("half"), std::string::npos) << e;
  EXPECT_NE(e.find(":6:"), std::string::npos) << e;
}

TEST(OpSpecFileTest, AnExtentThatDoesNotParseIsRefused) {
  const std::string e = Error(Replace(kSpec, "extent = \"n\" }", "extent = \"(n*\" }"));
  EXPECT_NE(e.find("params[0].extent"), std::string::npos) << e;
  EXPECT_NE(e.find("column"), std::string::npos) << e;
}

TEST(OpSpecFileTest, AnExtentNamingAnUnknownSizeIsRefused) {
  const std::string e = Error(Replace(kSpec, "extent = \"n\" }", "extent = \"rows*n\" }"));
  EXPECT_NE(e.find("'rows', which is not a size parameter"), std::string::npos) << e;
}

TEST(OpSpecFileTest, AMissingReferenceFileIsRefused) {
  const std::string e = Error(Replace(kSpec, "ref.cpp", "missing.cpp"));
  EXPECT_NE(e.find("field 'reference'"), std::string::npos) << e;
  EXPECT_NE(e.find("missing.cpp"), std::string::npos) << e;
}

// A size a kernel needs aligned or paired (`multiple_of`): the random case is drawn among the
// multiples, a listed shape that is not one is refused naming it, and bounds without a
// multiple inside are refused.
TEST(OpSpecFileTest, AMultipleOfConstraintHoldsForListedAndRandomShapes) {
  const std::string aligned = Replace(Replace(kSpec, "{ name = \"n\", kind = \"size\" }",
                                              "{ name = \"n\", kind = \"size\", min = 1, "
                                              "max = 1000, multiple_of = 16 }"),
                                      "n = 3 }", "n = 48 }");
  auto op = Parse(aligned);
  ASSERT_TRUE(op.ok()) << op.status().ToString();
  std::set<int64_t> drawn;
  for (uint64_t seed = 0; seed < 20; ++seed) {
    auto shape = op->random_shape(seed);
    ASSERT_TRUE(shape.has_value());
    EXPECT_EQ(shape->Size("n") % 16, 0) << shape->Size("n");
    EXPECT_LE(shape->Size("n"), 1000);
    drawn.insert(shape->Size("n"));
  }
  EXPECT_GT(drawn.size(), 5u);
  EXPECT_NE(Error(Replace(aligned, "n = 48 }", "n = 50 }")).find("n = 50 is not a multiple of 16"),
            std::string::npos);
  EXPECT_NE(Error(Replace(aligned, "min = 1, max = 1000", "min = 1, max = 15"))
                .find("no multiple of 16 lies in [1, 15]"),
            std::string::npos);
}

TEST(OpSpecFileTest, AShapeAboveTheMemoryLimitIsRefusedWithTheFigure) {
  SpecLoadOptions options;
  options.max_call_bytes = 1 << 20;
  const std::string e = Error(Replace(kSpec, "n = 4096", "n = 1000000"), options);
  EXPECT_NE(e.find("3.8 MiB"), std::string::npos) << e;
  EXPECT_NE(e.find("1.0 MiB"), std::string::npos) << e;
}

TEST(OpSpecFileTest, ShapesMustGiveEverySizeAndOnePerfShape) {
  EXPECT_NE(Error(Replace(kSpec, "{ label = \"tiny\", n = 3 }", "{ label = \"tiny\" }"))
                .find("shapes[0].n"),
            std::string::npos);
  EXPECT_NE(Error(Replace(kSpec, "perf = true, ", "")).find("exactly one shape"),
            std::string::npos);
  EXPECT_NE(Error(Replace(kSpec, "n = 3 }", "n = 0 }")).find("has 0 elements"),
            std::string::npos);
}

TEST(OpSpecFileTest, NanEdgesNeedTheOpToDefineThem) {
  const std::string inputs = "[inputs.x]\ndistribution = \"normal\"\nedges = [\"nan\"]\n";
  EXPECT_NE(Error(std::string(kSpec) + inputs).find("nonfinite = true"), std::string::npos);
  auto op = Parse(Replace(kSpec, "flops = \"n\"", "flops = \"n\"\nnonfinite = true") + inputs);
  ASSERT_TRUE(op.ok()) << op.status().ToString();
  EXPECT_TRUE(std::isnan(op->InputDistribution("tiny", "x").edge_values[0]));
}

TEST(OpSpecFileTest, InOutTensorsAreRefusedWithAReason) {
  const std::string e = Error(Replace(kSpec, "kind = \"output\"", "kind = \"inout\""));
  EXPECT_NE(e.find("not supported yet"), std::string::npos) << e;
}

TEST(OpSpecFileTest, ASpecNamedLikeABuiltInNeedsOverrides) {
  Registry registry = cannbot_test::BuiltInOps();
  const std::string as_add = Replace(Replace(kSpec, "name = \"scale\"", "name = \"add\""),
                                     "ref.cpp", "baseline");
  auto op = Parse(as_add);
  ASSERT_TRUE(op.ok()) << op.status().ToString();
  const Status refused = registry.Add(*op);
  EXPECT_EQ(refused.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(refused.message().find("overrides = true"), std::string::npos) << refused.ToString();
  auto overriding = Parse(Replace(as_add, "flops = \"n\"", "flops = \"n\"\noverrides = true"));
  ASSERT_TRUE(overriding.ok());
  ASSERT_TRUE(registry.Add(*overriding).ok());
  EXPECT_EQ(registry.Find("add")->reference_kind, ReferenceKind::kBaseline);
}

TEST(OpSpecFileTest, AnInlineSpecSentWithAJobIsCheckedAtTheEdge) {
  nlohmann::json body = {{"source", "x"}, {"op_spec", kSpec}, {"op_reference", kReference}};
  auto spec = engine::JobSpec::FromJson(body);
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->op, "scale");  // taken from the spec
  auto back = engine::JobSpec::FromJson(spec->ToJson());
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, *spec);

  body["op_spec"] = Replace(kSpec, "dtype = \"half\"", "dtype = \"fp16\"");
  auto bad = engine::JobSpec::FromJson(body);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("field 'op_spec'"), std::string::npos);
  EXPECT_NE(bad.status().message().find("params[0].dtype"), std::string::npos);

  body["op_spec"] = kSpec;
  body.erase("op_reference");
  auto no_reference = engine::JobSpec::FromJson(body);
  ASSERT_FALSE(no_reference.ok());
  EXPECT_NE(no_reference.status().message().find("op_reference"), std::string::npos);
}

}  // namespace
}  // namespace cannbot::ops

namespace cannbot::ops {
namespace {

TEST(OpSpecFileTest, AKeyOfAnotherParameterKindIsRefused) {
  const std::string e = Error(Replace(kSpec, "{ name = \"s\", kind = \"scalar\", default = 2.0 }",
                                      "{ name = \"s\", kind = \"scalar\", dtype = \"half\" }"));
  EXPECT_NE(e.find("params[3].dtype': does not apply to a scalar parameter"), std::string::npos)
      << e;
}

TEST(OpSpecFileTest, TablesOfParamsAndShapesReadLikeInlineOnes) {
  const std::string tables = R"(name = "scale"
summary = "y = x * s"
reference = "ref.cpp"
flops = "n"

[[params]]
name = "x"
kind = "input"
dtype = "half"
extent = "n"

[[params]]
name = "y"
kind = "output"
dtype = "half"
extent = "n"

[[params]]
name = "n"
kind = "size"

[[params]]
name = "s"
kind = "scalar"

[[shapes]]
label = "tiny"
n = 3
s = 2   # an integer is a fine scalar

[[shapes]]
label = "perf"
perf = true
n = 4096
s = 0.5
)";
  auto op = Parse(tables);
  ASSERT_TRUE(op.ok()) << op.status().ToString();
  auto inline_op = Parse(kSpec);
  ASSERT_TRUE(inline_op.ok());
  EXPECT_EQ(op->CSignature(), inline_op->CSignature());
  EXPECT_FLOAT_EQ(op->shapes[0].Scalar("s"), 2.0f);
  EXPECT_NE(Error(Replace(tables, "n = 3\n", "n = 3.0\n")).find("must be an integer"),
            std::string::npos);
}

}  // namespace
}  // namespace cannbot::ops

namespace cannbot::ops {
namespace {

TEST(OpSpecFileTest, ADistributionBeyondTheDtypeOrNotWholeIsRefused) {
  const std::string wide =
      std::string(kSpec) + "[inputs.x]\ndistribution = \"normal\"\nstddev = 1e5\n";
  EXPECT_NE(Error(wide).find("beyond half's range"), std::string::npos) << Error(wide);
  const std::string ints = Replace(Replace(kSpec, "dtype = \"half\"", "dtype = \"int8_t\""),
                                   "dtype = \"half\"", "dtype = \"int8_t\"");
  EXPECT_NE(Error(ints + "[inputs.x]\ndistribution = \"integer\"\nlow = -200\nhigh = 5\n")
                .find("beyond int8_t's range"),
            std::string::npos);
  EXPECT_NE(Error(ints + "[inputs.x]\ndistribution = \"integer\"\nlow = 0.5\nhigh = 0.7\n")
                .find("whole numbers"),
            std::string::npos);
}

}  // namespace
}  // namespace cannbot::ops
