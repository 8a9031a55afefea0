// Op specs with a `reduce` table (docs/op-spec.md): a row reduction over the last axis, its
// combine and finish checked when the spec is read, and the kernel cannbot writes from it.
#include <gtest/gtest.h>

#include "builtin_ops.h"
#include "cannbot/ops/op_spec_file.h"
#include "cannbot/skills/reduce_kernel.h"

namespace cannbot::ops::reduce_test {
namespace {

const char* kSpec = R"spec(name = "row_mean"
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

Result<std::vector<OpSpec>> Parse(const std::string& text) {
  auto load = [](const std::string&) -> Result<std::string> {
    return std::string("extern \"C\" void f() {}");
  };
  return ParseOpSpecVariants(text, "specs/row_mean.toml", load);
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

TEST(OpSpecReduceTest, TheTableIsReadIntoEveryVariant) {
  auto ops = Parse(kSpec);
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
  EXPECT_NE(Error(Replace(kSpec, "combine = \"sum\"", "combine = \"prod\"")).find("sum, max or min"),
            std::string::npos);
  EXPECT_NE(Error(Replace(kSpec, "finish = \"acc * scale / cols\"", "finish = \"system(0)\""))
                .find("system"),
            std::string::npos);
  EXPECT_NE(Error(Replace(kSpec, "finish = \"acc * scale / cols\"", "finish = \"acc / x\""))
                .find("x"),
            std::string::npos);
  EXPECT_NE(Error(Replace(kSpec, "reduce = { combine", "reduce = { typo = 1, combine"))
                .find("typo"),
            std::string::npos);
  EXPECT_NE(Error(Replace(kSpec, "extent = \"rows\"", "extent = \"rows+1\"")).find("not rows of"),
            std::string::npos);
  EXPECT_NE(Error(Replace(kSpec, "  { name = \"rows\", kind = \"size\" },",
                          "  { name = \"z\", kind = \"input\", dtype = \"T\", extent = \"rows\" },\n"
                          "  { name = \"rows\", kind = \"size\" },"))
                .find("one input and one output"),
            std::string::npos);
}

TEST(RowReduceKernelTest, TheKernelCombinesLanesWidensSixteenBitRowsAndFinishes) {
  auto ops = Parse(kSpec);
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
}  // namespace cannbot::ops::reduce_test
