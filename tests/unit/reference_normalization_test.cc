// Reference softmax, layernorm and layernorm_gelu against independent formulations, and the
// layernorm tolerance against a naive and a correct fp32 kernel on the "offset" shape.
#include <gtest/gtest.h>
#include "builtin_ops.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "cannbot/ops/reference/layernorm.h"
#include "cannbot/ops/reference/layernorm_gelu.h"
#include "cannbot/ops/reference/softmax.h"
#include "cannbot/ops/registry.h"
#include "unit_support.h"

namespace cannbot::ops {
namespace {

using cannbot::test::Draw;

std::vector<float> Softmax(const std::vector<float>& x, int64_t rows, int64_t cols) {
  std::vector<float> y(x.size(), -1.0f);
  cannbot_ref::softmax(x.data(), y.data(), rows, cols);
  return y;
}

TEST(ReferenceSoftmaxTest, MatchesUnshiftedFormulaOnModerateInputs) {
  // With |x| < 30, exp(x) / sum exp(x) needs no max shift; long double is the yardstick.
  const int64_t rows = 7, cols = 33;
  Distribution d;
  d.a = -30.0;
  d.b = 30.0;
  const std::vector<float> x = Draw(d, rows * cols, 1);
  const std::vector<float> y = Softmax(x, rows, cols);
  for (int64_t r = 0; r < rows; ++r) {
    long double sum = 0;
    for (int64_t j = 0; j < cols; ++j) sum += std::exp(static_cast<long double>(x[r * cols + j]));
    for (int64_t j = 0; j < cols; ++j) {
      const long double want = std::exp(static_cast<long double>(x[r * cols + j])) / sum;
      EXPECT_NEAR(y[r * cols + j], static_cast<double>(want),
                  1e-7 * static_cast<double>(want) + 1e-30)
          << "row " << r << " col " << j;
    }
  }
}

TEST(ReferenceSoftmaxTest, RowsSumToOneWithEdgeValues) {
  const OpSpec* op = cannbot_test::BuiltInOps().Find("softmax");
  ASSERT_NE(op, nullptr);
  const int64_t rows = 64, cols = 257;
  const std::vector<float> x = Draw(op->inputs.at("x"), rows * cols, 2);
  const std::vector<float> y = Softmax(x, rows, cols);
  for (int64_t r = 0; r < rows; ++r) {
    double sum = 0;
    for (int64_t j = 0; j < cols; ++j) {
      const float v = y[r * cols + j];
      ASSERT_TRUE(std::isfinite(v) && v >= 0.0f && v <= 1.0f) << "row " << r << ": " << v;
      sum += v;
    }
    EXPECT_NEAR(sum, 1.0, 1e-6) << "row " << r;
  }
}

TEST(ReferenceSoftmaxTest, HugeLogitsDoNotOverflow) {
  const std::vector<float> y = Softmax({1000.0f, 999.0f, -1000.0f, 7.0f}, 2, 2);
  EXPECT_NEAR(y[0], 0.7310585786300049, 1e-7);  // 1 / (1 + e^-1)
  EXPECT_NEAR(y[1], 0.2689414213699951, 1e-7);
  EXPECT_EQ(y[2], 0.0f);  // e^-1007 underflows
  EXPECT_EQ(y[3], 1.0f);
}

TEST(ReferenceSoftmaxTest, SingleColumnIsOne) {
  EXPECT_EQ(Softmax({-5.0f, 0.0f, 1e3f}, 3, 1), (std::vector<float>{1.0f, 1.0f, 1.0f}));
}

// Welford's streaming mean / variance in long double: a different algorithm from the
// reference's two passes in double.
std::vector<float> LayerNormWelford(const std::vector<float>& x, const std::vector<float>& g,
                                    const std::vector<float>& b, int64_t rows, int64_t cols,
                                    float eps) {
  std::vector<float> y(x.size());
  for (int64_t r = 0; r < rows; ++r) {
    long double mean = 0, m2 = 0;
    for (int64_t j = 0; j < cols; ++j) {
      const long double v = x[r * cols + j];
      const long double delta = v - mean;
      mean += delta / static_cast<long double>(j + 1);
      m2 += delta * (v - mean);
    }
    const long double inv = 1.0L / std::sqrt(m2 / static_cast<long double>(cols) + eps);
    for (int64_t j = 0; j < cols; ++j) {
      y[r * cols + j] = static_cast<float>((x[r * cols + j] - mean) * inv * g[j] + b[j]);
    }
  }
  return y;
}

struct LnCase {
  std::vector<float> x, gamma, beta;
  int64_t rows, cols;
  float eps;
};

LnCase RandomLnCase(int64_t rows, int64_t cols, float eps, double mean, uint64_t seed) {
  Distribution x, g, b;
  x.kind = Distribution::Kind::kNormal;
  x.a = mean;
  x.b = 1.0;
  g.a = 0.5;
  g.b = 1.5;
  b.a = -0.5;
  b.b = 0.5;
  return {Draw(x, rows * cols, seed),
          Draw(g, cols, seed + 1),
          Draw(b, cols, seed + 2),
          rows,
          cols,
          eps};
}

std::vector<float> LayerNorm(const LnCase& c) {
  std::vector<float> y(c.x.size(), -123.0f);
  cannbot_ref::layernorm(c.x.data(), c.gamma.data(), c.beta.data(), y.data(), c.rows, c.cols,
                         c.eps);
  return y;
}

TEST(ReferenceLayerNormTest, MatchesWelford) {
  for (float eps : {1e-5f, 0.1f}) {
    const LnCase c = RandomLnCase(7, 33, eps, 0.0, 10);
    const std::vector<float> y = LayerNorm(c);
    const std::vector<float> want = LayerNormWelford(c.x, c.gamma, c.beta, 7, 33, eps);
    for (size_t i = 0; i < y.size(); ++i) {
      EXPECT_NEAR(y[i], want[i], 1e-6 * (1.0 + std::fabs(want[i]))) << "eps " << eps << " " << i;
    }
  }
}

TEST(ReferenceLayerNormTest, NormalizedRowsHaveZeroMeanAndShrunkVariance) {
  // gamma = 1, beta = 0: each row has mean 0 and biased variance var / (var + eps); the large
  // eps makes a dropped or misplaced eps, or an unbiased variance, visible.
  LnCase c = RandomLnCase(5, 40, 0.5f, 3.0, 20);
  std::fill(c.gamma.begin(), c.gamma.end(), 1.0f);
  std::fill(c.beta.begin(), c.beta.end(), 0.0f);
  const std::vector<float> y = LayerNorm(c);
  for (int64_t r = 0; r < c.rows; ++r) {
    double mean = 0, var_x = 0, sq = 0;
    for (int64_t j = 0; j < c.cols; ++j) mean += c.x[r * c.cols + j];
    mean /= static_cast<double>(c.cols);
    for (int64_t j = 0; j < c.cols; ++j) {
      var_x += (c.x[r * c.cols + j] - mean) * (c.x[r * c.cols + j] - mean);
      sq += static_cast<double>(y[r * c.cols + j]) * y[r * c.cols + j];
    }
    var_x /= static_cast<double>(c.cols);
    double y_mean = 0;
    for (int64_t j = 0; j < c.cols; ++j) y_mean += y[r * c.cols + j];
    EXPECT_NEAR(y_mean / static_cast<double>(c.cols), 0.0, 1e-6) << "row " << r;
    EXPECT_NEAR(sq / static_cast<double>(c.cols), var_x / (var_x + 0.5), 1e-6) << "row " << r;
  }
}

TEST(ReferenceLayerNormTest, SingleColumnGivesBeta) {
  const std::vector<float> x = {42.0f, -7.0f}, g = {3.0f}, b = {0.25f};
  std::vector<float> y(2);
  cannbot_ref::layernorm(x.data(), g.data(), b.data(), y.data(), 2, 1, 1e-5f);
  EXPECT_EQ(y, (std::vector<float>{0.25f, 0.25f}));
}

TEST(ReferenceLayerNormTest, IsShiftInvariantAtLargeOffset) {
  // Floats near 1e6 minus 1e6 are exact, so both rows are the same data shifted. A reference
  // that formed E[x^2] - E[x]^2, even in double, would lose ~1e-4 here.
  const LnCase c = RandomLnCase(4, 256, 1e-5f, 1e6, 30);
  LnCase shifted = c;
  for (float& v : shifted.x) v -= 1e6f;
  const std::vector<float> y = LayerNorm(c);
  const std::vector<float> y0 = LayerNorm(shifted);
  for (size_t i = 0; i < y.size(); ++i) EXPECT_NEAR(y[i], y0[i], 2e-6) << i;
}

TEST(ReferenceLayerNormGeluTest, EqualsLayerNormThenGelu) {
  for (float eps : {1e-5f, 0.1f}) {
    const LnCase c = RandomLnCase(9, 37, eps, 2.0, 40);
    const std::vector<float> t = LayerNorm(c);
    std::vector<float> y(c.x.size());
    cannbot_ref::layernorm_gelu(c.x.data(), c.gamma.data(), c.beta.data(), y.data(), c.rows, c.cols,
                                eps);
    for (size_t i = 0; i < y.size(); ++i) {
      const long double v = t[i];
      const long double want = 0.5L * v * (1.0L + std::erf(v / std::sqrt(2.0L)));
      EXPECT_NEAR(y[i], static_cast<double>(want),
                  1e-6 * (1.0 + std::fabs(static_cast<double>(want))))
          << "eps " << eps << " element " << i;
    }
  }
}

// fp32 layernorms a real kernel might use; the tolerance must accept the first two and
// reject the third on the offset shape (rows with mean 100, stddev 1).
enum class Fp32LayerNorm { kTwoPass, kWelford, kNaiveVariance };

std::vector<float> LayerNormFp32(Fp32LayerNorm kind, const LnCase& c) {
  std::vector<float> y(c.x.size());
  for (int64_t r = 0; r < c.rows; ++r) {
    const float* x = c.x.data() + r * c.cols;
    const float n = static_cast<float>(c.cols);
    float mean = 0.0f, var = 0.0f;
    if (kind == Fp32LayerNorm::kTwoPass) {
      for (int64_t j = 0; j < c.cols; ++j) mean += x[j];
      mean /= n;
      for (int64_t j = 0; j < c.cols; ++j) var += (x[j] - mean) * (x[j] - mean);
      var /= n;
    } else if (kind == Fp32LayerNorm::kWelford) {
      float m2 = 0.0f;
      for (int64_t j = 0; j < c.cols; ++j) {
        const float delta = x[j] - mean;
        mean += delta / static_cast<float>(j + 1);
        m2 += delta * (x[j] - mean);
      }
      var = m2 / n;
    } else {
      // Sums in double so that only the final E[x^2] - E[x]^2 in fp32 is at fault.
      double sum = 0, sum_sq = 0;
      for (int64_t j = 0; j < c.cols; ++j) {
        sum += x[j];
        sum_sq += static_cast<double>(x[j]) * x[j];
      }
      mean = static_cast<float>(sum / c.cols);
      var = static_cast<float>(sum_sq / c.cols) - mean * mean;
    }
    const float inv = 1.0f / std::sqrt(std::max(var, 0.0f) + c.eps);
    for (int64_t j = 0; j < c.cols; ++j) {
      y[r * c.cols + j] = (x[j] - mean) * inv * c.gamma[j] + c.beta[j];
    }
  }
  return y;
}

using cannbot::test::Failures;

TEST(ReferenceLayerNormTest, OffsetToleranceRejectsNaiveVarianceOnly) {
  const OpSpec* op = cannbot_test::BuiltInOps().Find("layernorm");
  ASSERT_NE(op, nullptr);
  const Shape* offset = nullptr;
  for (const Shape& s : op->shapes) {
    if (s.label == "offset") offset = &s;
  }
  ASSERT_NE(offset, nullptr);
  const Tolerance tol = op->tolerance(*offset);
  const int64_t rows = offset->Size("rows"), cols = offset->Size("cols");
  for (uint64_t seed : {50u, 60u, 70u}) {
    LnCase c{Draw(op->InputDistribution("offset", "x"), rows * cols, seed),
             Draw(op->InputDistribution("offset", "gamma"), cols, seed + 1),
             Draw(op->InputDistribution("offset", "beta"), cols, seed + 2),
             rows,
             cols,
             offset->Scalar("eps")};
    const std::vector<float> want = LayerNorm(c);
    EXPECT_EQ(Failures(LayerNormFp32(Fp32LayerNorm::kTwoPass, c), want, tol), 0) << seed;
    EXPECT_EQ(Failures(LayerNormFp32(Fp32LayerNorm::kWelford, c), want, tol), 0) << seed;
    EXPECT_GT(Failures(LayerNormFp32(Fp32LayerNorm::kNaiveVariance, c), want, tol), 0) << seed;
    // On zero-mean rows the naive formula is harmless and the ordinary tolerance accepts it.
    for (float& v : c.x) v -= 100.0f;
    const std::vector<float> centred = LayerNorm(c);
    Shape medium_shape = *offset;
    medium_shape.label = "medium";
    const Tolerance medium = op->tolerance(medium_shape);
    EXPECT_EQ(Failures(LayerNormFp32(Fp32LayerNorm::kNaiveVariance, c), centred, medium), 0);
  }
}

}  // namespace
}  // namespace cannbot::ops
