#include "cannbot/validator/compare.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "cannbot/validator/tensor_layout.h"
#include "unit_support.h"

namespace cannbot::validator {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

float Poison() {
  float f;
  std::memcpy(&f, &kPoisonBits, sizeof(f));
  return f;
}

ops::Tolerance Tol(double atol, double rtol) {
  ops::Tolerance t;
  t.atol = atol;
  t.rtol = rtol;
  return t;
}

Comparison Compare(const std::vector<float>& expected, const std::vector<float>& got,
                   const ops::Tolerance& tolerance = Tol(1e-5, 1e-5)) {
  EXPECT_EQ(expected.size(), got.size());
  return CompareOutputs(ops::Tensor::FromFloats(expected), ops::Tensor::FromFloats(got),
                        tolerance);
}

using cannbot::test::Contains;

TEST(CompareTest, ExactMatchIsOk) {
  std::vector<float> v = {0.0f, -1.5f, 3.25f, 1e20f, -1e-20f, kInf, -kInf, kNaN};
  Comparison c = Compare(v, v, Tol(0, 0));
  EXPECT_TRUE(c.ok());
  EXPECT_EQ(c.elements, static_cast<int64_t>(v.size()));
  EXPECT_EQ(c.mismatches, 0);
  EXPECT_EQ(c.never_written, 0);
  EXPECT_FALSE(c.first_bad.has_value());
  EXPECT_EQ(c.max_abs_error, 0.0);
  EXPECT_EQ(c.max_rel_error, 0.0);
  EXPECT_EQ(c.mean_rel_error, 0.0);
}

TEST(CompareTest, WithinAbsolutePlusRelativeToleranceIsOk) {
  // Allowed deviation at expected = 100 is atol + rtol * 100 = 0.5 + 1.0 = 1.5.
  const ops::Tolerance tol = Tol(0.5, 0.01);
  EXPECT_TRUE(Compare({100.0f}, {101.4f}, tol).ok());
  EXPECT_TRUE(Compare({100.0f}, {98.6f}, tol).ok());
  // At expected = 0 only atol applies.
  EXPECT_TRUE(Compare({0.0f}, {0.49f}, tol).ok());
  EXPECT_TRUE(Compare({0.0f}, {-0.49f}, tol).ok());
}

TEST(CompareTest, JustOutsideToleranceFails) {
  const ops::Tolerance tol = Tol(0.5, 0.01);
  EXPECT_FALSE(Compare({100.0f}, {101.6f}, tol).ok());
  EXPECT_FALSE(Compare({100.0f}, {98.4f}, tol).ok());
  EXPECT_FALSE(Compare({0.0f}, {0.51f}, tol).ok());
  EXPECT_FALSE(Compare({-100.0f}, {-101.6f}, tol).ok());  // |expected| is used
  // The relative part scales with the expected magnitude: the same 1.6 is fine at 1000.
  EXPECT_TRUE(Compare({1000.0f}, {1001.6f}, tol).ok());
}

TEST(CompareTest, RelativeToleranceAloneAndAbsoluteToleranceAlone) {
  EXPECT_TRUE(Compare({1000.0f}, {1000.9f}, Tol(0, 1e-3)).ok());
  EXPECT_FALSE(Compare({1000.0f}, {1001.1f}, Tol(0, 1e-3)).ok());
  EXPECT_TRUE(Compare({1000.0f}, {1000.9f}, Tol(1.0, 0)).ok());
  EXPECT_FALSE(Compare({1000.0f}, {1001.1f}, Tol(1.0, 0)).ok());
}

TEST(CompareTest, ErrorSummary) {
  // Errors: |1.1-1| = 0.1 (rel 0.1), |2.4-2| = 0.4 (rel 0.2), 0 (rel 0).
  Comparison c = Compare({1.0f, 2.0f, 4.0f}, {1.1f, 2.4f, 4.0f}, Tol(1.0, 0));
  EXPECT_TRUE(c.ok());
  EXPECT_NEAR(c.max_abs_error, 0.4, 1e-6);
  EXPECT_NEAR(c.max_rel_error, 0.2, 1e-6);
  EXPECT_NEAR(c.mean_rel_error, (0.1 + 0.2 + 0.0) / 3.0, 1e-6);
}

TEST(CompareTest, ExpectedNaNRequiresNaN) {
  EXPECT_TRUE(Compare({kNaN}, {kNaN}).ok());
  EXPECT_TRUE(Compare({kNaN}, {-kNaN}).ok());  // any NaN
  EXPECT_FALSE(Compare({kNaN}, {0.0f}, Tol(1e30, 1e30)).ok());
  EXPECT_FALSE(Compare({kNaN}, {kInf}, Tol(1e30, 1e30)).ok());
}

TEST(CompareTest, InfinityMustMatchSign) {
  EXPECT_TRUE(Compare({kInf}, {kInf}).ok());
  EXPECT_TRUE(Compare({-kInf}, {-kInf}).ok());
  EXPECT_FALSE(Compare({kInf}, {-kInf}, Tol(1e30, 1e30)).ok());
  EXPECT_FALSE(Compare({-kInf}, {kInf}, Tol(1e30, 1e30)).ok());
  EXPECT_FALSE(Compare({kInf}, {3.4e38f}, Tol(1e30, 1e30)).ok());
  EXPECT_FALSE(Compare({kInf}, {kNaN}, Tol(1e30, 1e30)).ok());
}

TEST(CompareTest, NonFiniteGotWhereFiniteExpectedFails) {
  // However loose the tolerance, a NaN or infinity is not close to a finite value.
  Comparison nan = Compare({1.0f}, {kNaN}, Tol(1e30, 1e30));
  EXPECT_FALSE(nan.ok());
  EXPECT_EQ(nan.never_written, 0);
  EXPECT_TRUE(std::isinf(nan.max_abs_error));
  EXPECT_FALSE(Compare({1.0f}, {kInf}, Tol(1e30, 1e30)).ok());
  EXPECT_FALSE(Compare({1.0f}, {-kInf}, Tol(1e30, 1e30)).ok());
}

// BUG: compare.cc:47 only marks the error summary infinite when exactly one side is finite or
// exactly one side is NaN. For expected = +inf and got = -inf (both infinite, neither NaN) the
// element is counted as a mismatch but max_abs_error and max_rel_error stay 0, so Describe()
// reports "1 of 1 elements ... differ ...; max abs error 0, max rel error 0", contradicting
// itself (|got - expected| is infinite).
TEST(CompareTest, OppositeInfinitiesGiveInfiniteError) {
  Comparison c = Compare({kInf}, {-kInf});
  EXPECT_FALSE(c.ok());
  EXPECT_TRUE(std::isinf(c.max_abs_error)) << c.max_abs_error;
  EXPECT_TRUE(std::isinf(c.max_rel_error)) << c.max_rel_error;
}

TEST(CompareTest, PoisonIsCountedAsNeverWritten) {
  const float poison = Poison();
  EXPECT_TRUE(IsPoison(&poison, ops::DType::kF32, 0));
  EXPECT_FALSE(IsPoison(&kNaN, ops::DType::kF32, 0));  // an ordinary NaN is not the poison
  Comparison c = Compare({1.0f, 2.0f, 3.0f, 4.0f}, {1.0f, poison, kNaN, poison});
  EXPECT_FALSE(c.ok());
  EXPECT_EQ(c.mismatches, 3);
  EXPECT_EQ(c.never_written, 2);
  ASSERT_TRUE(c.first_bad.has_value());
  EXPECT_EQ(c.first_bad->index, 1);
  EXPECT_TRUE(c.first_bad->never_written);
}

// The dtype-generic path (16-bit outputs) counts the marker the same way as the fp32 one.
TEST(CompareTest, SixteenBitPoisonIsCountedAsNeverWritten) {
  ops::Tensor expected(ops::DType::kF16, 3);
  ops::Tensor got(ops::DType::kF16, 3);
  for (int64_t i = 0; i < 3; ++i) expected.Set(i, 1.0 + i);
  got.Set(0, 1.0);
  got.Set(1, 2.0);
  std::memcpy(static_cast<char*>(got.data()) + 4, &kPoisonBitsF16, 2);
  Comparison c = CompareOutputs(expected, got, Tol(1e-3, 1e-3));
  EXPECT_EQ(c.mismatches, 1);
  EXPECT_EQ(c.never_written, 1);
  ASSERT_TRUE(c.first_bad.has_value());
  EXPECT_EQ(c.first_bad->index, 2);
  got.Set(2, 3.0);
  EXPECT_TRUE(CompareOutputs(expected, got, Tol(1e-3, 1e-3)).ok());
}

TEST(CompareTest, FirstBadIsTheLowestFailingIndex) {
  std::vector<float> expected(100, 1.0f);
  std::vector<float> got = expected;
  got[37] = 2.0f;
  got[80] = 5.0f;
  Comparison c = Compare(expected, got);
  EXPECT_EQ(c.mismatches, 2);
  ASSERT_TRUE(c.first_bad.has_value());
  EXPECT_EQ(c.first_bad->index, 37);
  EXPECT_DOUBLE_EQ(c.first_bad->expected, 1.0);
  EXPECT_DOUBLE_EQ(c.first_bad->got, 2.0);
  EXPECT_FALSE(c.first_bad->never_written);
  EXPECT_NEAR(c.max_abs_error, 4.0, 1e-9);
}

TEST(CompareTest, DescribeMentionsIndexExpectedAndGot) {
  std::vector<float> expected = {0.25f, 0.5f, 0.75f, 1.0f};
  std::vector<float> got = {0.25f, 0.5f, 0.125f, 1.0f};
  Comparison c = Compare(expected, got);
  const std::string text = c.Describe("y");
  EXPECT_TRUE(Contains(text, "index 2")) << text;
  EXPECT_TRUE(Contains(text, "0.75")) << text;
  EXPECT_TRUE(Contains(text, "0.125")) << text;
  EXPECT_TRUE(Contains(text, " y ")) << text;
  EXPECT_TRUE(Contains(text, "1 of 4")) << text;
}

TEST(CompareTest, DescribeOkAndNeverWritten) {
  std::vector<float> v = {1.0f, 2.0f};
  const std::string ok_text = Compare(v, v).Describe("y");
  EXPECT_TRUE(Contains(ok_text, "2")) << ok_text;
  EXPECT_TRUE(Contains(ok_text, "match")) << ok_text;

  const float poison = Poison();
  const std::string none = Compare(v, {poison, poison}).Describe("y");
  EXPECT_TRUE(Contains(none, "never")) << none;

  const std::string some = Compare({1.0f, 2.0f, 3.0f}, {1.0f, poison, 3.0f}).Describe("out");
  EXPECT_TRUE(Contains(some, "index 1")) << some;
  EXPECT_TRUE(Contains(some, "never written")) << some;
}

TEST(CompareTest, MergeComparisonAddsCountsAndKeepsWorstErrors) {
  Comparison a = Compare({1.0f, 2.0f}, {1.0f, 2.5f}, Tol(0.1, 0));     // 1 mismatch
  Comparison b = Compare({4.0f, 4.0f, 4.0f, 4.0f}, {4.0f, Poison(), 4.0f, 5.0f},
                         Tol(0.1, 0));  // 2 mismatches, 1 never written
  ASSERT_EQ(a.mismatches, 1);
  ASSERT_EQ(b.mismatches, 2);

  Comparison total;
  MergeComparison(&total, a);
  MergeComparison(&total, b);
  EXPECT_EQ(total.elements, 6);
  EXPECT_EQ(total.mismatches, 3);
  EXPECT_EQ(total.never_written, 1);
  EXPECT_FALSE(total.ok());
  EXPECT_DOUBLE_EQ(total.max_abs_error, std::fmax(a.max_abs_error, b.max_abs_error));
  EXPECT_DOUBLE_EQ(total.max_rel_error, std::fmax(a.max_rel_error, b.max_rel_error));
  // The mean is weighted by element count.
  EXPECT_NEAR(total.mean_rel_error, (a.mean_rel_error * 2 + b.mean_rel_error * 4) / 6, 1e-12);
  // The first mismatch seen is kept.
  ASSERT_TRUE(total.first_bad.has_value());
  EXPECT_EQ(total.first_bad->index, a.first_bad->index);
  EXPECT_DOUBLE_EQ(total.first_bad->got, 2.5);
}

TEST(CompareTest, MergeTakesFirstBadFromLaterWhenEarlierWasClean) {
  Comparison clean = Compare({1.0f}, {1.0f});
  Comparison bad = Compare({1.0f, 2.0f}, {1.0f, 3.0f});
  Comparison total;
  MergeComparison(&total, clean);
  MergeComparison(&total, bad);
  EXPECT_EQ(total.elements, 3);
  EXPECT_EQ(total.mismatches, 1);
  ASSERT_TRUE(total.first_bad.has_value());
  EXPECT_EQ(total.first_bad->index, 1);
  EXPECT_DOUBLE_EQ(total.first_bad->expected, 2.0);
}

TEST(CompareTest, MergeOfCleanComparisonsStaysOk) {
  Comparison total;
  MergeComparison(&total, Compare({1.0f, 2.0f}, {1.0f, 2.0f}));
  MergeComparison(&total, Compare({3.0f}, {3.0f}));
  EXPECT_TRUE(total.ok());
  EXPECT_EQ(total.elements, 3);
  EXPECT_FALSE(total.first_bad.has_value());
}

}  // namespace
}  // namespace cannbot::validator
