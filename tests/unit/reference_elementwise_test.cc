// Reference elementwise kernels against hand-picked values and identities they must obey.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "cannbot/ops/reference/add.h"
#include "cannbot/ops/reference/gelu.h"
#include "cannbot/ops/reference/prelu.h"
#include "cannbot/ops/reference/relu.h"
#include "cannbot/ops/reference/swish.h"

namespace {

std::vector<float> Apply(void (*fn)(const float*, float*, int64_t), std::vector<float> x) {
  std::vector<float> y(x.size(), -123.0f);
  fn(x.data(), y.data(), static_cast<int64_t>(x.size()));
  return y;
}

// A grid of moderate values and their negations, for odd-symmetry identities.
std::vector<float> Grid() {
  std::vector<float> x;
  for (int i = -240; i <= 240; ++i) x.push_back(static_cast<float>(i) / 40.0f);
  return x;
}

TEST(ReferenceAddTest, AddsElementwise) {
  const std::vector<float> a = {1.5f, -2.0f, 1e30f};
  const std::vector<float> b = {2.25f, 2.0f, -1e30f};
  std::vector<float> y(3);
  cannbot_ref::add(a.data(), b.data(), y.data(), 3);
  EXPECT_EQ(y, (std::vector<float>{3.75f, 0.0f, 0.0f}));
}

TEST(ReferenceReluTest, HandPickedValues) {
  const std::vector<float> y =
      Apply(cannbot_ref::relu, {-3.0f, -0.0f, 0.0f, 1e-30f, -1e-30f, 2.5f, 3e38f, -3e38f});
  const std::vector<float> want = {0.0f, 0.0f, 0.0f, 1e-30f, 0.0f, 2.5f, 3e38f, 0.0f};
  EXPECT_EQ(y, want);
}

TEST(ReferenceGeluTest, KnownValues) {
  const std::vector<float> y = Apply(cannbot_ref::gelu, {1.0f, -1.0f, 2.0f, 0.0f, -10.0f});
  EXPECT_NEAR(y[0], 0.8413447460685429, 1e-7);
  EXPECT_NEAR(y[1], -0.15865525393145707, 1e-7);
  EXPECT_NEAR(y[2], 1.9544997361036416, 2e-7);
  EXPECT_EQ(y[3], 0.0f);
  // -10 * Phi(-10): tiny but not zero; 1 + erf(-7.07) in double would cancel to exactly 0.
  EXPECT_NEAR(y[4], -7.619853024160526e-23, 1e-29);
}

TEST(ReferenceGeluTest, SaturatesWithoutOverflow) {
  const std::vector<float> y = Apply(cannbot_ref::gelu, {3e38f, -3e38f, 1e4f, -1e4f, 88.0f});
  EXPECT_EQ(y[0], 3e38f);
  EXPECT_EQ(y[1], 0.0f);
  EXPECT_EQ(y[2], 1e4f);
  EXPECT_EQ(y[3], 0.0f);
  EXPECT_EQ(y[4], 88.0f);
}

TEST(ReferenceGeluTest, OddPartIsIdentity) {
  // x * Phi(x) - (-x) * Phi(-x) = x * (Phi(x) + Phi(-x)) = x, independent of how erf is done.
  const std::vector<float> x = Grid();
  std::vector<float> neg;
  for (float v : x) neg.push_back(-v);
  const std::vector<float> y = Apply(cannbot_ref::gelu, x);
  const std::vector<float> yn = Apply(cannbot_ref::gelu, neg);
  for (size_t i = 0; i < x.size(); ++i) {
    EXPECT_NEAR(static_cast<double>(y[i]) - yn[i], x[i], 1e-6 * (1.0 + std::fabs(x[i])))
        << "x=" << x[i];
  }
}

TEST(ReferenceGeluTest, IsNotTheTanhApproximation) {
  // At x = 1.5 the tanh form is about 2e-4 away from the erf form.
  const float x = 1.5f;
  const double tanh_form =
      0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
  const std::vector<float> y = Apply(cannbot_ref::gelu, {x});
  EXPECT_NEAR(y[0], 1.399789198096713, 2e-7);
  EXPECT_GT(std::fabs(y[0] - tanh_form), 5e-5);
}

TEST(ReferenceSwishTest, KnownValues) {
  const std::vector<float> y = Apply(cannbot_ref::swish, {1.0f, -1.0f, 0.0f});
  EXPECT_NEAR(y[0], 0.7310585786300049, 1e-7);
  EXPECT_NEAR(y[1], -0.2689414213699951, 1e-7);
  EXPECT_EQ(y[2], 0.0f);
}

TEST(ReferenceSwishTest, LargeMagnitudesStayFinite) {
  const std::vector<float> y = Apply(cannbot_ref::swish, {1e4f, -1e4f, 3e38f, -3e38f, -100.0f});
  EXPECT_EQ(y[0], 1e4f);
  EXPECT_TRUE(std::isfinite(y[1]));
  EXPECT_LE(std::fabs(y[1]), 1e-30f);
  EXPECT_EQ(y[2], 3e38f);
  EXPECT_TRUE(std::isfinite(y[3]));
  EXPECT_LE(std::fabs(y[3]), 1e-30f);
  EXPECT_NEAR(y[4], -3.7200759760208363e-42, 1e-44);  // a float denormal, not flushed
}

TEST(ReferenceSwishTest, OddPartIsIdentity) {
  // x * s(x) - (-x) * s(-x) = x * (s(x) + s(-x)) = x for the logistic s.
  const std::vector<float> x = Grid();
  std::vector<float> neg;
  for (float v : x) neg.push_back(-v);
  const std::vector<float> y = Apply(cannbot_ref::swish, x);
  const std::vector<float> yn = Apply(cannbot_ref::swish, neg);
  for (size_t i = 0; i < x.size(); ++i) {
    EXPECT_NEAR(static_cast<double>(y[i]) - yn[i], x[i], 1e-6 * (1.0 + std::fabs(x[i])))
        << "x=" << x[i];
  }
}

TEST(ReferencePreluTest, UsesTheSlopeOfEachElementsChannel) {
  // [n=2, c=2, hw=3]; channel 0 has slope 0.1, channel 1 has slope 0.25.
  const std::vector<float> x = {1.0f,  -2.0f, -0.0f, 3.0f,  -4.0f, 0.5f,
                                -1.0f, 2.0f,  -3.0f, -8.0f, 4.0f,  -0.5f};
  const std::vector<float> alpha = {0.1f, 0.25f};
  std::vector<float> y(x.size(), -123.0f);
  cannbot_ref::prelu(x.data(), alpha.data(), y.data(), 2, 2, 3);
  const std::vector<float> want = {1.0f,  -0.2f, 0.0f,  3.0f,  -1.0f, 0.5f,
                                   -0.1f, 2.0f,  -0.3f, -2.0f, 4.0f,  -0.125f};
  for (size_t i = 0; i < want.size(); ++i) EXPECT_FLOAT_EQ(y[i], want[i]) << "element " << i;
}

TEST(ReferencePreluTest, HugeNegativesStayFinite) {
  const std::vector<float> x = {-3e38f, 3e38f};
  const std::vector<float> alpha = {0.5f};
  std::vector<float> y(2);
  cannbot_ref::prelu(x.data(), alpha.data(), y.data(), 1, 1, 2);
  EXPECT_EQ(y[0], -1.5e38f);
  EXPECT_EQ(y[1], 3e38f);
}

}  // namespace
