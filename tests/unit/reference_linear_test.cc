// Reference matmul against hand-computed products and a differently ordered loop, and its
// tolerance against a plain fp32 kernel and a kernel that drops one term.
#include <gtest/gtest.h>
#include "builtin_ops.h"

#include <cmath>
#include <random>
#include <vector>

#include "cannbot/ops/reference/matmul.h"
#include "cannbot/ops/registry.h"
#include "unit_support.h"

namespace cannbot::ops {
namespace {

std::vector<float> Uniform(int64_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = static_cast<float>(d(rng));
  return v;
}

std::vector<float> Matmul(const std::vector<float>& a, const std::vector<float>& b, int64_t m,
                          int64_t n, int64_t k) {
  std::vector<float> c(static_cast<size_t>(m * n), -123.0f);
  cannbot_ref::matmul(a.data(), b.data(), c.data(), m, n, k);
  return c;
}

TEST(ReferenceMatmulTest, HandComputedSquare) {
  // [1 2; 3 4] * [5 6; 7 8] = [19 22; 43 50]
  EXPECT_EQ(Matmul({1, 2, 3, 4}, {5, 6, 7, 8}, 2, 2, 2), (std::vector<float>{19, 22, 43, 50}));
}

TEST(ReferenceMatmulTest, HandComputedRectangular) {
  // A is 2x3, B is 3x2: the layouts of A ([m,k]) and B ([k,n]) both matter here.
  const std::vector<float> a = {1, 2, 3, 4, 5, 6};
  const std::vector<float> b = {7, 8, 9, 10, 11, 12};
  EXPECT_EQ(Matmul(a, b, 2, 2, 3), (std::vector<float>{58, 64, 139, 154}));
  // A is 1x2, B is 2x3.
  EXPECT_EQ(Matmul({2, -1}, {1, 2, 3, 4, 5, 6}, 1, 3, 2), (std::vector<float>{-2, -1, 0}));
}

TEST(ReferenceMatmulTest, OverwritesTheOutput) {
  std::vector<float> c = {1e6f};
  const std::vector<float> a = {3}, b = {4};
  cannbot_ref::matmul(a.data(), b.data(), c.data(), 1, 1, 1);
  EXPECT_EQ(c[0], 12.0f);
}

TEST(ReferenceMatmulTest, MatchesJKILoop) {
  const int64_t m = 33, n = 17, k = 37;
  const std::vector<float> a = Uniform(m * k, 1), b = Uniform(k * n, 2);
  // Column-at-a-time, k outermost within it: a different traversal, in long double.
  std::vector<long double> want(static_cast<size_t>(m * n), 0.0L);
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t p = 0; p < k; ++p) {
      for (int64_t i = 0; i < m; ++i) {
        want[i * n + j] += static_cast<long double>(a[i * k + p]) * b[p * n + j];
      }
    }
  }
  const std::vector<float> c = Matmul(a, b, m, n, k);
  for (size_t i = 0; i < c.size(); ++i) {
    // A double-accumulated sum of 37 products is exact to far below one float ulp, so the
    // reference must be within one ulp of the long double result.
    const float rounded = static_cast<float>(want[i]);
    const double ulp = std::nextafter(std::fabs(rounded), INFINITY) - std::fabs(rounded);
    EXPECT_NEAR(c[i], static_cast<double>(want[i]), ulp) << "element " << i;
  }
}

using cannbot::test::Failures;

// Sequential fp32 accumulation: the least accurate order a real kernel is likely to use.
std::vector<float> MatmulFp32(const std::vector<float>& a, const std::vector<float>& b, int64_t m,
                              int64_t n, int64_t k, int64_t terms) {
  std::vector<float> c(static_cast<size_t>(m * n));
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (int64_t p = 0; p < terms; ++p) acc += a[i * k + p] * b[p * n + j];
      c[i * n + j] = acc;
    }
  }
  return c;
}

TEST(ReferenceMatmulTest, ToleranceAcceptsFp32AndRejectsAMissingTerm) {
  const OpSpec* op = cannbot_test::BuiltInOps().Find("matmul");
  ASSERT_NE(op, nullptr);
  for (const Shape& s : op->shapes) {
    if (s.perf || s.label == "tiny") continue;  // perf is too slow here; tiny has one term
    const int64_t m = s.Size("m"), n = s.Size("n"), k = s.Size("k");
    const std::vector<float> a = Uniform(m * k, 3), b = Uniform(k * n, 4);
    const std::vector<float> want = Matmul(a, b, m, n, k);
    const Tolerance tol = op->tolerance(s);
    EXPECT_EQ(Failures(MatmulFp32(a, b, m, n, k, k), want, tol), 0) << s.label;
    EXPECT_GT(Failures(MatmulFp32(a, b, m, n, k, k - 1), want, tol), m * n / 2) << s.label;
  }
}

}  // namespace
}  // namespace cannbot::ops
