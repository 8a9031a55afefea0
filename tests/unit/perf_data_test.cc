// The perf gate's data (perf_data.h): every round after the first has new inputs, with new
// values from the same distribution, twins stay twins, and a seed repeats it.
#include "cannbot/validator/perf_data.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "builtin_ops.h"

namespace cannbot::validator {
namespace {

// Share of elements whose value at index i differs between `a` and `b`.
double ChangedShare(const ops::Tensor& a, const ops::Tensor& b) {
  int64_t changed = 0;
  for (int64_t i = 0; i < a.elements(); ++i) changed += a.At(i) != b.At(i);
  return static_cast<double>(changed) / static_cast<double>(a.elements());
}

std::vector<double> Sorted(const ops::Tensor& t) {
  std::vector<double> values;
  for (int64_t i = 0; i < t.elements(); ++i) values.push_back(t.At(i));
  std::sort(values.begin(), values.end());
  return values;
}

class PerfDataTest : public ::testing::TestWithParam<const char*> {};

// The op's perf shape (its distributions, edge values left out), made small.
ops::Shape SmallPerfShape(const ops::OpSpec& op) {
  ops::Shape shape = op.PerfShape();
  for (auto& [name, size] : shape.sizes) size = std::min<int64_t>(size, name == "vocab" ? 512 : 96);
  return shape;
}

// swish: a normal input; matmul: uniform ones; embedding: integer ids and a normal table.
TEST_P(PerfDataTest, EveryLaterRoundHasNewValuesFromTheSameDistribution) {
  const ops::OpSpec* op = cannbot_test::BuiltInOps().Find(GetParam());
  ASSERT_NE(op, nullptr);
  const ops::Shape shape = SmallPerfShape(*op);
  auto reference = InProcessReference(*op);
  auto data = PerfData::Draw(*reference, *op, shape, 7, 4);
  ASSERT_TRUE(data.ok()) << data.status().ToString();
  ASSERT_EQ(data->size(), 4u);
  const auto params = op->ParamsOfKind(ops::ParamKind::kInput);
  for (size_t s = 0; s < data->size(); ++s) {
    const CallData& base = data->Base(s);
    EXPECT_EQ(base.expected.size(), op->ParamsOfKind(ops::ParamKind::kOutput).size());
    const CallData first = data->ForRound(s, 1), second = data->ForRound(s, 2);
    EXPECT_TRUE(first.expected.empty());
    for (size_t i = 0; i < base.inputs.size(); ++i) {
      const ops::Distribution& d = op->InputDistribution(shape.label, params[i]->name);
      const ops::Tensor& was = base.inputs[i];
      const ops::Tensor& now = first.inputs[i];
      ASSERT_EQ(now.elements(), was.elements());
      ASSERT_EQ(now.dtype(), was.dtype());
      if (was.elements() < 64) continue;
      // New values, not the old ones moved: no content-keyed or value-keyed cache can hit.
      EXPECT_GT(ChangedShare(was, now), 0.9) << params[i]->name;
      EXPECT_NE(Sorted(was), Sorted(now)) << params[i]->name;
      EXPECT_GT(ChangedShare(now, second.inputs[i]), 0.9) << params[i]->name;
      for (int64_t e = 0; e < now.elements(); ++e) {
        const double v = now.At(e);
        if (d.kind == ops::Distribution::Kind::kUniform) {
          ASSERT_TRUE(v >= d.a && v < d.b) << params[i]->name << "[" << e << "] = " << v;
        } else if (d.kind == ops::Distribution::Kind::kInteger) {
          ASSERT_TRUE(v >= d.a && v <= d.b && v == static_cast<int64_t>(v)) << v;
        }
      }
      // Drawn afresh, not derived from round 0: no linear trace of the old values (a
      // rotation or a shift keeps sums and dot products a kernel could carry over).
      if (d.kind != ops::Distribution::Kind::kInteger) {
        const double n = static_cast<double>(now.elements());
        double mean_was = 0, mean_now = 0;
        for (int64_t e = 0; e < now.elements(); ++e) mean_was += was.At(e) / n, mean_now += now.At(e) / n;
        double cov = 0, var_was = 0, var_now = 0;
        for (int64_t e = 0; e < now.elements(); ++e) {
          cov += (was.At(e) - mean_was) * (now.At(e) - mean_now);
          var_was += (was.At(e) - mean_was) * (was.At(e) - mean_was);
          var_now += (now.At(e) - mean_now) * (now.At(e) - mean_now);
        }
        EXPECT_LT(std::fabs(cov / std::sqrt(var_was * var_now)), 6 / std::sqrt(n))
            << params[i]->name << ": round 1 correlates with round 0";
        if (d.kind == ops::Distribution::Kind::kNormal) {
          EXPECT_NEAR(mean_now, d.a, 6 * d.b / std::sqrt(n)) << params[i]->name;
          EXPECT_NEAR(std::sqrt(var_now / n), d.b, 6 * d.b / std::sqrt(2 * n)) << params[i]->name;
        }
      }
    }
  }
  // A twin (set 2 of set 0) changes like its sibling: their ends still agree, their insides not.
  const CallData sibling = data->ForRound(0, 3), twin = data->ForRound(2, 3);
  for (size_t i = 0; i < sibling.inputs.size(); ++i) {
    const ops::Tensor &a = sibling.inputs[i], &b = twin.inputs[i];
    const int64_t n = a.elements();
    if (n < 128) continue;
    for (int64_t e : {int64_t{0}, int64_t{31}, n - 1}) {
      EXPECT_EQ(a.At(e), b.At(e)) << params[i]->name << "[" << e << "]";
    }
    EXPECT_FALSE(a.SameBits(b)) << params[i]->name;
  }
  // Reproducible from the seed.
  auto again = PerfData::Draw(*reference, *op, shape, 7, 4);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->ForRound(1, 5).inputs[0].SameBits(data->ForRound(1, 5).inputs[0]));
}

INSTANTIATE_TEST_SUITE_P(Ops, PerfDataTest, ::testing::Values("swish", "matmul", "embedding"));

}  // namespace
}  // namespace cannbot::validator
