// cb_math.inc (the vector math pasted into generated elementwise kernels) against double-precision
// libm: accuracy sweeps over dense grids, strided and random bit patterns, the edge values each
// function documents, and the rule that no result is ever subnormal. Every check runs on three
// builds of the block: the default one of this translation unit, the fma path (what kernels
// compiled with -march=native on AVX2/AVX-512 use; here __builtin_fmaf may be a libm call, with
// identical results) and the double-emulated fma path for targets without fma.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

// The block needs <cstdint> first (generated kernels include <cstdint> and <cstring> before it).
// clang-format off
#include "cannbot/skills/cb_math.inc"
// clang-format on

// The same block again, with the fma path forced on, then off.
#undef CANNBOT_CB_MATH_INC
#undef CB_MATH_USE_FMA
#define CB_MATH_USE_FMA 1
namespace cbm_fma_path {
#include "cannbot/skills/cb_math.inc"
}  // namespace cbm_fma_path
#undef CANNBOT_CB_MATH_INC
#undef CB_MATH_USE_FMA
#define CB_MATH_USE_FMA 0
namespace cbm_emulated_fma_path {
#include "cannbot/skills/cb_math.inc"
}  // namespace cbm_emulated_fma_path

namespace {

using Unary = float (*)(float);
using Binary = float (*)(float, float);

struct Impl {
  const char* name;
  Unary exp, expm1, log, log1p, tanh, erf, sqrt, rsqrt, abs;
  Binary min, max, pow;
};

#define CB_MATH_IMPL(label, ns)                                                               \
  Impl {                                                                                      \
    label, ns cb_exp, ns cb_expm1, ns cb_log, ns cb_log1p, ns cb_tanh, ns cb_erf, ns cb_sqrt, \
        ns cb_rsqrt, ns cb_abs, ns cb_min, ns cb_max, ns cb_pow                               \
  }
const Impl kDefault = CB_MATH_IMPL("Default", ::);
const Impl kFma = CB_MATH_IMPL("Fma", cbm_fma_path::);
const Impl kEmulatedFma = CB_MATH_IMPL("EmulatedFma", cbm_emulated_fma_path::);
#undef CB_MATH_IMPL

constexpr double kMaxRel = 4e-7;  // the accuracy contract of cb_math.inc

float FromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
uint32_t Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
bool IsSubnormal(float f) { return std::fpclassify(f) == FP_SUBNORMAL; }

// Accumulates the comparison of cb results with a double reference.
struct Checker {
  explicit Checker(std::string name) : fn(std::move(name)) {}
  std::string fn;
  double max_rel = 0.0;
  float worst_x = 0.0f;
  long compared = 0;
  long failures = 0;
  std::string first_failures;

  void Fail(const std::string& what) {
    if (failures++ < 8) first_failures += "  " + what + "\n";
  }
  // got = f(x) (x2 is the second argument of binary functions, for messages only).
  void Check(float x, float got, double ref, float x2 = 0.0f) {
    char buf[256];
    auto where = [&](const char* why) {
      std::snprintf(buf, sizeof buf, "%s(%a, %a) = %a, want %a: %s", fn.c_str(), x, x2, got, ref,
                    why);
      return std::string(buf);
    };
    if (IsSubnormal(got)) return Fail(where("subnormal result"));
    if (std::isnan(ref)) {
      if (!std::isnan(got)) Fail(where("want NaN"));
      return;
    }
    if (std::isnan(got)) return Fail(where("unexpected NaN"));
    const double aref = std::fabs(ref);
    if (aref < FLT_MIN) {  // flushed to zero, or rounded up to FLT_MIN
      if (std::fabs(got) > FLT_MIN) Fail(where("result below FLT_MIN must flush to 0"));
      return;
    }
    if (aref > FLT_MAX) {  // +-inf, or FLT_MAX where the rounding of ref allows it
      if (std::fabs(got) < FLT_MAX * (1.0 - kMaxRel) || std::signbit(got) != std::signbit(ref))
        Fail(where("want overflow to inf"));
      return;
    }
    ++compared;
    const double rel = std::fabs(static_cast<double>(got) - ref) / aref;
    if (!(rel <= max_rel)) {
      max_rel = rel;
      worst_x = x;
    }
    if (!(rel <= kMaxRel)) Fail(where("relative error too large"));
  }
  void Expect() {
    EXPECT_EQ(failures, 0) << fn << ": " << failures << " failures\n" << first_failures;
    EXPECT_GT(compared, 0) << fn;
    ::testing::Test::RecordProperty(fn + "_max_rel_err", std::to_string(max_rel));
    std::printf("    %-8s max rel err %.3e at x=%a over %ld normal results\n", fn.c_str(), max_rel,
                worst_x, compared);
  }
};

// Inputs for unary sweeps: every float bit pattern with a prime stride (both signs, all
// exponents, subnormals, inf and NaN included), random bit patterns, a dense uniform grid over
// [lo, hi] and a geometric grid of +-10^k, k in [-40, 39].
std::vector<float> SweepInputs(float lo, float hi) {
  std::vector<float> x;
  for (uint64_t u = 0; u < (uint64_t{1} << 32); u += 16381)
    x.push_back(FromBits(static_cast<uint32_t>(u)));
  std::mt19937 rng(12345);
  for (int i = 0; i < 100000; ++i) x.push_back(FromBits(static_cast<uint32_t>(rng())));
  const int kGrid = 100000;
  for (int i = 0; i <= kGrid; ++i) x.push_back(lo + (hi - lo) * static_cast<float>(i) / kGrid);
  for (int e = -400; e < 390; ++e) {
    const float v = static_cast<float>(std::pow(10.0, e / 10.0));
    x.push_back(v);
    x.push_back(-v);
  }
  return x;
}

void SweepUnary(const char* name, Unary f, double (*ref)(double), float lo, float hi) {
  Checker c{name};
  for (float x : SweepInputs(lo, hi)) c.Check(x, f(x), ref(static_cast<double>(x)));
  c.Expect();
}

class CbMathTest : public ::testing::TestWithParam<const Impl*> {
 protected:
  const Impl& m() const { return *GetParam(); }
};

// ---- accuracy sweeps -----------------------------------------------------------------------

TEST_P(CbMathTest, ExpAccuracy) {
  SweepUnary(
      "exp", m().exp, [](double v) { return std::exp(v); }, -104.0f, 89.0f);
}
TEST_P(CbMathTest, Expm1Accuracy) {
  SweepUnary(
      "expm1", m().expm1, [](double v) { return std::expm1(v); }, -20.0f, 89.0f);
}
TEST_P(CbMathTest, LogAccuracy) {
  SweepUnary(
      "log", m().log, [](double v) { return std::log(v); }, 0.0f, 4.0f);
}
TEST_P(CbMathTest, Log1pAccuracy) {
  SweepUnary(
      "log1p", m().log1p, [](double v) { return std::log1p(v); }, -1.0f, 3.0f);
}
TEST_P(CbMathTest, TanhAccuracy) {
  SweepUnary(
      "tanh", m().tanh, [](double v) { return std::tanh(v); }, -10.0f, 10.0f);
}
TEST_P(CbMathTest, ErfAccuracy) {
  SweepUnary(
      "erf", m().erf, [](double v) { return std::erf(v); }, -5.0f, 5.0f);
}
TEST_P(CbMathTest, SqrtAccuracy) {
  SweepUnary(
      "sqrt", m().sqrt, [](double v) { return std::sqrt(v); }, 0.0f, 100.0f);
}
TEST_P(CbMathTest, RsqrtAccuracy) {
  SweepUnary(
      "rsqrt", m().rsqrt, [](double v) { return 1.0 / std::sqrt(v); }, 0.0f, 100.0f);
}

// sqrt is effectively correctly rounded: it matches std::sqrt on (nearly) every input.
TEST_P(CbMathTest, SqrtMatchesLibmRounding) {
  long mismatches = 0, total = 0;
  for (uint64_t u = 0; u <= 0x7f800000u; u += 9973) {
    const float x = FromBits(static_cast<uint32_t>(u));
    ++total;
    if (m().sqrt(x) != std::sqrt(x)) ++mismatches;
  }
  EXPECT_LE(mismatches * 1000, total) << mismatches << " of " << total;  // <= 0.1%
}

TEST_P(CbMathTest, PowAccuracy) {
  Checker c{"pow"};
  auto check = [&](float x, float p) {
    if (x == 0.0f) return;  // cb_pow's own definition there; see PowEdges
    c.Check(x, m().pow(x, p), std::pow(static_cast<double>(x), static_cast<double>(p)), p);
  };
  const float ps[] = {2.0f,  -1.0f, 0.5f, 2.5f,  3.0f,   -2.3f, 1e-3f,
                      10.0f, 1.0f,  0.0f, 77.7f, -77.7f, 1e-7f, -0.5f};
  for (float p : ps)  // every positive float bit pattern with a prime stride
    for (uint64_t u = 1; u < 0x7f800000u; u += 65521) check(FromBits(static_cast<uint32_t>(u)), p);
  std::mt19937 rng(777);
  std::uniform_real_distribution<float> pd(-50.0f, 50.0f), xd(0.0f, 8.0f);
  for (int i = 0; i < 100000; ++i) {
    check(FromBits(rng() & 0x7fffffffu), pd(rng));  // random positive bits (and inf / NaN)
    check(xd(rng), pd(rng));                        // moderate x, results across the range
  }
  c.Expect();
}

// ---- edges ---------------------------------------------------------------------------------

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kSubnormals[] = {FromBits(1), 1e-45f, 1e-40f, 5e-39f, FromBits(0x007fffff)};

// Same value and sign (so +0 and -0 differ; NaN equals NaN).
::testing::AssertionResult Same(float got, float want) {
  if ((std::isnan(got) && std::isnan(want)) || Bits(got) == Bits(want))
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "got " << got << " (" << std::hexfloat << got
                                       << "), want " << want << " (" << want << ")";
}
::testing::AssertionResult Near(float got, double want) {
  const double rel = std::fabs(got - want) / std::fabs(want);
  if (rel <= kMaxRel) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "got " << std::hexfloat << got << ", want " << want
                                       << " (rel err " << std::scientific << rel << ")";
}

TEST_P(CbMathTest, ExpEdges) {
  EXPECT_TRUE(Same(m().exp(0.0f), 1.0f));
  EXPECT_TRUE(Same(m().exp(-0.0f), 1.0f));
  EXPECT_TRUE(Same(m().exp(kInf), kInf));
  EXPECT_TRUE(Same(m().exp(-kInf), 0.0f));
  EXPECT_TRUE(Same(m().exp(kNaN), kNaN));
  // The largest x with a finite e^x, and the next float.
  const float last = 0x1.62e42ep+6f;  // 88.7228317
  EXPECT_TRUE(Near(m().exp(last), std::exp(static_cast<double>(last))));
  EXPECT_TRUE(Same(m().exp(std::nextafter(last, kInf)), kInf));
  EXPECT_TRUE(Same(m().exp(88.73f), kInf));
  EXPECT_TRUE(Same(m().exp(1e30f), kInf));
  // Results below FLT_MIN are exactly 0, results above it are normal: every float in
  // [-88, -87] (ln FLT_MIN = -87.3365), then a stride down to -110.
  for (float x = -87.0f; x > -88.0f; x = std::nextafter(x, -kInf)) {
    if (std::exp(static_cast<double>(x)) >= FLT_MIN) {
      ASSERT_TRUE(Near(m().exp(x), std::exp(static_cast<double>(x)))) << "x=" << x;
    } else {
      ASSERT_TRUE(Same(m().exp(x), 0.0f)) << "x=" << x;
    }
  }
  for (float x = -88.0f; x > -110.0f; x -= 0.001f) ASSERT_TRUE(Same(m().exp(x), 0.0f)) << x;
  EXPECT_TRUE(Same(m().exp(-87.34f), 0.0f));
  EXPECT_TRUE(Same(m().exp(-1e30f), 0.0f));
  EXPECT_GE(m().exp(-87.33f), FLT_MIN);
  EXPECT_TRUE(Near(m().exp(-87.33f), std::exp(static_cast<double>(-87.33f))));
  EXPECT_TRUE(Near(m().exp(1.0f), std::exp(1.0)));
}

TEST_P(CbMathTest, Expm1Edges) {
  EXPECT_TRUE(Same(m().expm1(0.0f), 0.0f));
  EXPECT_TRUE(Same(m().expm1(-0.0f), -0.0f));
  EXPECT_TRUE(Same(m().expm1(kInf), kInf));
  EXPECT_TRUE(Same(m().expm1(-kInf), -1.0f));
  EXPECT_TRUE(Same(m().expm1(-30.0f), -1.0f));
  EXPECT_TRUE(Same(m().expm1(-1e30f), -1.0f));
  EXPECT_TRUE(Same(m().expm1(kNaN), kNaN));
  EXPECT_TRUE(Same(m().expm1(88.73f), kInf));
  EXPECT_TRUE(Near(m().expm1(88.72f), std::expm1(static_cast<double>(88.72f))));
  // Accurate near 0, down to tiny normal x.
  for (double v : {1e-30, 1e-20, 1e-10, 1e-7, 1e-5, 1e-3, 0.1, 0.3465, 0.3466, 0.5}) {
    for (float x : {static_cast<float>(v), static_cast<float>(-v)}) {
      EXPECT_TRUE(Near(m().expm1(x), std::expm1(static_cast<double>(x)))) << "x=" << x;
    }
  }
  EXPECT_TRUE(Same(m().expm1(FLT_MIN), FLT_MIN));
  for (float s : kSubnormals) {
    EXPECT_TRUE(Same(m().expm1(s), 0.0f)) << s;
    EXPECT_TRUE(Same(m().expm1(-s), -0.0f)) << s;
  }
}

TEST_P(CbMathTest, LogEdges) {
  EXPECT_TRUE(Same(m().log(1.0f), 0.0f));  // exactly +0
  EXPECT_TRUE(Same(m().log(0.0f), -kInf));
  EXPECT_TRUE(Same(m().log(-0.0f), -kInf));
  EXPECT_TRUE(Same(m().log(-1.0f), kNaN));
  EXPECT_TRUE(Same(m().log(-kInf), kNaN));
  EXPECT_TRUE(Same(m().log(-FLT_MIN), kNaN));
  EXPECT_TRUE(Same(m().log(kInf), kInf));
  EXPECT_TRUE(Same(m().log(kNaN), kNaN));
  EXPECT_TRUE(Near(m().log(FLT_MAX), std::log(static_cast<double>(FLT_MAX))));
  EXPECT_TRUE(Near(m().log(FLT_MIN), std::log(static_cast<double>(FLT_MIN))));
  for (float s : kSubnormals) {  // subnormal inputs are scaled up first
    EXPECT_TRUE(Near(m().log(s), std::log(static_cast<double>(s)))) << s;
    EXPECT_TRUE(Same(m().log(-s), kNaN));
  }
  // Near 1 (both sides): relative accuracy holds where log is tiny.
  for (float x = 1.0f, y = 1.0f; x < 1.0001f;
       x = std::nextafter(x, 2.0f), y = std::nextafter(y, 0.0f)) {
    if (x != 1.0f) {
      ASSERT_TRUE(Near(m().log(x), std::log(static_cast<double>(x)))) << x;
    }
    if (y != 1.0f) {
      ASSERT_TRUE(Near(m().log(y), std::log(static_cast<double>(y)))) << y;
    }
  }
}

TEST_P(CbMathTest, Log1pEdges) {
  EXPECT_TRUE(Same(m().log1p(0.0f), 0.0f));
  EXPECT_TRUE(Same(m().log1p(-0.0f), -0.0f));
  EXPECT_TRUE(Same(m().log1p(-1.0f), -kInf));
  EXPECT_TRUE(Same(m().log1p(-1.5f), kNaN));
  EXPECT_TRUE(Same(m().log1p(-kInf), kNaN));
  EXPECT_TRUE(Same(m().log1p(kInf), kInf));
  EXPECT_TRUE(Same(m().log1p(kNaN), kNaN));
  EXPECT_TRUE(Near(m().log1p(FLT_MAX), std::log1p(static_cast<double>(FLT_MAX))));
  EXPECT_TRUE(Near(m().log1p(std::nextafter(-1.0f, 0.0f)),
                   std::log1p(static_cast<double>(std::nextafter(-1.0f, 0.0f)))));
  for (double v : {1e-30, 1e-20, 1e-10, 1e-8, 1e-7, 1e-5, 1e-3, 0.1, 0.29, 0.41, 0.42}) {
    for (float x : {static_cast<float>(v), static_cast<float>(-v)}) {
      EXPECT_TRUE(Near(m().log1p(x), std::log1p(static_cast<double>(x)))) << "x=" << x;
    }
  }
  for (float s : kSubnormals) {
    EXPECT_TRUE(Same(m().log1p(s), 0.0f)) << s;
    EXPECT_TRUE(Same(m().log1p(-s), -0.0f)) << s;
  }
  // Large x, where 1 + x rounds: the recovered rounding error keeps the result accurate.
  for (float x : {16777215.0f, 16777217.0f, 3e7f, 1e30f}) {
    EXPECT_TRUE(Near(m().log1p(x), std::log1p(static_cast<double>(x)))) << x;
  }
}

// Odd functions: exact odd symmetry, +-0 kept, saturation to +-1, tiny x returns x.
void CheckOddSaturating(const char* name, Unary f, double (*ref)(double), float saturates_at) {
  SCOPED_TRACE(name);
  EXPECT_TRUE(Same(f(0.0f), 0.0f));
  EXPECT_TRUE(Same(f(-0.0f), -0.0f));
  EXPECT_TRUE(Same(f(kInf), 1.0f));
  EXPECT_TRUE(Same(f(-kInf), -1.0f));
  EXPECT_TRUE(Same(f(kNaN), kNaN));
  EXPECT_TRUE(Same(f(saturates_at), 1.0f));
  EXPECT_TRUE(Same(f(-saturates_at), -1.0f));
  EXPECT_TRUE(Same(f(1e30f), 1.0f));
  EXPECT_TRUE(Same(f(-FLT_MAX), -1.0f));
  for (float s : kSubnormals) {  // results below FLT_MIN flush to a signed zero
    if (ref(static_cast<double>(s)) >= FLT_MIN) continue;
    EXPECT_TRUE(Same(f(s), 0.0f)) << s;
    EXPECT_TRUE(Same(f(-s), -0.0f)) << s;
  }
  for (double v : {1e-37, 1e-30, 1e-20, 1e-10, 1e-5, 1e-3, 0.1, 0.5, 0.9, 1.0, 2.0, 3.0}) {
    const float x = static_cast<float>(v);
    EXPECT_TRUE(Near(f(x), ref(static_cast<double>(x)))) << "x=" << x;
  }
  std::mt19937 rng(99);
  for (int i = 0; i < 100000; ++i) {
    const float x = FromBits(rng() & 0x7fffffffu);
    ASSERT_TRUE(Same(f(-x), -f(x))) << "x=" << x;  // exact odd symmetry
  }
}

TEST_P(CbMathTest, TanhEdges) {
  CheckOddSaturating(
      "tanh", m().tanh, [](double v) { return std::tanh(v); }, 9.1f);
  // tanh(x) == x exactly for tiny normal x.
  for (float x : {1e-30f, 1e-10f, 1e-5f, FLT_MIN}) EXPECT_TRUE(Same(m().tanh(x), x)) << x;
}

TEST_P(CbMathTest, ErfEdges) {
  CheckOddSaturating(
      "erf", m().erf, [](double v) { return std::erf(v); }, 3.92f);
  // Where erf rounds to 1 (from x = 3.916), the result is exactly 1: every float around the
  // threshold, then a stride.
  for (float x = 3.9f; x < 3.95f; x = std::nextafter(x, kInf)) {
    if (static_cast<float>(std::erf(static_cast<double>(x))) == 1.0f) {
      ASSERT_TRUE(Same(m().erf(x), 1.0f)) << x;
    } else {
      ASSERT_TRUE(Near(m().erf(x), std::erf(static_cast<double>(x)))) << x;
    }
  }
  for (float x = 3.95f; x < 100.0f; x += 0.01f) ASSERT_TRUE(Same(m().erf(x), 1.0f)) << x;
}

TEST_P(CbMathTest, SqrtRsqrtEdges) {
  EXPECT_TRUE(Same(m().sqrt(0.0f), 0.0f));
  EXPECT_TRUE(Same(m().sqrt(-0.0f), -0.0f));
  EXPECT_TRUE(Same(m().sqrt(-1.0f), kNaN));
  EXPECT_TRUE(Same(m().sqrt(-kInf), kNaN));
  EXPECT_TRUE(Same(m().sqrt(kInf), kInf));
  EXPECT_TRUE(Same(m().sqrt(kNaN), kNaN));
  EXPECT_TRUE(Same(m().sqrt(4.0f), 2.0f));
  EXPECT_TRUE(Same(m().sqrt(1.0f), 1.0f));
  EXPECT_TRUE(Same(m().sqrt(FLT_MAX), std::sqrt(FLT_MAX)));
  for (float s : kSubnormals)
    EXPECT_TRUE(Near(m().sqrt(s), std::sqrt(static_cast<double>(s)))) << s;
  EXPECT_TRUE(Same(m().rsqrt(0.0f), kInf));
  EXPECT_TRUE(Same(m().rsqrt(-0.0f), -kInf));
  EXPECT_TRUE(Same(m().rsqrt(kInf), 0.0f));
  EXPECT_TRUE(Same(m().rsqrt(-2.0f), kNaN));
  EXPECT_TRUE(Same(m().rsqrt(kNaN), kNaN));
  EXPECT_TRUE(Same(m().rsqrt(4.0f), 0.5f));
  for (float s : kSubnormals)
    EXPECT_TRUE(Near(m().rsqrt(s), 1.0 / std::sqrt(static_cast<double>(s)))) << s;
}

TEST_P(CbMathTest, PowEdges) {
  // x == 0: 0 for p > 0, NaN otherwise (cb_pow's definition).
  EXPECT_TRUE(Same(m().pow(0.0f, 2.0f), 0.0f));
  EXPECT_TRUE(Same(m().pow(-0.0f, 0.5f), 0.0f));
  EXPECT_TRUE(Same(m().pow(0.0f, 0.0f), kNaN));
  EXPECT_TRUE(Same(m().pow(0.0f, -1.0f), kNaN));
  // x < 0: NaN, even for integer p.
  EXPECT_TRUE(Same(m().pow(-2.0f, 2.0f), kNaN));
  EXPECT_TRUE(Same(m().pow(-kInf, 2.0f), kNaN));
  EXPECT_TRUE(Same(m().pow(-FLT_MIN, 1.0f), kNaN));
  // NaN in either argument.
  EXPECT_TRUE(Same(m().pow(kNaN, 2.0f), kNaN));
  EXPECT_TRUE(Same(m().pow(2.0f, kNaN), kNaN));
  EXPECT_TRUE(Same(m().pow(1.0f, kNaN), kNaN));
  // x = +inf, x = 1, p = 0.
  EXPECT_TRUE(Same(m().pow(kInf, 2.0f), kInf));
  EXPECT_TRUE(Same(m().pow(kInf, -2.0f), 0.0f));
  EXPECT_TRUE(Same(m().pow(kInf, 0.0f), 1.0f));
  EXPECT_TRUE(Same(m().pow(1.0f, kInf), 1.0f));
  EXPECT_TRUE(Same(m().pow(1.0f, -123.0f), 1.0f));
  EXPECT_TRUE(Same(m().pow(3.0f, 0.0f), 1.0f));
  EXPECT_TRUE(Same(m().pow(FLT_MAX, 0.0f), 1.0f));
  // Overflow, underflow (flush, never subnormal), p = +-inf, subnormal x.
  EXPECT_TRUE(Same(m().pow(10.0f, 39.0f), kInf));
  EXPECT_TRUE(Same(m().pow(10.0f, -38.5f), 0.0f));
  EXPECT_TRUE(Same(m().pow(10.0f, -44.0f), 0.0f));
  EXPECT_TRUE(Same(m().pow(2.0f, kInf), kInf));
  EXPECT_TRUE(Same(m().pow(0.5f, kInf), 0.0f));
  EXPECT_TRUE(Same(m().pow(2.0f, -kInf), 0.0f));
  EXPECT_TRUE(Near(m().pow(1e-40f, 0.5f), std::sqrt(static_cast<double>(1e-40f))));
  EXPECT_TRUE(
      Near(m().pow(FromBits(1), -0.25f), std::pow(static_cast<double>(FromBits(1)), -0.25)));
  // Exact small cases.
  EXPECT_TRUE(Same(m().pow(2.0f, 10.0f), 1024.0f));
  EXPECT_TRUE(Same(m().pow(4.0f, 0.5f), 2.0f));
  EXPECT_TRUE(Same(m().pow(9.0f, 1.5f), 27.0f));
}

TEST_P(CbMathTest, AbsMinMax) {
  EXPECT_TRUE(Same(m().abs(-0.0f), 0.0f));
  EXPECT_TRUE(Same(m().abs(-kInf), kInf));
  EXPECT_TRUE(Same(m().abs(kNaN), kNaN));
  EXPECT_TRUE(Same(m().abs(-FromBits(1)), FromBits(1)));
  EXPECT_TRUE(Same(m().min(-0.0f, 0.0f), -0.0f));
  EXPECT_TRUE(Same(m().min(0.0f, -0.0f), -0.0f));
  EXPECT_TRUE(Same(m().max(-0.0f, 0.0f), 0.0f));
  EXPECT_TRUE(Same(m().max(0.0f, -0.0f), 0.0f));
  EXPECT_TRUE(Same(m().min(kNaN, 1.0f), kNaN));
  EXPECT_TRUE(Same(m().min(1.0f, kNaN), kNaN));
  EXPECT_TRUE(Same(m().max(kNaN, 1.0f), kNaN));
  EXPECT_TRUE(Same(m().max(1.0f, kNaN), kNaN));
  EXPECT_TRUE(Same(m().max(-kInf, kInf), kInf));
  EXPECT_TRUE(Same(m().min(-kInf, kInf), -kInf));
  std::mt19937 rng(5);
  for (int i = 0; i < 200000; ++i) {
    const float a = FromBits(static_cast<uint32_t>(rng())),
                b = FromBits(static_cast<uint32_t>(rng()));
    ASSERT_TRUE(Same(m().abs(a), std::fabs(a)));
    if (std::isnan(a) || std::isnan(b)) {
      ASSERT_TRUE(std::isnan(m().min(a, b)) && std::isnan(m().max(a, b)));
    } else {
      ASSERT_TRUE(Same(m().min(a, b), a < b ? a : b)) << a << " " << b;
      ASSERT_TRUE(Same(m().max(a, b), a > b ? a : b)) << a << " " << b;
    }
  }
}

// No cb_exp / cb_expm1 / cb_tanh / cb_erf result (nor any other) is ever subnormal: over every
// float bit pattern with a stride, plus dense runs where results approach the subnormal range.
TEST_P(CbMathTest, NoSubnormalResults) {
  std::vector<float> xs;
  for (uint64_t u = 0; u < (uint64_t{1} << 32); u += 16381)
    xs.push_back(FromBits(static_cast<uint32_t>(u)));
  for (float x = -87.2f; x > -87.5f; x = std::nextafter(x, -kInf)) xs.push_back(x);  // exp tail
  for (uint32_t u = 0; u < 0x01000000u; u += 997) {  // subnormal and smallest normal inputs
    xs.push_back(FromBits(u));
    xs.push_back(FromBits(u | 0x80000000u));
  }
  const struct {
    const char* name;
    Unary f;
  } fns[] = {{"exp", m().exp}, {"expm1", m().expm1}, {"tanh", m().tanh}, {"erf", m().erf},
             {"log", m().log}, {"log1p", m().log1p}, {"sqrt", m().sqrt}, {"rsqrt", m().rsqrt}};
  for (const auto& fn : fns) {
    long subnormal = 0;
    float example = 0.0f;
    for (float x : xs) {
      if (IsSubnormal(fn.f(x)) && subnormal++ == 0) example = x;
    }
    EXPECT_EQ(subnormal, 0) << fn.name << ", e.g. x=" << example;
  }
  long subnormal_pow = 0;
  for (float p : {1.0f, 2.0f, 0.5f, -0.5f, 1.1f})
    for (uint64_t u = 0; u < 0x7f800000u; u += 65521)
      if (IsSubnormal(m().pow(FromBits(static_cast<uint32_t>(u)), p))) ++subnormal_pow;
  EXPECT_EQ(subnormal_pow, 0);
}

INSTANTIATE_TEST_SUITE_P(Builds, CbMathTest, ::testing::Values(&kDefault, &kFma, &kEmulatedFma),
                         [](const ::testing::TestParamInfo<const Impl*>& param_info) {
                           return std::string(param_info.param->name);
                         });

}  // namespace
