// Reference binary (sub, divide, mul, maximum, minimum), reduction (reduce_sum, reduce_mean,
// reduce_max, argmax) and normalization (log_softmax, rms_norm, add_rms_norm, batch_norm,
// group_norm) kernels against hand-picked values and independent formulations, edge values
// (signed zeros, subnormals, the largest floats) included.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "cannbot/ops/reference/add_rms_norm.h"
#include "cannbot/ops/reference/argmax.h"
#include "cannbot/ops/reference/batch_norm.h"
#include "cannbot/ops/reference/divide.h"
#include "cannbot/ops/reference/group_norm.h"
#include "cannbot/ops/reference/layernorm.h"
#include "cannbot/ops/reference/log_softmax.h"
#include "cannbot/ops/reference/maximum.h"
#include "cannbot/ops/reference/minimum.h"
#include "cannbot/ops/reference/mul.h"
#include "cannbot/ops/reference/reduce_max.h"
#include "cannbot/ops/reference/reduce_mean.h"
#include "cannbot/ops/reference/reduce_sum.h"
#include "cannbot/ops/reference/rms_norm.h"
#include "cannbot/ops/reference/softmax.h"
#include "cannbot/ops/reference/sub.h"

// A namespace of its own: the unit tests are compiled together in batches (unity build).
namespace cannbot_ref_binary_reduction_norm_test {
namespace {

constexpr float kMax = std::numeric_limits<float>::max();
constexpr float kMinNormal = std::numeric_limits<float>::min();
constexpr float kSubnormal = 3 * std::numeric_limits<float>::denorm_min();
constexpr float kInf = std::numeric_limits<float>::infinity();

using Vec = std::vector<float>;
using BinaryFn = void (*)(const float*, const float*, float*, int64_t, int64_t);
using RowFn = void (*)(const float*, float*, int64_t, int64_t);

// n values from normal(mean, stddev), a share `edge_share` of them replaced by `edges`.
Vec Draw(int64_t n, double mean, double stddev, uint64_t seed, const Vec& edges = {},
         double edge_share = 0.0) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(mean, stddev);
  std::uniform_real_distribution<double> coin(0.0, 1.0);
  Vec v(static_cast<size_t>(n));
  for (float& x : v) {
    x = static_cast<float>(normal(rng));
    if (!edges.empty() && coin(rng) < edge_share) x = edges[rng() % edges.size()];
  }
  return v;
}

Vec Uniform(int64_t n, double low, double high, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> d(low, high);
  Vec v(static_cast<size_t>(n));
  for (float& x : v) x = static_cast<float>(d(rng));
  return v;
}

const Vec kEdges = {0.0f, -0.0f, kSubnormal, -kSubnormal, kMinNormal, kMax, -kMax, kMax / 16};

Vec Binary(BinaryFn fn, const Vec& a, const Vec& b, int64_t rows, int64_t cols) {
  Vec y(a.size(), -123.0f);
  fn(a.data(), b.data(), y.data(), rows, cols);
  return y;
}

Vec Rows(RowFn fn, const Vec& x, int64_t rows, int64_t cols) {
  Vec y(static_cast<size_t>(rows), -123.0f);
  fn(x.data(), y.data(), rows, cols);
  return y;
}

// Same value, and the same sign for zeros (EXPECT_EQ treats -0 == +0).
void ExpectSame(float got, float want, const char* what, size_t i) {
  if (std::isnan(want)) {
    EXPECT_TRUE(std::isnan(got)) << what << " element " << i;
    return;
  }
  EXPECT_EQ(got, want) << what << " element " << i;
  EXPECT_EQ(std::signbit(got), std::signbit(want)) << what << " element " << i << ": " << got;
}

// ---------------------------------------------------------------- binary ops

TEST(ReferenceSubTest, BroadcastsTheRowVector) {
  // a is [2, 3], b is [3]: every row has the same b subtracted.
  const Vec y = Binary(cannbot_ref::sub, {1, 2, 3, 10, 20, 30}, {0.5f, -1, 3}, 2, 3);
  EXPECT_EQ(y, (Vec{0.5f, 3, 0, 9.5f, 21, 27}));
}

TEST(ReferenceSubTest, EdgeValues) {
  const Vec a = {kMax, -kMax, 0.0f, -0.0f, 0.0f, 2 * kSubnormal, 1.0f, kMinNormal};
  const Vec b = {-kMax, kMax, 0.0f, 0.0f, -0.0f, kSubnormal, 1e-30f, kMinNormal / 2};
  Vec y(a.size());
  // One column per element, one row: b[j] pairs with a[j].
  cannbot_ref::sub(a.data(), b.data(), y.data(), 1, static_cast<int64_t>(a.size()));
  ExpectSame(y[0], kInf, "max - min", 0);
  ExpectSame(y[1], -kInf, "min - max", 1);
  ExpectSame(y[2], 0.0f, "0 - 0", 2);
  ExpectSame(y[3], -0.0f, "-0 - 0", 3);
  ExpectSame(y[4], 0.0f, "0 - -0", 4);
  ExpectSame(y[5], kSubnormal, "subnormal difference", 5);  // exact, not flushed
  ExpectSame(y[6], 1.0f, "1 - 1e-30", 6);
  ExpectSame(y[7], kMinNormal / 2, "into the subnormals", 7);
}

TEST(ReferenceSubTest, EqualsAddingTheNegation) {
  // a - b == a + (-b) in IEEE arithmetic (negation is exact), here in plain fp32.
  const int64_t rows = 9, cols = 37;
  const Vec a = Draw(rows * cols, 0, 4, 1, kEdges, 0.05);
  const Vec b = Draw(cols, 0, 2, 2, kEdges, 0.2);
  const Vec y = Binary(cannbot_ref::sub, a, b, rows, cols);
  for (size_t i = 0; i < y.size(); ++i) {
    const float want = a[i] + (-b[i % static_cast<size_t>(cols)]);
    ExpectSame(y[i], want, "a + (-b)", i);
  }
}

TEST(ReferenceDivideTest, HandPickedValues) {
  // a is [2, 3], b is [3]: every row is divided by the same b.
  const Vec y = Binary(cannbot_ref::divide, {1, -3, 7, 2, 3, -1}, {4, 0.75f, -2}, 2, 3);
  EXPECT_EQ(y, (Vec{0.25f, -4, -3.5f, 0.5f, 4, 0.5f}));
  const Vec third = Binary(cannbot_ref::divide, {1}, {3}, 1, 1);
  EXPECT_EQ(third[0], 1.0f / 3.0f);  // correctly rounded, like fp32 division
}

TEST(ReferenceDivideTest, EdgeValues) {
  const float tiny = std::numeric_limits<float>::denorm_min();
  const Vec a = {kMax, kMax, 1.0f, kSubnormal, -0.0f, 0.0f, 4.0f, 1.0f, tiny};
  const Vec b = {0.5f, -0.75f, kMax, 4.0f, 2.0f, -2.0f, kMinNormal, 0.0f, 2.0f};
  Vec y(a.size());
  cannbot_ref::divide(a.data(), b.data(), y.data(), 1, static_cast<int64_t>(a.size()));
  ExpectSame(y[0], kInf, "max / 0.5", 0);
  ExpectSame(y[1], -kInf, "max / -0.75", 1);
  ExpectSame(y[2], 1.0f / kMax, "1 / max (subnormal)", 2);
  EXPECT_GT(y[2], 0.0f);
  EXPECT_LT(y[2], kMinNormal);
  ExpectSame(y[3], tiny, "3 ulp / 4 = 0.75 ulp rounds up", 3);  // no flush to zero
  ExpectSame(y[4], -0.0f, "-0 / 2", 4);
  ExpectSame(y[5], -0.0f, "0 / -2", 5);
  ExpectSame(y[6], 4.0f / kMinNormal, "4 / min_normal", 6);
  ExpectSame(y[7], kInf, "1 / 0 is IEEE's +inf", 7);
  ExpectSame(y[8], 0.0f, "half an ulp rounds to even 0", 8);
}

TEST(ReferenceDivideTest, IsTheCorrectlyRoundedQuotient) {
  // fp32 division is correctly rounded by IEEE 754; so must the reference be, on random and
  // edge values alike, subnormal and overflowing quotients included.
  const int64_t rows = 11, cols = 41;
  const Vec a = Draw(rows * cols, 0, 4, 3, kEdges, 0.05);
  Vec b = Uniform(cols, 0.5, 4.0, 4);
  b[3] = -2.0f;
  b[5] = -0.75f;
  b[7] = kMax;
  b[11] = -kMax;
  b[13] = kMinNormal;
  const Vec y = Binary(cannbot_ref::divide, a, b, rows, cols);
  for (size_t i = 0; i < y.size(); ++i) {
    const volatile float num = a[i], den = b[i % static_cast<size_t>(cols)];
    ExpectSame(y[i], num / den, "fp32 a / b", i);
  }
}

TEST(ReferenceMulTest, ScalesEachChannel) {
  // [n=2, c=2, h=1, w=3]; channel 0 is scaled by 2, channel 1 by -0.5.
  const Vec a = {1, 2, 3, 4, 5, 6, -1, -2, -3, -4, -5, -6};
  const Vec b = {2, -0.5f};
  Vec y(a.size(), -123.0f);
  cannbot_ref::mul(a.data(), b.data(), y.data(), 2, 2, 1, 3);
  EXPECT_EQ(y, (Vec{2, 4, 6, -2, -2.5f, -3, -2, -4, -6, 2, 2.5f, 3}));
}

TEST(ReferenceMulTest, EdgeValues) {
  const Vec a = {kMax, kMax, kSubnormal, -0.0f, kMinNormal, 3e-30f};
  const Vec b = {2.0f, -1.0f, 0.5f, 3.0f, 0.25f, 1e-20f};
  Vec y(a.size());
  // c = 6 channels of one element each.
  cannbot_ref::mul(a.data(), b.data(), y.data(), 1, 6, 1, 1);
  ExpectSame(y[0], kInf, "max * 2", 0);
  ExpectSame(y[1], -kMax, "max * -1", 1);
  ExpectSame(y[2], 2 * std::numeric_limits<float>::denorm_min(), "subnormal * 0.5", 2);
  ExpectSame(y[3], -0.0f, "-0 * 3", 3);
  ExpectSame(y[4], kMinNormal / 4, "min_normal / 4 (subnormal)", 4);
  ExpectSame(y[5], 3e-30f * 1e-20f, "underflow to zero", 5);
  EXPECT_EQ(y[5], 0.0f);
}

TEST(ReferenceMulTest, MatchesIndexFormulaOnEveryLayoutAxis) {
  // Element e uses b[(e / (h*w)) % c]: checked with h != w so a swapped h/w or a [n]-indexed
  // factor shows, in plain fp32 multiplication (correctly rounded by IEEE 754).
  const int64_t n = 3, c = 5, h = 2, w = 7;
  const Vec a = Draw(n * c * h * w, 0, 4, 5, kEdges, 0.05);
  Vec b = Uniform(c, -2, 2, 6);
  b[1] = kMax / 16;
  Vec y(a.size(), -123.0f);
  cannbot_ref::mul(a.data(), b.data(), y.data(), n, c, h, w);
  for (size_t e = 0; e < y.size(); ++e) {
    const volatile float x = a[e], f = b[(e / static_cast<size_t>(h * w)) % static_cast<size_t>(c)];
    ExpectSame(y[e], x * f, "a * b[channel]", e);
  }
}

TEST(ReferenceMaximumTest, HandPickedValues) {
  const Vec y = Binary(cannbot_ref::maximum, {1, -5, 3, -1, 0, 7}, {2, -4, 3}, 2, 3);
  EXPECT_EQ(y, (Vec{2, -4, 3, 2, 0, 7}));
}

TEST(ReferenceMaximumTest, TiesKeepA) {
  // -0 and +0 compare equal: the result is a's zero, whichever it is.
  const Vec a = {-0.0f, 0.0f, -kMax, kSubnormal};
  const Vec b = {0.0f, -0.0f, -kMax, -kSubnormal};
  Vec y(4);
  cannbot_ref::maximum(a.data(), b.data(), y.data(), 1, 4);
  ExpectSame(y[0], -0.0f, "max(-0, +0)", 0);
  ExpectSame(y[1], 0.0f, "max(+0, -0)", 1);
  ExpectSame(y[2], -kMax, "max(min, min)", 2);
  ExpectSame(y[3], kSubnormal, "max(subnormal, -subnormal)", 3);
}

TEST(ReferenceMinimumTest, HandPickedValues) {
  const Vec y = Binary(cannbot_ref::minimum, {1, -5, 3, -1, 0, 7}, {2, -4, 3}, 2, 3);
  EXPECT_EQ(y, (Vec{1, -5, 3, -1, -4, 3}));
}

TEST(ReferenceMinimumTest, TiesKeepA) {
  const Vec a = {-0.0f, 0.0f, kMax, -kSubnormal};
  const Vec b = {0.0f, -0.0f, kMax, kSubnormal};
  Vec y(4);
  cannbot_ref::minimum(a.data(), b.data(), y.data(), 1, 4);
  ExpectSame(y[0], -0.0f, "min(-0, +0)", 0);
  ExpectSame(y[1], 0.0f, "min(+0, -0)", 1);
  ExpectSame(y[2], kMax, "min(max, max)", 2);
  ExpectSame(y[3], -kSubnormal, "min(-subnormal, subnormal)", 3);
}

TEST(ReferenceMaximumMinimumTest, AgreeWithFmaxFminAndSplitThePair) {
  // std::fmax / std::fmin pick the same value (up to the sign of a zero); max and min
  // together are the pair {a, b}, so max + min == a + b and max >= min, element by element.
  const int64_t rows = 13, cols = 29;
  const Vec a = Draw(rows * cols, 0, 2, 7, kEdges, 0.1);
  const Vec b = Draw(cols, 0, 2, 8, kEdges, 0.3);
  const Vec hi = Binary(cannbot_ref::maximum, a, b, rows, cols);
  const Vec lo = Binary(cannbot_ref::minimum, a, b, rows, cols);
  for (size_t i = 0; i < hi.size(); ++i) {
    const float bv = b[i % static_cast<size_t>(cols)];
    EXPECT_EQ(hi[i], std::fmax(a[i], bv)) << i;
    EXPECT_EQ(lo[i], std::fmin(a[i], bv)) << i;
    EXPECT_GE(hi[i], lo[i]) << i;
    EXPECT_EQ(static_cast<double>(hi[i]) + lo[i], static_cast<double>(a[i]) + bv) << i;
  }
}

// ---------------------------------------------------------------- reductions

TEST(ReferenceReduceSumTest, HandPickedRows) {
  // [3, 4]: rows 1 2 3 4 / -1 0.5 0.25 0.25 / 1e10 1 -1e10 1 (1e10 is a float exactly).
  const Vec x = {1, 2, 3, 4, -1, 0.5f, 0.25f, 0.25f, 1e10f, 1, -1e10f, 1};
  const Vec y = Rows(cannbot_ref::reduce_sum, x, 3, 4);
  EXPECT_EQ(y[0], 10.0f);
  EXPECT_EQ(y[1], 0.0f);
  EXPECT_EQ(y[2], 2.0f);  // an fp32 running sum absorbs the first 1 into 1e10 and answers 1
}

TEST(ReferenceReduceSumTest, EdgeValues) {
  // Subnormals add up exactly; a sum beyond fp32's range is +inf; one column is the value.
  EXPECT_EQ(Rows(cannbot_ref::reduce_sum, {kSubnormal, kSubnormal}, 1, 2)[0], 2 * kSubnormal);
  EXPECT_EQ(Rows(cannbot_ref::reduce_sum, {kMax, kMax, -kMax / 4}, 1, 3)[0], kInf);
  EXPECT_EQ(Rows(cannbot_ref::reduce_sum, {kMax, kMax, -kMax}, 1, 3)[0], kMax);
  const Vec single = Rows(cannbot_ref::reduce_sum, {-0.0f, 5.0f, -kMax}, 3, 1);
  EXPECT_EQ(single, (Vec{0.0f, 5.0f, -kMax}));
}

TEST(ReferenceReduceSumTest, MatchesCompensatedSumInLongDouble) {
  // Kahan summation in long double, in reverse order: a different algorithm and order.
  const int64_t rows = 6, cols = 1031;
  const Vec x = Draw(rows * cols, 0.5, 1, 9, {0.0f, -0.0f, kSubnormal, kMinNormal, 1e4f, -1e4f},
                     0.02);
  const Vec y = Rows(cannbot_ref::reduce_sum, x, rows, cols);
  for (int64_t r = 0; r < rows; ++r) {
    long double sum = 0, carry = 0;
    for (int64_t j = cols - 1; j >= 0; --j) {
      const long double term = x[r * cols + j] - carry;
      const long double next = sum + term;
      carry = (next - sum) - term;
      sum = next;
    }
    EXPECT_EQ(y[r], static_cast<float>(sum)) << "row " << r;
  }
}

TEST(ReferenceReduceMeanTest, HandPickedRows) {
  const Vec y = Rows(cannbot_ref::reduce_mean, {1, 2, 3, 6, -1, 1, 0.5f, 0.5f}, 2, 4);
  EXPECT_EQ(y, (Vec{3.0f, 0.25f}));
  // fp32's sum of these overflows; their mean does not.
  EXPECT_EQ(Rows(cannbot_ref::reduce_mean, {kMax, kMax, kMax}, 1, 3)[0], kMax);
  EXPECT_EQ(Rows(cannbot_ref::reduce_mean, {kSubnormal, kSubnormal}, 1, 2)[0], kSubnormal);
}

TEST(ReferenceReduceMeanTest, IsTheSumOverCols) {
  const int64_t rows = 5, cols = 777;
  const Vec x = Draw(rows * cols, 0.5, 1, 10, {0.0f, -0.0f, kSubnormal, kMinNormal}, 0.02);
  const Vec sum = Rows(cannbot_ref::reduce_sum, x, rows, cols);
  const Vec mean = Rows(cannbot_ref::reduce_mean, x, rows, cols);
  for (int64_t r = 0; r < rows; ++r) {
    // Both round once from a double sum: equal to within that sum's rounding to fp32.
    EXPECT_NEAR(mean[r], sum[r] / static_cast<double>(cols), 2e-7 * std::fabs(mean[r])) << r;
  }
}

TEST(ReferenceReduceMaxTest, HandPickedRows) {
  // Rows: mixed, all negative, the most negative float alone, zeros of both signs.
  const Vec x = {1, 7, -3, 7, -5, -2, -9, -4, -kMax, -kMax, -kMax, -kMax, -0.0f, 0.0f, -1, -2};
  EXPECT_EQ(Rows(cannbot_ref::reduce_max, x, 4, 4), (Vec{7, -2, -kMax, 0}));
  EXPECT_EQ(Rows(cannbot_ref::reduce_max, {kSubnormal, -kMax, kMinNormal, 0}, 1, 4)[0], kMinNormal);
  EXPECT_EQ(Rows(cannbot_ref::reduce_max, {-3, kMax, 2}, 3, 1), (Vec{-3, kMax, 2}));
}

TEST(ReferenceReduceMaxTest, MatchesMaxElement) {
  const int64_t rows = 17, cols = 45;
  Vec x = Draw(rows * cols, 0, 2, 11, kEdges, 0.02);
  for (int64_t j = 0; j < cols; ++j) x[j] = -1.0f - static_cast<float>(j);  // all negative
  const Vec y = Rows(cannbot_ref::reduce_max, x, rows, cols);
  for (int64_t r = 0; r < rows; ++r) {
    const float want = *std::max_element(x.begin() + r * cols, x.begin() + (r + 1) * cols);
    EXPECT_EQ(y[r], want) << "row " << r;
  }
  EXPECT_EQ(y[0], -1.0f);
}

std::vector<int32_t> Argmax(const Vec& x, int64_t rows, int64_t cols) {
  std::vector<int32_t> y(static_cast<size_t>(rows), -7);
  cannbot_ref::argmax(x.data(), y.data(), rows, cols);
  return y;
}

TEST(ReferenceArgmaxTest, FirstOfTiedMaxima) {
  // Rows: a tie at 1 and 3 -> 1; all negative -> the largest; zeros of both signs tie -> the
  // first; the most negative float everywhere -> 0; the maximum in the last column.
  const Vec x = {0, 5, 2, 5, -4, -2, -9, -3, -1, -0.0f, 0.0f, -1,
                 -kMax, -kMax, -kMax, -kMax, 1, 2, 3, kMax};
  EXPECT_EQ(Argmax(x, 5, 4), (std::vector<int32_t>{1, 1, 1, 0, 3}));
  EXPECT_EQ(Argmax({3, -1, kSubnormal}, 3, 1), (std::vector<int32_t>{0, 0, 0}));
}

TEST(ReferenceArgmaxTest, IsTheFirstIndexOfTheMaximum) {
  // Small integers tie often. std::max_element returns the first largest element too; and
  // x at the index is reduce_max's value, with no equal value before it.
  const int64_t rows = 40, cols = 67;
  std::mt19937_64 rng(12);
  std::uniform_int_distribution<int> small(-3, 3);
  Vec x(static_cast<size_t>(rows * cols));
  for (float& v : x) v = static_cast<float>(small(rng));
  x[5] = -0.0f;
  const std::vector<int32_t> y = Argmax(x, rows, cols);
  const Vec max = Rows(cannbot_ref::reduce_max, x, rows, cols);
  for (int64_t r = 0; r < rows; ++r) {
    const auto row = x.begin() + r * cols;
    EXPECT_EQ(y[r], std::max_element(row, row + cols) - row) << "row " << r;
    ASSERT_GE(y[r], 0);
    ASSERT_LT(y[r], cols);
    EXPECT_EQ(x[r * cols + y[r]], max[r]) << "row " << r;
    for (int64_t j = 0; j < y[r]; ++j) EXPECT_LT(x[r * cols + j], max[r]) << r << " " << j;
  }
}

// ---------------------------------------------------------------- normalizations

Vec LogSoftmax(const Vec& x, int64_t rows, int64_t cols) {
  Vec y(x.size(), -123.0f);
  cannbot_ref::log_softmax(x.data(), y.data(), rows, cols);
  return y;
}

TEST(ReferenceLogSoftmaxTest, HandPickedRows) {
  const Vec y = LogSoftmax({0, 0, 1000, 999, 100, -1000}, 3, 2);
  EXPECT_NEAR(y[0], -0.6931471805599453, 1e-7);  // -log 2
  EXPECT_NEAR(y[1], -0.6931471805599453, 1e-7);
  EXPECT_NEAR(y[2], -0.31326168751822286, 1e-7);  // -log(1 + e^-1)
  EXPECT_NEAR(y[3], -1.3132616875182228, 1e-7);
  EXPECT_EQ(y[4], 0.0f);  // e^-1100 is nothing next to 1
  EXPECT_EQ(y[5], -1100.0f);  // finite: not the log of an underflowed softmax value
  EXPECT_EQ(LogSoftmax({-5, 0, 1e3f}, 3, 1), (Vec{0, 0, 0}));
}

TEST(ReferenceLogSoftmaxTest, IsTheLogOfSoftmax) {
  // Moderate inputs, where the softmax reference's values are far from underflow.
  const int64_t rows = 7, cols = 33;
  const Vec x = Draw(rows * cols, 0, 4, 13);
  const Vec y = LogSoftmax(x, rows, cols);
  Vec p(x.size());
  cannbot_ref::softmax(x.data(), p.data(), rows, cols);
  for (size_t i = 0; i < y.size(); ++i) {
    EXPECT_NEAR(y[i], std::log(static_cast<double>(p[i])), 2e-6 * (1 + std::fabs(y[i]))) << i;
  }
}

TEST(ReferenceLogSoftmaxTest, RowsExponentiateToOneWithEdgeValues) {
  // sum_j exp(y) = 1 in long double, with +-1000 edges that overflow or underflow exp(x).
  const int64_t rows = 32, cols = 129;
  const Vec x = Draw(rows * cols, 0, 4, 14, {20, -20, 100, -100, 1000, -1000}, 0.03);
  const Vec y = LogSoftmax(x, rows, cols);
  for (int64_t r = 0; r < rows; ++r) {
    long double sum = 0;
    for (int64_t j = 0; j < cols; ++j) {
      const float v = y[r * cols + j];
      ASSERT_TRUE(std::isfinite(v) && v <= 0.0f) << "row " << r << ": " << v;
      sum += std::exp(static_cast<long double>(v));
    }
    EXPECT_NEAR(static_cast<double>(sum), 1.0, 1e-6) << "row " << r;
  }
}

TEST(ReferenceLogSoftmaxTest, IsShiftInvariant) {
  // Floats near 1000 minus 1000 are exact, so both copies are the same logits shifted.
  const int64_t rows = 4, cols = 256;
  const Vec x = Draw(rows * cols, 1000, 1, 15);
  Vec shifted = x;
  for (float& v : shifted) v -= 1000.0f;
  const Vec y = LogSoftmax(x, rows, cols);
  const Vec y0 = LogSoftmax(shifted, rows, cols);
  for (size_t i = 0; i < y.size(); ++i) EXPECT_NEAR(y[i], y0[i], 1e-6 * (1 + std::fabs(y0[i])));
}

// rms_norm in long double, one element at a time, straight from the formula.
float RmsNormElement(const Vec& h, const Vec& gamma, int64_t r, int64_t j, int64_t cols,
                     float eps) {
  long double sq = 0;
  for (int64_t k = 0; k < cols; ++k) sq += static_cast<long double>(h[r * cols + k]) * h[r * cols + k];
  return static_cast<float>(h[r * cols + j] / std::sqrt(sq / cols + eps) * gamma[j]);
}

TEST(ReferenceRmsNormTest, HandPickedRows) {
  // Row [3, 4]: mean square 12.5; eps = 0.5 makes it 13, so y = x / sqrt(13) * gamma.
  const Vec x = {3, 4, 0, 0}, gamma = {1, 2};
  Vec y(4, -123.0f);
  cannbot_ref::rms_norm(x.data(), gamma.data(), y.data(), 2, 2, 0.5f);
  EXPECT_NEAR(y[0], 3 / std::sqrt(13.0), 1e-7);
  EXPECT_NEAR(y[1], 8 / std::sqrt(13.0), 1e-7);
  EXPECT_EQ(y[2], 0.0f);  // an all-zero row: 0 / sqrt(eps)
  EXPECT_EQ(y[3], 0.0f);
  // One column: x / sqrt(x^2 + eps) is the sign of x, for x far above sqrt(eps).
  Vec one(2);
  const Vec big = {-1e30f, 3e38f}, g1 = {1.0f};
  cannbot_ref::rms_norm(big.data(), g1.data(), one.data(), 2, 1, 1e-6f);
  EXPECT_EQ(one, (Vec{-1.0f, 1.0f}));  // the squares overflow fp32, not double
}

TEST(ReferenceRmsNormTest, MatchesFormulaWithEdgeValues) {
  const int64_t rows = 9, cols = 77;
  for (float eps : {1e-6f, 0.1f}) {
    const Vec x = Draw(rows * cols, 0, 1, 16, {0.0f, -0.0f, kSubnormal, 1e4f, -1e4f}, 0.03);
    const Vec gamma = Uniform(cols, 0.5, 1.5, 17);
    Vec y(x.size(), -123.0f);
    cannbot_ref::rms_norm(x.data(), gamma.data(), y.data(), rows, cols, eps);
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t j = 0; j < cols; ++j) {
        const float want = RmsNormElement(x, gamma, r, j, cols, eps);
        EXPECT_NEAR(y[r * cols + j], want, 1e-6 * (1e-6 + std::fabs(want))) << r << " " << j;
      }
    }
  }
}

TEST(ReferenceRmsNormTest, UnitGammaRowsHaveShrunkMeanSquare) {
  // gamma = 1: mean(y^2) = ms / (ms + eps); eps = 0.5 makes a misplaced eps visible.
  const int64_t rows = 5, cols = 40;
  const Vec x = Draw(rows * cols, 0.3, 0.7, 18);
  const Vec gamma(static_cast<size_t>(cols), 1.0f);
  Vec y(x.size());
  cannbot_ref::rms_norm(x.data(), gamma.data(), y.data(), rows, cols, 0.5f);
  for (int64_t r = 0; r < rows; ++r) {
    double ms = 0, my = 0;
    for (int64_t j = 0; j < cols; ++j) {
      ms += static_cast<double>(x[r * cols + j]) * x[r * cols + j];
      my += static_cast<double>(y[r * cols + j]) * y[r * cols + j];
    }
    ms /= cols;
    my /= cols;
    EXPECT_NEAR(my, ms / (ms + 0.5), 1e-6) << "row " << r;
  }
}

TEST(ReferenceAddRmsNormTest, HandPickedRow) {
  // h = [1, 2] + [2, 2] = [3, 4]; eps = 0.5: y = h / sqrt(13) * gamma.
  const Vec x = {1, 2}, res = {2, 2}, gamma = {1, -1};
  Vec y(2, -123.0f), h(2, -123.0f);
  cannbot_ref::add_rms_norm(x.data(), res.data(), gamma.data(), y.data(), h.data(), 1, 2, 0.5f);
  EXPECT_EQ(h, (Vec{3, 4}));
  EXPECT_NEAR(y[0], 3 / std::sqrt(13.0), 1e-7);
  EXPECT_NEAR(y[1], -4 / std::sqrt(13.0), 1e-7);
}

TEST(ReferenceAddRmsNormTest, IsAddThenRmsNorm) {
  // h is the fp32 sum; y is rms_norm of the exact sum, which the long double formula also uses.
  const int64_t rows = 8, cols = 65;
  const Vec edges = {0.0f, -0.0f, kSubnormal, 1e4f, -1e4f};
  const Vec x = Draw(rows * cols, 0, 1, 19, edges, 0.03);
  const Vec res = Draw(rows * cols, 0, 0.5, 20, edges, 0.03);
  const Vec gamma = Uniform(cols, 0.5, 1.5, 21);
  Vec y(x.size(), -123.0f), h(x.size(), -123.0f);
  cannbot_ref::add_rms_norm(x.data(), res.data(), gamma.data(), y.data(), h.data(), rows, cols,
                            1e-6f);
  Vec exact_h(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const volatile float s = x[i] + res[i];
    ExpectSame(h[i], s, "x + residual", i);
  }
  Vec via_rms(x.size());
  cannbot_ref::rms_norm(h.data(), gamma.data(), via_rms.data(), rows, cols, 1e-6f);
  for (size_t i = 0; i < y.size(); ++i) {
    // rms_norm of the rounded h differs from y by at most about an ulp of h.
    EXPECT_NEAR(y[i], via_rms[i], 4e-7 * (1e-6 + std::fabs(via_rms[i]))) << i;
  }
}

TEST(ReferenceBatchNormTest, HandPickedChannels) {
  // [n=2, c=2, hw=2]; channel 0: mean 1, var 3 (+eps 1 = 4), gamma 2, beta 0.5;
  // channel 1: mean -1, var 0 (+1), gamma -1, beta 0.
  const Vec x = {1, 3, -1, 0, 5, -1, 1, -3};
  const Vec mean = {1, -1}, var = {3, 0}, gamma = {2, -1}, beta = {0.5f, 0};
  Vec y(x.size(), -123.0f);
  cannbot_ref::batch_norm(x.data(), mean.data(), var.data(), gamma.data(), beta.data(), y.data(),
                          2, 2, 2, 1.0f);
  EXPECT_EQ(y, (Vec{0.5f, 2.5f, 0, -1, 4.5f, -1.5f, -2, 2}));
}

TEST(ReferenceBatchNormTest, MatchesFoldedFormInLongDouble) {
  // The folded scale-and-shift form, y = x * s + (beta - mean * s), in long double, with the
  // channel found as (e / hw) % c: a different formula and a different loop.
  for (double offset : {0.0, 100.0}) {
    const int64_t n = 3, c = 5, hw = 37;
    const Vec x = Draw(n * c * hw, offset, 1, 22, {0.0f, -0.0f, kSubnormal, kMax / 16}, 0.03);
    const Vec mean = Uniform(c, offset - 1, offset + 1, 23);
    const Vec var = Uniform(c, 0.1, 2.0, 24);
    const Vec gamma = Uniform(c, 0.5, 1.5, 25), beta = Uniform(c, -0.5, 0.5, 26);
    Vec y(x.size(), -123.0f);
    cannbot_ref::batch_norm(x.data(), mean.data(), var.data(), gamma.data(), beta.data(),
                            y.data(), n, c, hw, 1e-5f);
    for (size_t e = 0; e < y.size(); ++e) {
      const size_t ch = (e / hw) % c;
      const long double s = gamma[ch] / std::sqrt(static_cast<long double>(var[ch]) + 1e-5f);
      const long double want = x[e] * s + (beta[ch] - mean[ch] * s);
      EXPECT_NEAR(y[e], static_cast<double>(want), 1e-6 * (1 + std::fabs(static_cast<double>(want))))
          << "offset " << offset << " element " << e;
    }
  }
}

Vec GroupNorm(const Vec& x, const Vec& gamma, const Vec& beta, int64_t n, int64_t c, int64_t hw,
              int64_t groups, float eps) {
  Vec y(x.size(), -123.0f);
  cannbot_ref::group_norm(x.data(), gamma.data(), beta.data(), y.data(), n, c, hw, groups, eps);
  return y;
}

TEST(ReferenceGroupNormTest, HandPickedGroups) {
  // [n=1, c=2, hw=2] in one group: values 1 2 3 4, mean 2.5, var 1.25 (+eps 0.75 = 2).
  const Vec y = GroupNorm({1, 2, 3, 4}, {1, 2}, {0, 1}, 1, 2, 2, 1, 0.75f);
  const double s = 1 / std::sqrt(2.0);
  EXPECT_NEAR(y[0], -1.5 * s, 1e-7);
  EXPECT_NEAR(y[1], -0.5 * s, 1e-7);
  EXPECT_NEAR(y[2], 0.5 * s * 2 + 1, 1e-7);
  EXPECT_NEAR(y[3], 1.5 * s * 2 + 1, 1e-7);
  // Two groups of one channel each normalise separately: [1, 3] and [10, 30].
  const Vec y2 = GroupNorm({1, 3, 10, 30}, {1, 1}, {0, 0}, 1, 2, 2, 2, 0.0f);
  EXPECT_EQ(y2, (Vec{-1, 1, -1, 1}));
}

// Group norm through the layernorm reference: the block of each (sample, group) is one
// "row" of (c/groups)*hw elements, normalised with gamma = 1 and beta = 0, then the channel's
// affine transform applied.
Vec GroupNormViaLayerNorm(const Vec& x, const Vec& gamma, const Vec& beta, int64_t n, int64_t c,
                          int64_t hw, int64_t groups, float eps) {
  const int64_t block = c / groups * hw;
  const Vec ones(static_cast<size_t>(block), 1.0f), zeros(static_cast<size_t>(block), 0.0f);
  Vec t(x.size());
  cannbot_ref::layernorm(x.data(), ones.data(), zeros.data(), t.data(), n * groups, block, eps);
  Vec y(x.size());
  for (size_t e = 0; e < y.size(); ++e) {
    const size_t ch = (e / hw) % c;
    y[e] = t[e] * gamma[ch] + beta[ch];
  }
  return y;
}

TEST(ReferenceGroupNormTest, MatchesLayerNormOverEachBlock) {
  struct Case { int64_t n, c, hw, groups; float eps; };
  for (const Case& k : {Case{2, 6, 37, 3, 0.1f}, Case{2, 8, 49, 8, 1e-5f},
                        Case{3, 5, 19, 1, 1e-5f}, Case{2, 12, 64, 4, 1e-5f}}) {
    const Vec x = Draw(k.n * k.c * k.hw, 0.5, 1.5, 27, {0.0f, -0.0f, kSubnormal, 30.0f}, 0.02);
    const Vec gamma = Uniform(k.c, 0.5, 1.5, 28), beta = Uniform(k.c, -0.5, 0.5, 29);
    const Vec y = GroupNorm(x, gamma, beta, k.n, k.c, k.hw, k.groups, k.eps);
    const Vec want = GroupNormViaLayerNorm(x, gamma, beta, k.n, k.c, k.hw, k.groups, k.eps);
    for (size_t i = 0; i < y.size(); ++i) {
      EXPECT_NEAR(y[i], want[i], 1e-6 * (1 + std::fabs(want[i])))
          << "c " << k.c << " groups " << k.groups << " element " << i;
    }
  }
}

TEST(ReferenceGroupNormTest, IsShiftInvariantAtLargeOffset) {
  // Floats near 1e6 minus 1e6 are exact, so both inputs are the same data shifted; a
  // reference that formed E[x^2] - E[x]^2 would lose the variance here.
  const int64_t n = 2, c = 8, hw = 64, groups = 4;
  const Vec x = Draw(n * c * hw, 1e6, 1, 30);
  Vec shifted = x;
  for (float& v : shifted) v -= 1e6f;
  const Vec gamma = Uniform(c, 0.5, 1.5, 31), beta = Uniform(c, -0.5, 0.5, 32);
  const Vec y = GroupNorm(x, gamma, beta, n, c, hw, groups, 1e-5f);
  const Vec y0 = GroupNorm(shifted, gamma, beta, n, c, hw, groups, 1e-5f);
  for (size_t i = 0; i < y.size(); ++i) EXPECT_NEAR(y[i], y0[i], 2e-6) << i;
}

}  // namespace
}  // namespace cannbot_ref_binary_reduction_norm_test
