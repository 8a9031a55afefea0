// Reference activations (leaky_relu, gelu_tanh, sigmoid, tanh, hardswish, hardsigmoid, mish,
// softplus, elu) and elementwise math (exp, log, sqrt, rsqrt, reciprocal, abs, pow_scalar,
// clamp) against hand-picked values, independent formulations and their edge values; and
// each spec's `elementwise` expression, evaluated with std:: stand-ins for the cb_ functions,
// against the reference within the spec's fp32 tolerance.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "cannbot/ops/reference/abs_op.h"
#include "cannbot/ops/reference/clamp.h"
#include "cannbot/ops/reference/elu.h"
#include "cannbot/ops/reference/exp_op.h"
#include "cannbot/ops/reference/gelu_tanh.h"
#include "cannbot/ops/reference/hardsigmoid.h"
#include "cannbot/ops/reference/hardswish.h"
#include "cannbot/ops/reference/leaky_relu.h"
#include "cannbot/ops/reference/log_op.h"
#include "cannbot/ops/reference/mish.h"
#include "cannbot/ops/reference/pow_scalar.h"
#include "cannbot/ops/reference/reciprocal.h"
#include "cannbot/ops/reference/rsqrt.h"
#include "cannbot/ops/reference/sigmoid.h"
#include "cannbot/ops/reference/softplus.h"
#include "cannbot/ops/reference/sqrt_op.h"
#include "cannbot/ops/reference/tanh_op.h"

#ifndef CANNBOT_SOURCE_DIR
#define CANNBOT_SOURCE_DIR "."  // a standalone build from the repository root
#endif

namespace cannbot_activation_math_test {
namespace {

// ---------------------------------------------------------------------------------------
// The cb_ functions of the `elementwise` expressions, as thin wrappers over std:: in float.
float cb_exp(float x) { return std::exp(x); }
float cb_expm1(float x) { return std::expm1(x); }
float cb_log(float x) { return std::log(x); }
float cb_log1p(float x) { return std::log1p(x); }
float cb_tanh(float x) { return std::tanh(x); }
float cb_sqrt(float x) { return std::sqrt(x); }
float cb_rsqrt(float x) { return 1.0f / std::sqrt(x); }
float cb_abs(float x) { return std::fabs(x); }
float cb_min(float a, float b) { return std::fmin(a, b); }
float cb_max(float a, float b) { return std::fmax(a, b); }
float cb_pow(float x, float p) { return std::pow(x, p); }

// The expressions, token for token as each spec writes them (the test compares the text).
#define EXPR_LEAKY_RELU x > 0.0f ? x : alpha * x
#define EXPR_GELU_TANH x / (1.0f + cb_exp(-1.5957691216057308f * (x + 0.044715f * x * x * x)))
#define EXPR_SIGMOID 1.0f / (1.0f + cb_exp(-x))
#define EXPR_TANH cb_tanh(x)
#define EXPR_HARDSWISH x * (cb_min(cb_max(x + 3.0f, 0.0f), 6.0f) / 6.0f)
#define EXPR_HARDSIGMOID cb_min(cb_max(x + 3.0f, 0.0f), 6.0f) / 6.0f
#define EXPR_MISH x * cb_tanh(cb_max(x, 0.0f) + cb_log1p(cb_exp(-cb_abs(x))))
#define EXPR_SOFTPLUS cb_max(x, 0.0f) + cb_log1p(cb_exp(-cb_abs(x)))
#define EXPR_ELU x > 0.0f ? x : alpha * cb_expm1(x)
#define EXPR_EXP cb_exp(x)
#define EXPR_LOG cb_log(x)
#define EXPR_SQRT cb_sqrt(x)
#define EXPR_RSQRT cb_rsqrt(x)
#define EXPR_RECIPROCAL 1.0f / x
#define EXPR_ABS cb_abs(x)
#define EXPR_POW_SCALAR cb_pow(x, exponent)
#define EXPR_CLAMP cb_min(cb_max(x, lo), hi)
#define CANNBOT_TEXT(...) #__VA_ARGS__
#define EXPR_TEXT(e) CANNBOT_TEXT(e)

constexpr float kMax = FLT_MAX;
constexpr float kMinNormal = FLT_MIN;            // 1.18e-38
const float kSubnormal = 3 * std::ldexp(1.0f, -149);  // the specs' "subnormal" edge, 4.2e-45
constexpr float kInf = std::numeric_limits<float>::infinity();

using Unary = void (*)(const float*, float*, int64_t);

std::vector<float> Apply(Unary fn, const std::vector<float>& x) {
  std::vector<float> y(x.size(), -123.0f);
  fn(x.data(), y.data(), static_cast<int64_t>(x.size()));
  return y;
}

float One(Unary fn, float x) {
  float y = -123.0f;
  fn(&x, &y, 1);
  return y;
}

uint32_t Bits(float v) {
  uint32_t u;
  std::memcpy(&u, &v, 4);
  return u;
}

// Moderate values on a fine grid, every power of two (subnormals to the max) of both signs,
// and the values the specs list as edges (those within float).
std::vector<float> Grid() {
  std::vector<float> x;
  for (int i = -20 * 64; i <= 20 * 64; ++i) x.push_back(static_cast<float>(i) / 64.0f);
  for (int e = -149; e <= 127; ++e) {
    for (float m : {1.0f, 1.5f, 1.9f}) {
      const float v = std::ldexp(m, e);
      if (std::isfinite(v)) {
        x.push_back(v);
        x.push_back(-v);
      }
    }
  }
  for (float v : {0.0f, -0.0f, 1e-30f, -1e-30f, kSubnormal, -kSubnormal, kMinNormal, 1e-4f, -1e-4f,
                  2.5f, -2.5f, 11.1f, 88.0f, 88.8f, -88.0f, 89.0f, -89.0f, 45.0f, -45.0f, -87.5f,
                  100.0f, -100.0f, -104.0f, -110.0f, 1e4f, -1e4f, kMax / 16, -kMax / 16, kMax,
                  -kMax}) {
    x.push_back(v);
  }
  return x;
}

std::vector<float> Positive(const std::vector<float>& x) {
  std::vector<float> out;
  for (float v : x) {
    if (v > 0) out.push_back(v);
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// The spec files: the `elementwise` line and the [tolerance] table's atol and rtol.
std::string SpecText(const std::string& op) {
  std::ifstream in(std::string(CANNBOT_SOURCE_DIR) + "/ops/" + op + ".toml");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string SpecElementwise(const std::string& op) {
  std::istringstream lines(SpecText(op));
  std::string line;
  const std::string key = "elementwise = \"";
  while (std::getline(lines, line)) {
    if (line.rfind(key, 0) == 0 && line.size() > key.size() && line.back() == '"') {
      return line.substr(key.size(), line.size() - key.size() - 1);
    }
  }
  return "";
}

struct FloatTolerance {
  double atol = -1, rtol = -1;
};

FloatTolerance SpecTolerance(const std::string& op) {
  std::istringstream lines(SpecText(op));
  std::string line;
  FloatTolerance t;
  bool in_table = false;
  while (std::getline(lines, line)) {
    if (!line.empty() && line[0] == '[') {
      in_table = line == "[tolerance]";
      continue;
    }
    if (!in_table) continue;
    if (line.rfind("atol = ", 0) == 0) t.atol = std::stod(line.substr(7));
    if (line.rfind("rtol = ", 0) == 0) t.rtol = std::stod(line.substr(7));
  }
  return t;
}

// The spec's expression (evaluated by `expr`) against the reference (by `ref`) on `xs`,
// within the spec's fp32 tolerance; an infinity must be matched exactly.
void CheckExpression(const std::string& op, const std::string& expr_text,
                     const std::function<float(float)>& ref,
                     const std::function<float(float)>& expr, const std::vector<float>& xs) {
  ASSERT_EQ(SpecElementwise(op), expr_text) << "ops/" << op << ".toml";
  const FloatTolerance t = SpecTolerance(op);
  ASSERT_GE(t.atol, 0) << op;
  ASSERT_GE(t.rtol, 0) << op;
  int failures = 0;
  for (float x : xs) {
    const float want = ref(x);
    const float got = expr(x);
    if (std::isinf(want) || std::isnan(want)) {
      EXPECT_TRUE(std::isnan(want) ? std::isnan(got) : got == want)
          << op << " x=" << x << ": want " << want << ", got " << got;
      continue;
    }
    const double err = std::fabs(static_cast<double>(got) - want);
    const bool ok = std::isfinite(got) && err <= t.atol + t.rtol * std::fabs(want);
    if (!ok && ++failures <= 10) {
      ADD_FAILURE() << op << " x=" << x << ": want " << want << ", got " << got;
    }
  }
  EXPECT_EQ(failures, 0) << op;
}

// ---------------------------------------------------------------------------------------
// leaky_relu

TEST(ReferenceLeakyReluTest, HandPickedValues) {
  const std::vector<float> x = {2.5f, -2.0f, 0.0f, -0.0f, -100.0f, 1e-30f, -kMax, kMax};
  std::vector<float> y(x.size(), -123.0f);
  cannbot_ref::leaky_relu(x.data(), y.data(), static_cast<int64_t>(x.size()), 0.01f);
  const std::vector<float> want = {2.5f, -0.02f, 0.0f, 0.0f, -1.0f, 1e-30f, -kMax * 0.01f, kMax};
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(y[i], want[i]) << "x=" << x[i];
  cannbot_ref::leaky_relu(x.data(), y.data(), 2, 0.2f);
  EXPECT_EQ(y[1], -2.0f * 0.2f);
}

TEST(ReferenceLeakyReluTest, IsReluPlusScaledNegativePartExactly) {
  // max(x, 0) + alpha * min(x, 0): one of the two terms is 0, so the sum is exact too.
  for (float alpha : {0.01f, 0.2f, 1.0f}) {
    for (float x : Grid()) {
      float y;
      cannbot_ref::leaky_relu(&x, &y, 1, alpha);
      EXPECT_EQ(y, std::fmax(x, 0.0f) + alpha * std::fmin(x, 0.0f)) << "x=" << x;
    }
  }
}

TEST(ReferenceLeakyReluTest, ElementwiseExpressionMatches) {
  for (float alpha : {0.01f, 0.2f}) {
    CheckExpression(
        "leaky_relu", EXPR_TEXT(EXPR_LEAKY_RELU),
        [alpha](float x) {
          float y;
          cannbot_ref::leaky_relu(&x, &y, 1, alpha);
          return y;
        },
        [alpha](float x) { return EXPR_LEAKY_RELU; }, Grid());
  }
}

// ---------------------------------------------------------------------------------------
// gelu_tanh

TEST(ReferenceGeluTanhTest, KnownValues) {
  const std::vector<float> y = Apply(cannbot_ref::gelu_tanh, {1.0f, -1.0f, 2.0f, -3.0f, 0.5f, 0.0f});
  EXPECT_FLOAT_EQ(y[0], 0.8411919906082768f);
  EXPECT_FLOAT_EQ(y[1], -0.15880800939172324f);
  EXPECT_FLOAT_EQ(y[2], 1.954597694087775f);
  EXPECT_FLOAT_EQ(y[3], -0.0036373920817729943f);
  EXPECT_FLOAT_EQ(y[4], 0.34571400982514394f);
  EXPECT_EQ(y[5], 0.0f);
}

TEST(ReferenceGeluTanhTest, MatchesTheTanhFormula) {
  // The textbook form in long double (the reference uses the logistic form in double).
  const long double k = std::sqrt(2.0L / 3.14159265358979323846264338327950288L);
  for (int i = -8 * 64; i <= 8 * 64; ++i) {
    const float x = static_cast<float>(i) / 64.0f;
    const long double v = x;
    const long double want = 0.5L * v * (1.0L + std::tanh(k * (v + 0.044715L * v * v * v)));
    EXPECT_NEAR(One(cannbot_ref::gelu_tanh, x), static_cast<double>(want),
                2e-7 * std::fabs(static_cast<double>(want)) + 1e-15)
        << "x=" << x;
  }
}

TEST(ReferenceGeluTanhTest, SaturatesWithoutOverflow) {
  // x^3 overflows float beyond 7e12: the reference must still give x or -0, never NaN.
  const std::vector<float> y =
      Apply(cannbot_ref::gelu_tanh, {kMax, -kMax, 1e13f, -1e13f, 1e4f, -1e4f, 10.0f, -10.0f});
  EXPECT_EQ(y[0], kMax);
  EXPECT_EQ(y[1], 0.0f);
  EXPECT_TRUE(std::signbit(y[1]));
  EXPECT_EQ(y[2], 1e13f);
  EXPECT_EQ(y[3], 0.0f);
  EXPECT_EQ(y[4], 1e4f);
  EXPECT_EQ(y[5], 0.0f);
  EXPECT_EQ(y[6], 10.0f);
  // -10 * sigmoid(-2u) with 2u = 1.5958 * (10 + 44.715): tiny, not zero.
  EXPECT_LT(y[7], 0.0f);
  EXPECT_GT(y[7], -1e-30f);
}

TEST(ReferenceGeluTanhTest, IsNotTheErfForm) {
  // At x = 1.5 the two GELUs differ by about 2e-4.
  const double erf_form = 0.5 * 1.5 * std::erfc(-1.5 / std::sqrt(2.0));
  EXPECT_GT(std::fabs(One(cannbot_ref::gelu_tanh, 1.5f) - erf_form), 1e-4);
}

TEST(ReferenceGeluTanhTest, ElementwiseExpressionMatches) {
  CheckExpression("gelu_tanh", EXPR_TEXT(EXPR_GELU_TANH),
                  [](float x) { return One(cannbot_ref::gelu_tanh, x); },
                  [](float x) { return EXPR_GELU_TANH; }, Grid());
}

// ---------------------------------------------------------------------------------------
// sigmoid

TEST(ReferenceSigmoidTest, KnownValues) {
  const std::vector<float> y = Apply(cannbot_ref::sigmoid, {1.0f, -1.0f, 2.0f, -5.0f, 0.0f, -20.0f});
  EXPECT_FLOAT_EQ(y[0], 0.7310585786300049f);
  EXPECT_FLOAT_EQ(y[1], 0.2689414213699951f);
  EXPECT_FLOAT_EQ(y[2], 0.8807970779778823f);
  EXPECT_FLOAT_EQ(y[3], 0.0066928509242848554f);
  EXPECT_EQ(y[4], 0.5f);
  EXPECT_FLOAT_EQ(y[5], 2.0611536181902037e-09f);  // ~exp(-20): relative precision kept
}

TEST(ReferenceSigmoidTest, SaturatesAtTheExtremes) {
  const std::vector<float> y = Apply(cannbot_ref::sigmoid, {kMax, -kMax, 1e4f, -1e4f, 89.0f, -100.0f});
  EXPECT_EQ(y[0], 1.0f);
  EXPECT_EQ(y[1], 0.0f);
  EXPECT_EQ(y[2], 1.0f);
  EXPECT_EQ(y[3], 0.0f);
  EXPECT_EQ(y[4], 1.0f);
  EXPECT_NEAR(y[5], 3.720075976020836e-44, 2e-45);  // a float subnormal, not flushed
}

TEST(ReferenceSigmoidTest, MatchesTanhFormAndIsSymmetric) {
  // sigmoid(x) = (1 + tanh(x / 2)) / 2 (long double), and sigmoid(x) + sigmoid(-x) = 1.
  for (int i = -16 * 64; i <= 16 * 64; ++i) {
    const float x = static_cast<float>(i) / 64.0f;
    const long double want = 0.5L * (1.0L + std::tanh(static_cast<long double>(x) / 2));
    const float y = One(cannbot_ref::sigmoid, x);
    EXPECT_NEAR(y, static_cast<double>(want), 1.2e-7 * static_cast<double>(want)) << "x=" << x;
    EXPECT_NEAR(static_cast<double>(y) + One(cannbot_ref::sigmoid, -x), 1.0, 1.2e-7) << "x=" << x;
  }
}

TEST(ReferenceSigmoidTest, ElementwiseExpressionMatches) {
  CheckExpression("sigmoid", EXPR_TEXT(EXPR_SIGMOID),
                  [](float x) { return One(cannbot_ref::sigmoid, x); },
                  [](float x) { return EXPR_SIGMOID; }, Grid());
}

// ---------------------------------------------------------------------------------------
// tanh

TEST(ReferenceTanhTest, KnownValues) {
  const std::vector<float> y = Apply(cannbot_ref::tanh_op, {0.5f, 1.0f, -2.0f, 1e-4f, 0.0f, -0.0f});
  EXPECT_FLOAT_EQ(y[0], 0.46211715726000974f);
  EXPECT_FLOAT_EQ(y[1], 0.7615941559557649f);
  EXPECT_FLOAT_EQ(y[2], -0.9640275800758169f);
  EXPECT_FLOAT_EQ(y[3], 9.999999966666668e-05f);
  EXPECT_EQ(Bits(y[4]), Bits(0.0f));
  EXPECT_EQ(Bits(y[5]), Bits(-0.0f));
}

TEST(ReferenceTanhTest, SaturatesAndKeepsTinyValues) {
  const std::vector<float> y =
      Apply(cannbot_ref::tanh_op, {45.0f, -45.0f, kMax, -kMax, 1e-30f, kSubnormal, -kSubnormal});
  EXPECT_EQ(y[0], 1.0f);
  EXPECT_EQ(y[1], -1.0f);
  EXPECT_EQ(y[2], 1.0f);
  EXPECT_EQ(y[3], -1.0f);
  EXPECT_EQ(y[4], 1e-30f);
  EXPECT_EQ(y[5], kSubnormal);
  EXPECT_EQ(y[6], -kSubnormal);
}

TEST(ReferenceTanhTest, MatchesExponentialFormAndIsOdd) {
  // tanh(x) = expm1(2x) / (expm1(2x) + 2) in long double (no cancellation near 0).
  for (int i = -12 * 64; i <= 12 * 64; ++i) {
    const float x = static_cast<float>(i) / 64.0f;
    const long double e = std::expm1(2.0L * x);
    const long double want = e / (e + 2.0L);
    const float y = One(cannbot_ref::tanh_op, x);
    EXPECT_NEAR(y, static_cast<double>(want), 6e-8 * std::fabs(static_cast<double>(want)))
        << "x=" << x;
    EXPECT_EQ(y, -One(cannbot_ref::tanh_op, -x)) << "x=" << x;
  }
}

TEST(ReferenceTanhTest, ElementwiseExpressionMatches) {
  CheckExpression("tanh_op", EXPR_TEXT(EXPR_TANH), [](float x) { return One(cannbot_ref::tanh_op, x); },
                  [](float x) { return EXPR_TANH; }, Grid());
}

// ---------------------------------------------------------------------------------------
// hardsigmoid and hardswish

TEST(ReferenceHardsigmoidTest, KnownValues) {
  const std::vector<float> y =
      Apply(cannbot_ref::hardsigmoid, {0.0f, -3.0f, 3.0f, 1.5f, -1.5f, 10.0f, -10.0f, kMax, -kMax});
  const std::vector<float> want = {0.5f, 0.0f, 1.0f, 0.75f, 0.25f, 1.0f, 0.0f, 1.0f, 0.0f};
  for (size_t i = 0; i < want.size(); ++i) EXPECT_FLOAT_EQ(y[i], want[i]) << "element " << i;
}

TEST(ReferenceHardsigmoidTest, MatchesPiecewiseLinearForm) {
  for (float x : Grid()) {
    const long double v = x;
    const long double want = v <= -3 ? 0.0L : (v >= 3 ? 1.0L : (v + 3) / 6);
    EXPECT_EQ(One(cannbot_ref::hardsigmoid, x), static_cast<float>(want)) << "x=" << x;
  }
}

TEST(ReferenceHardsigmoidTest, ElementwiseExpressionMatches) {
  CheckExpression("hardsigmoid", EXPR_TEXT(EXPR_HARDSIGMOID),
                  [](float x) { return One(cannbot_ref::hardsigmoid, x); },
                  [](float x) { return EXPR_HARDSIGMOID; }, Grid());
}

TEST(ReferenceHardswishTest, KnownValues) {
  const std::vector<float> y =
      Apply(cannbot_ref::hardswish, {0.0f, -3.0f, 3.0f, 1.5f, -1.5f, 10.0f, -10.0f, kMax, -kMax});
  const std::vector<float> want = {0.0f, 0.0f, 3.0f, 1.125f, -0.375f, 10.0f, 0.0f, kMax, 0.0f};
  for (size_t i = 0; i < want.size(); ++i) EXPECT_FLOAT_EQ(y[i], want[i]) << "element " << i;
}

TEST(ReferenceHardswishTest, IsXTimesHardsigmoid) {
  // The chain x * hardsigmoid(x) in long double, from the hardsigmoid reference's piecewise
  // pieces: exact values, so the reference must be the correctly rounded product.
  for (float x : Grid()) {
    const long double v = x;
    const long double hs = v <= -3 ? 0.0L : (v >= 3 ? 1.0L : (v + 3) / 6);
    EXPECT_EQ(One(cannbot_ref::hardswish, x), static_cast<float>(v * hs)) << "x=" << x;
  }
}

TEST(ReferenceHardswishTest, ElementwiseExpressionMatches) {
  CheckExpression("hardswish", EXPR_TEXT(EXPR_HARDSWISH),
                  [](float x) { return One(cannbot_ref::hardswish, x); },
                  [](float x) { return EXPR_HARDSWISH; }, Grid());
}

// ---------------------------------------------------------------------------------------
// softplus and mish

TEST(ReferenceSoftplusTest, KnownValues) {
  const std::vector<float> y =
      Apply(cannbot_ref::softplus, {0.0f, 1.0f, -1.0f, 5.0f, -10.0f, 20.0f, -100.0f});
  EXPECT_FLOAT_EQ(y[0], 0.6931471805599453f);
  EXPECT_FLOAT_EQ(y[1], 1.3132616875182228f);
  EXPECT_FLOAT_EQ(y[2], 0.31326168751822286f);
  EXPECT_FLOAT_EQ(y[3], 5.006715348489118f);
  EXPECT_FLOAT_EQ(y[4], 4.539889921686465e-05f);
  EXPECT_FLOAT_EQ(y[5], 20.000000002061153f);
  EXPECT_NEAR(y[6], 3.720075976020836e-44, 2e-45);  // exp(-100), a float subnormal
}

TEST(ReferenceSoftplusTest, NoOverflowAtTheExtremes) {
  const std::vector<float> y = Apply(cannbot_ref::softplus, {89.0f, 1e4f, kMax, -kMax, -1e4f});
  EXPECT_EQ(y[0], 89.0f);
  EXPECT_EQ(y[1], 1e4f);
  EXPECT_EQ(y[2], kMax);
  EXPECT_EQ(y[3], 0.0f);
  EXPECT_EQ(y[4], 0.0f);
}

TEST(ReferenceSoftplusTest, MatchesLogOnePlusExpAndItsIdentity) {
  // log(1 + e^x) in long double (no overflow for |x| <= 30), and
  // softplus(x) - softplus(-x) = x.
  for (int i = -30 * 32; i <= 30 * 32; ++i) {
    const float x = static_cast<float>(i) / 32.0f;
    const long double want = std::log1p(std::exp(static_cast<long double>(x)));
    const float y = One(cannbot_ref::softplus, x);
    EXPECT_NEAR(y, static_cast<double>(want), 6e-8 * static_cast<double>(want)) << "x=" << x;
    EXPECT_NEAR(static_cast<double>(y) - One(cannbot_ref::softplus, -x), x,
                1.2e-7 * (1 + std::fabs(x)))
        << "x=" << x;
  }
}

TEST(ReferenceSoftplusTest, ElementwiseExpressionMatches) {
  CheckExpression("softplus", EXPR_TEXT(EXPR_SOFTPLUS),
                  [](float x) { return One(cannbot_ref::softplus, x); },
                  [](float x) { return EXPR_SOFTPLUS; }, Grid());
}

TEST(ReferenceMishTest, KnownValues) {
  const std::vector<float> y = Apply(cannbot_ref::mish, {1.0f, -1.0f, 2.0f, -5.0f, -20.0f, 0.0f});
  EXPECT_FLOAT_EQ(y[0], 0.8650983882673103f);
  EXPECT_FLOAT_EQ(y[1], -0.30340146137410895f);
  EXPECT_FLOAT_EQ(y[2], 1.9439589595339946f);
  EXPECT_FLOAT_EQ(y[3], -0.033576237730161704f);
  EXPECT_FLOAT_EQ(y[4], -4.122307240628762e-08f);
  EXPECT_EQ(y[5], 0.0f);
}

TEST(ReferenceMishTest, NoOverflowAtTheExtremes) {
  const std::vector<float> y = Apply(cannbot_ref::mish, {89.0f, 1e4f, kMax, -kMax, -1e4f, -100.0f});
  EXPECT_EQ(y[0], 89.0f);
  EXPECT_EQ(y[1], 1e4f);
  EXPECT_EQ(y[2], kMax);
  EXPECT_EQ(y[3], 0.0f);
  EXPECT_EQ(y[4], 0.0f);
  EXPECT_NEAR(y[5], -100 * 3.720075976020836e-44, 2e-45);  // x * exp(x), subnormal
}

TEST(ReferenceMishTest, MatchesRationalFormAndTheChain) {
  // tanh(log(1 + n)) = n (n + 2) / (n (n + 2) + 2) with n = e^x (long double), and the chain
  // x * tanh(softplus(x)) through the softplus reference.
  for (int i = -20 * 32; i <= 20 * 32; ++i) {
    const float x = static_cast<float>(i) / 32.0f;
    const long double nx = std::exp(static_cast<long double>(x));
    const long double want = x * (nx * (nx + 2)) / (nx * (nx + 2) + 2);
    const float y = One(cannbot_ref::mish, x);
    EXPECT_NEAR(y, static_cast<double>(want), 6e-8 * std::fabs(static_cast<double>(want)))
        << "x=" << x;
    const double chain = x * std::tanh(static_cast<double>(One(cannbot_ref::softplus, x)));
    EXPECT_NEAR(y, chain, 3e-7 * std::fabs(chain)) << "x=" << x;
  }
}

TEST(ReferenceMishTest, ElementwiseExpressionMatches) {
  CheckExpression("mish", EXPR_TEXT(EXPR_MISH), [](float x) { return One(cannbot_ref::mish, x); },
                  [](float x) { return EXPR_MISH; }, Grid());
}

// ---------------------------------------------------------------------------------------
// elu

float Elu(float x, float alpha) {
  float y;
  cannbot_ref::elu(&x, &y, 1, alpha);
  return y;
}

TEST(ReferenceEluTest, KnownValues) {
  EXPECT_EQ(Elu(2.5f, 1.0f), 2.5f);
  EXPECT_FLOAT_EQ(Elu(-1.0f, 1.0f), -0.6321205588285577f);
  EXPECT_FLOAT_EQ(Elu(-1.0f, 0.25f), -0.25f * 0.6321205588285577f);
  EXPECT_FLOAT_EQ(Elu(-1e-4f, 1.0f), -9.999500016666251e-05f);  // expm1, not exp - 1
  EXPECT_EQ(Elu(-20.0f, 1.0f), -0.9999999979388464f);
  EXPECT_EQ(Bits(Elu(-0.0f, 1.0f)), Bits(-0.0f));
  EXPECT_EQ(Elu(0.0f, 1.0f), 0.0f);
  EXPECT_EQ(Elu(-kMax, 0.25f), -0.25f);
  EXPECT_EQ(Elu(kMax, 0.25f), kMax);
  EXPECT_EQ(Elu(89.0f, 1.0f), 89.0f);
}

TEST(ReferenceEluTest, MatchesExpMinusOne) {
  // alpha * (e^x - 1) in long double, whose 64-bit significand absorbs the cancellation
  // down to |x| = 1e-3; below that, the Taylor series (truncation below 1e-17 relative).
  for (float alpha : {1.0f, 0.25f}) {
    for (float x : Grid()) {
      const long double v = x;
      const long double em1 =
          std::fabs(v) < 1e-3L ? v * (1 + v / 2 * (1 + v / 3 * (1 + v / 4))) : std::exp(v) - 1.0L;
      const long double want = v > 0 ? v : alpha * em1;
      EXPECT_NEAR(Elu(x, alpha), static_cast<double>(want),
                  6e-8 * std::fabs(static_cast<double>(want)) + 1e-45)
          << "x=" << x;
    }
  }
}

TEST(ReferenceEluTest, ElementwiseExpressionMatches) {
  for (float alpha : {1.0f, 0.25f}) {
    CheckExpression(
        "elu", EXPR_TEXT(EXPR_ELU), [alpha](float x) { return Elu(x, alpha); },
        [alpha](float x) { return EXPR_ELU; }, Grid());
  }
}

// ---------------------------------------------------------------------------------------
// exp

TEST(ReferenceExpTest, KnownValues) {
  const std::vector<float> y = Apply(cannbot_ref::exp_op, {1.0f, -1.0f, 10.0f, 0.0f, -0.0f});
  EXPECT_FLOAT_EQ(y[0], 2.718281828459045f);
  EXPECT_FLOAT_EQ(y[1], 0.36787944117144233f);
  EXPECT_FLOAT_EQ(y[2], 22026.465794806718f);
  EXPECT_EQ(y[3], 1.0f);
  EXPECT_EQ(y[4], 1.0f);
}

TEST(ReferenceExpTest, OverflowsAndUnderflowsLikeIeeeRounding) {
  const std::vector<float> y =
      Apply(cannbot_ref::exp_op, {88.7f, 88.8f, 1e4f, kMax, -87.5f, -100.0f, -104.0f, -kMax});
  EXPECT_NEAR(y[0], std::exp(static_cast<long double>(88.7f)), 6e-8 * 3.33e38);  // finite
  EXPECT_EQ(y[1], kInf);  // e^88.8 > FLT_MAX
  EXPECT_EQ(y[2], kInf);
  EXPECT_EQ(y[3], kInf);
  EXPECT_GT(y[4], 0.0f);  // subnormal
  EXPECT_LT(y[4], kMinNormal);
  EXPECT_NEAR(y[4], 9.982350930569248e-39, 1.5e-45);
  EXPECT_NEAR(y[5], 3.720075976020836e-44, 1.5e-45);
  EXPECT_EQ(y[6], 0.0f);  // below half the smallest subnormal
  EXPECT_EQ(y[7], 0.0f);
}

TEST(ReferenceExpTest, IsMultiplicative) {
  // e^(a + b) = e^a * e^b with a + b exact in float, checked through long double.
  for (int i = -60 * 8; i <= 60 * 8; ++i) {
    const float a = static_cast<float>(i) / 8.0f, b = 0.375f;
    const long double prod = static_cast<long double>(One(cannbot_ref::exp_op, a)) *
                             static_cast<long double>(One(cannbot_ref::exp_op, b));
    EXPECT_NEAR(One(cannbot_ref::exp_op, a + b), static_cast<double>(prod),
                1.8e-7 * static_cast<double>(prod))
        << "a=" << a;
  }
}

TEST(ReferenceExpTest, ElementwiseExpressionMatches) {
  CheckExpression("exp_op", EXPR_TEXT(EXPR_EXP), [](float x) { return One(cannbot_ref::exp_op, x); },
                  [](float x) { return EXPR_EXP; }, Grid());
}

// ---------------------------------------------------------------------------------------
// log

TEST(ReferenceLogTest, KnownValues) {
  const std::vector<float> y =
      Apply(cannbot_ref::log_op, {2.0f, 10.0f, 0.5f, 1.0009765625f, 1.0f, kSubnormal, kMinNormal});
  EXPECT_FLOAT_EQ(y[0], 0.6931471805599453f);
  EXPECT_FLOAT_EQ(y[1], 2.302585092994046f);
  EXPECT_FLOAT_EQ(y[2], -0.6931471805599453f);
  EXPECT_FLOAT_EQ(y[3], 0.0009760859730554589f);  // next to 1: relative precision kept
  EXPECT_EQ(y[4], 0.0f);
  EXPECT_FLOAT_EQ(y[5], -102.18031761476374f);  // a subnormal input: not -inf
  EXPECT_FLOAT_EQ(y[6], -87.3365447505531f);
}

TEST(ReferenceLogTest, InvertsExpAndSplitsThePowerOfTwo) {
  // log(f * 2^e) = log(f) + e * ln 2 (frexp splits x exactly, subnormals included).
  const long double ln2 = 0.693147180559945309417232121458176568L;
  for (float x : Positive(Grid())) {
    int e = 0;
    const float f = std::frexp(x, &e);
    const long double want = std::log(static_cast<long double>(f)) + e * ln2;
    EXPECT_NEAR(One(cannbot_ref::log_op, x), static_cast<double>(want),
                6e-8 * std::fabs(static_cast<double>(want)) + 1e-12)
        << "x=" << x;
  }
  for (int i = -40; i <= 40; ++i) {
    const float x = static_cast<float>(i) / 4.0f;
    EXPECT_NEAR(One(cannbot_ref::exp_op, One(cannbot_ref::log_op, std::exp(x))), std::exp(x),
                4e-7 * std::exp(x) * (1 + std::fabs(x)))
        << "x=" << x;
  }
}

TEST(ReferenceLogTest, ElementwiseExpressionMatches) {
  CheckExpression("log_op", EXPR_TEXT(EXPR_LOG), [](float x) { return One(cannbot_ref::log_op, x); },
                  [](float x) { return EXPR_LOG; }, Positive(Grid()));
}

// ---------------------------------------------------------------------------------------
// sqrt and rsqrt

TEST(ReferenceSqrtTest, KnownValues) {
  const std::vector<float> y =
      Apply(cannbot_ref::sqrt_op, {4.0f, 2.0f, 0.0f, -0.0f, kSubnormal, kMax, 0.25f});
  EXPECT_EQ(y[0], 2.0f);
  EXPECT_EQ(y[1], 1.4142135623730951f);
  EXPECT_EQ(Bits(y[2]), Bits(0.0f));
  EXPECT_EQ(Bits(y[3]), Bits(-0.0f));  // IEEE: sqrt(-0) = -0
  EXPECT_FLOAT_EQ(y[4], 6.483745362808791e-23f);
  EXPECT_FLOAT_EQ(y[5], 1.8446743e19f);
  EXPECT_EQ(y[6], 0.5f);
}

TEST(ReferenceSqrtTest, IsTheCorrectlyRoundedRoot) {
  // y is the float whose square is nearest x: neither neighbour of y is closer to sqrt(x).
  for (float x : Positive(Grid())) {
    const float y = One(cannbot_ref::sqrt_op, x);
    const long double r = std::sqrt(static_cast<long double>(x));
    const long double err = std::fabs(y - r);
    EXPECT_LE(err, std::fabs(std::nextafter(y, kInf) - r)) << "x=" << x;
    EXPECT_LE(err, std::fabs(std::nextafter(y, 0.0f) - r)) << "x=" << x;
  }
}

TEST(ReferenceSqrtTest, ElementwiseExpressionMatches) {
  std::vector<float> xs = Positive(Grid());
  xs.push_back(0.0f);
  xs.push_back(-0.0f);
  CheckExpression("sqrt_op", EXPR_TEXT(EXPR_SQRT), [](float x) { return One(cannbot_ref::sqrt_op, x); },
                  [](float x) { return EXPR_SQRT; }, xs);
}

TEST(ReferenceRsqrtTest, KnownValues) {
  const std::vector<float> y = Apply(cannbot_ref::rsqrt, {4.0f, 2.0f, 1.0f, kSubnormal, 1e-4f, kMax});
  EXPECT_EQ(y[0], 0.5f);
  EXPECT_FLOAT_EQ(y[1], 0.7071067811865475f);
  EXPECT_EQ(y[2], 1.0f);
  EXPECT_FLOAT_EQ(y[3], 1.5423184348603027e+22f);  // finite, not inf
  EXPECT_FLOAT_EQ(y[4], 100.0f);
  EXPECT_FLOAT_EQ(y[5], 5.421011e-20f);
}

TEST(ReferenceRsqrtTest, SquaredTimesXIsOneAndMatchesTheChain) {
  for (float x : Positive(Grid())) {
    const float y = One(cannbot_ref::rsqrt, x);
    const long double yl = y;
    EXPECT_NEAR(static_cast<double>(yl * yl * x), 1.0, 1.2e-7) << "x=" << x;
    // 1 / sqrt(x) through the sqrt and reciprocal references: two roundings, one ulp.
    const float chain = One(cannbot_ref::reciprocal, One(cannbot_ref::sqrt_op, x));
    EXPECT_NEAR(y, chain, 1.2e-7 * std::fabs(chain)) << "x=" << x;
  }
}

TEST(ReferenceRsqrtTest, ElementwiseExpressionMatches) {
  CheckExpression("rsqrt", EXPR_TEXT(EXPR_RSQRT),
                  [](float x) { return One(cannbot_ref::rsqrt, x); },
                  [](float x) { return EXPR_RSQRT; }, Positive(Grid()));
}

// ---------------------------------------------------------------------------------------
// reciprocal

TEST(ReferenceReciprocalTest, KnownValues) {
  const std::vector<float> y =
      Apply(cannbot_ref::reciprocal, {2.0f, -0.5f, 3.0f, 1e-3f, kMinNormal, kMax, -kMax});
  EXPECT_EQ(y[0], 0.5f);
  EXPECT_EQ(y[1], -2.0f);
  EXPECT_FLOAT_EQ(y[2], 0.3333333333333333f);
  EXPECT_FLOAT_EQ(y[3], 1000.0f);
  EXPECT_EQ(y[4], std::ldexp(1.0f, 126));
  EXPECT_NEAR(y[5], 2.938736052218037e-39, 1.5e-45);  // subnormal, not flushed
  EXPECT_NEAR(y[6], -2.938736052218037e-39, 1.5e-45);
}

TEST(ReferenceReciprocalTest, TimesXIsOneAndIsOdd) {
  for (float x : Grid()) {
    // 1 / x is subnormal beyond 8.5e37 and overflows below 2.9e-39.
    if (std::fabs(x) < 3e-39f || std::fabs(x) > 8e37f) continue;
    const float y = One(cannbot_ref::reciprocal, x);
    EXPECT_NEAR(static_cast<double>(static_cast<long double>(y) * x), 1.0, 6e-8) << "x=" << x;
    EXPECT_EQ(One(cannbot_ref::reciprocal, -x), -y) << "x=" << x;
  }
}

TEST(ReferenceReciprocalTest, ElementwiseExpressionMatches) {
  std::vector<float> xs;
  for (float x : Grid()) {
    if (x != 0) xs.push_back(x);
  }
  CheckExpression("reciprocal", EXPR_TEXT(EXPR_RECIPROCAL),
                  [](float x) { return One(cannbot_ref::reciprocal, x); },
                  [](float x) { return EXPR_RECIPROCAL; }, xs);
}

// ---------------------------------------------------------------------------------------
// abs

TEST(ReferenceAbsTest, ClearsTheSignBitOnly) {
  for (float x : Grid()) {
    EXPECT_EQ(Bits(One(cannbot_ref::abs_op, x)), Bits(x) & 0x7fffffffu) << "x=" << x;
  }
  const std::vector<float> y = Apply(cannbot_ref::abs_op, {-2.5f, -0.0f, -kMax, -kSubnormal});
  EXPECT_EQ(y, (std::vector<float>{2.5f, 0.0f, kMax, kSubnormal}));
  EXPECT_FALSE(std::signbit(y[1]));
}

TEST(ReferenceAbsTest, ElementwiseExpressionMatches) {
  CheckExpression("abs_op", EXPR_TEXT(EXPR_ABS), [](float x) { return One(cannbot_ref::abs_op, x); },
                  [](float x) { return EXPR_ABS; }, Grid());
}

// ---------------------------------------------------------------------------------------
// pow_scalar

float Pow(float x, float p) {
  float y;
  cannbot_ref::pow_scalar(&x, &y, 1, p);
  return y;
}

TEST(ReferencePowScalarTest, KnownValues) {
  EXPECT_FLOAT_EQ(Pow(2.0f, 2.5f), 5.656854249492381f);
  EXPECT_FLOAT_EQ(Pow(0.5f, 2.5f), 0.1767766952966369f);
  EXPECT_FLOAT_EQ(Pow(10.0f, -0.5f), 0.31622776601683794f);
  EXPECT_EQ(Pow(3.0f, 3.0f), 27.0f);
  EXPECT_EQ(Pow(1.0f, 2.5f), 1.0f);
  EXPECT_EQ(Pow(kMax / 16, 2.5f), kInf);   // overflows float
  EXPECT_EQ(Pow(kMinNormal, 2.5f), 0.0f);  // underflows
  EXPECT_FLOAT_EQ(Pow(kSubnormal, -0.5f), 1.5423184348603027e+22f);
  EXPECT_EQ(Pow(kSubnormal, -1.5f), kInf);
}

TEST(ReferencePowScalarTest, MatchesExpOfScaledLogAndSpecialExponents) {
  for (float x : Positive(Grid())) {
    for (float p : {2.5f, -0.5f, 3.0f, 0.333f}) {
      // exp(p log x) in long double: its 64-bit significand keeps p log x exact enough.
      const long double want = std::exp(p * std::log(static_cast<long double>(x)));
      const float y = Pow(x, p);
      if (want > FLT_MAX * (1 + 6e-8L)) {
        EXPECT_EQ(y, kInf) << "x=" << x << " p=" << p;
      } else {
        EXPECT_NEAR(y, static_cast<double>(want), 6e-8 * static_cast<double>(want) + 1.5e-45)
            << "x=" << x << " p=" << p;
      }
    }
    // x^-0.5 is rsqrt and x^0.5 is sqrt (references of one rounding each).
    EXPECT_EQ(Pow(x, -0.5f), One(cannbot_ref::rsqrt, x)) << "x=" << x;
    EXPECT_EQ(Pow(x, 0.5f), One(cannbot_ref::sqrt_op, x)) << "x=" << x;
  }
}

TEST(ReferencePowScalarTest, ElementwiseExpressionMatches) {
  for (float p : {2.5f, -0.5f, 3.0f}) {
    CheckExpression(
        "pow_scalar", EXPR_TEXT(EXPR_POW_SCALAR), [p](float x) { return Pow(x, p); },
        [p](float x) {
          const float exponent = p;
          return EXPR_POW_SCALAR;
        },
        Positive(Grid()));
  }
}

// ---------------------------------------------------------------------------------------
// clamp

float Clamp(float x, float lo, float hi) {
  float y;
  cannbot_ref::clamp(&x, &y, 1, lo, hi);
  return y;
}

TEST(ReferenceClampTest, KnownValues) {
  const std::vector<float> x = {-2.0f, -1.0f, 0.5f, 1.0f, 3.0f, kMax, -kMax, 0.0f};
  std::vector<float> y(x.size(), -123.0f);
  cannbot_ref::clamp(x.data(), y.data(), static_cast<int64_t>(x.size()), -1.0f, 1.0f);
  EXPECT_EQ(y, (std::vector<float>{-1.0f, -1.0f, 0.5f, 1.0f, 1.0f, 1.0f, -1.0f, 0.0f}));
  EXPECT_EQ(Clamp(7.0f, 0.0f, 6.0f), 6.0f);
  EXPECT_EQ(Clamp(-7.0f, 0.0f, 6.0f), 0.0f);
  EXPECT_EQ(Clamp(3.0f, 0.25f, 0.25f), 0.25f);
  EXPECT_EQ(Clamp(-3.0f, 0.25f, 0.25f), 0.25f);
}

TEST(ReferenceClampTest, StaysInBoundsAndKeepsInsideValues) {
  const float bounds[][2] = {{-1.0f, 1.0f}, {-0.5f, 2.0f}, {0.0f, 6.0f}, {0.25f, 0.25f}};
  for (const auto& b : bounds) {
    for (float x : Grid()) {
      const float y = Clamp(x, b[0], b[1]);
      EXPECT_GE(y, b[0]) << "x=" << x;
      EXPECT_LE(y, b[1]) << "x=" << x;
      if (x >= b[0] && x <= b[1]) {
        EXPECT_EQ(y, x) << "x=" << x;
      } else {
        EXPECT_EQ(y, x < b[0] ? b[0] : b[1]) << "x=" << x;
      }
      EXPECT_EQ(Clamp(y, b[0], b[1]), y) << "x=" << x;  // idempotent
    }
  }
}

TEST(ReferenceClampTest, ElementwiseExpressionMatches) {
  const float bounds[][2] = {{-1.0f, 1.0f}, {-0.5f, 2.0f}, {0.0f, 6.0f}, {0.25f, 0.25f}};
  for (const auto& b : bounds) {
    const float l = b[0], h = b[1];
    CheckExpression(
        "clamp", EXPR_TEXT(EXPR_CLAMP), [l, h](float x) { return Clamp(x, l, h); },
        [l, h](float x) {
          const float lo = l, hi = h;
          return EXPR_CLAMP;
        },
        Grid());
  }
}

}  // namespace
}  // namespace cannbot_activation_math_test
