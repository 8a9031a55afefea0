// Element values of every DType: exact half/bfloat16 decoding, one-step round-to-nearest-even
// encoding from double, saturating integer stores, and each dtype's limits.
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "cannbot/ops/dtype_values.h"

namespace cannbot::ops {
namespace {

constexpr DType kAllDTypes[] = {DType::kF32, DType::kF16, DType::kBF16, DType::kI8,
                                DType::kU8,  DType::kI32, DType::kI64};

double P2(int e) { return std::ldexp(1.0, e); }

bool HalfIsNan(uint16_t b) { return (b & 0x7C00) == 0x7C00 && (b & 0x03FF) != 0; }
bool BF16IsNan(uint16_t b) { return (b & 0x7F80) == 0x7F80 && (b & 0x007F) != 0; }

// Writes `v` as `dtype` into a fresh buffer and returns its raw bytes as a uint64.
uint64_t StoredBits(DType dtype, double v) {
  unsigned char buf[8] = {};
  StoreElement(dtype, buf, 0, v);
  uint64_t out = 0;
  std::memcpy(&out, buf, DTypeBytes(dtype));
  return out;
}

int64_t StoredI64(double v) { return static_cast<int64_t>(StoredBits(DType::kI64, v)); }
int32_t StoredI32(double v) {
  return static_cast<int32_t>(static_cast<uint32_t>(StoredBits(DType::kI32, v)));
}
int8_t StoredI8(double v) {
  return static_cast<int8_t>(static_cast<uint8_t>(StoredBits(DType::kI8, v)));
}

// Brute-force oracle: nearest of the sorted finite non-negative values `table` (indexed by bit
// pattern), ties to the even pattern. `x` must be within [0, table.back()].
uint16_t NearestByTable(const std::vector<double>& table, double x) {
  const size_t hi =
      static_cast<size_t>(std::lower_bound(table.begin(), table.end(), x) - table.begin());
  if (table[hi] == x || hi == 0) return static_cast<uint16_t>(hi);
  const size_t lo = hi - 1;
  const double dlo = x - table[lo], dhi = table[hi] - x;  // exact: Sterbenz, or lo == 0
  if (dlo < dhi) return static_cast<uint16_t>(lo);
  if (dhi < dlo) return static_cast<uint16_t>(hi);
  return static_cast<uint16_t>(lo % 2 == 0 ? lo : hi);
}

// --- half ---

TEST(DTypeValuesTest, EveryHalfPatternRoundTrips) {
  for (uint32_t b = 0; b <= 0xFFFF; ++b) {
    const uint16_t bits = static_cast<uint16_t>(b);
    const double d = HalfToDouble(bits);
    if (HalfIsNan(bits)) {
      EXPECT_TRUE(std::isnan(d)) << std::hex << b;
      EXPECT_TRUE(HalfIsNan(HalfFromDouble(d))) << std::hex << b;
    } else {
      EXPECT_EQ(HalfFromDouble(d), bits) << std::hex << b;
    }
  }
}

TEST(DTypeValuesTest, HalfDecodesToKnownValuesInIncreasingOrder) {
  EXPECT_EQ(HalfToDouble(0x3C00), 1.0);
  EXPECT_EQ(HalfToDouble(0xC000), -2.0);
  EXPECT_EQ(HalfToDouble(0x3555), 0.333251953125);
  EXPECT_EQ(HalfToDouble(0x7BFF), 65504.0);
  EXPECT_EQ(HalfToDouble(0x0400), P2(-14));
  EXPECT_EQ(HalfToDouble(0x03FF), 1023 * P2(-24));
  EXPECT_EQ(HalfToDouble(0x0001), P2(-24));
  EXPECT_EQ(HalfToDouble(0x7C00), std::numeric_limits<double>::infinity());
  EXPECT_EQ(HalfToDouble(0xFC00), -std::numeric_limits<double>::infinity());
  for (uint16_t b = 1; b <= 0x7C00; ++b) {
    ASSERT_LT(HalfToDouble(b - 1), HalfToDouble(b)) << std::hex << b;
  }
}

TEST(DTypeValuesTest, HalfRoundsTiesToEven) {
  EXPECT_EQ(HalfFromDouble(1 + P2(-11)), 0x3C00);      // tie between 1 and 1+2^-10: even is 1
  EXPECT_EQ(HalfFromDouble(1 + 3 * P2(-11)), 0x3C02);  // tie: 1+2^-9 (even) not 1+2^-10
  EXPECT_EQ(HalfFromDouble(-(1 + P2(-11))), 0xBC00);
  EXPECT_EQ(HalfFromDouble(1 + P2(-11) + P2(-40)), 0x3C01);      // just above a tie: up
  EXPECT_EQ(HalfFromDouble(1 + 3 * P2(-11) - P2(-40)), 0x3C01);  // just below a tie: down
  EXPECT_EQ(HalfFromDouble(0.1), 0x2E66);
}

TEST(DTypeValuesTest, HalfRoundsInOneStepNotThroughFloat) {
  // Through float, 2^-30 is lost (float's half ulp at 1 is 2^-24), leaving an exact tie that
  // rounds down to 1.0. The double itself is above the tie, so it must round up.
  const double d = 1 + P2(-11) + P2(-30);
  ASSERT_EQ(static_cast<double>(static_cast<float>(d)), 1 + P2(-11));
  EXPECT_EQ(HalfFromDouble(d), 0x3C01);
}

TEST(DTypeValuesTest, HalfOverflowsToInfinityOnlyPastTheTie) {
  EXPECT_EQ(HalfFromDouble(65504.0), 0x7BFF);
  EXPECT_EQ(HalfFromDouble(65519.99), 0x7BFF);
  EXPECT_EQ(HalfFromDouble(65520.0), 0x7C00);  // tie between 65504 (odd) and 2^16: inf
  EXPECT_EQ(HalfFromDouble(-65520.0), 0xFC00);
  EXPECT_EQ(HalfFromDouble(1e300), 0x7C00);
  EXPECT_EQ(HalfFromDouble(std::numeric_limits<double>::infinity()), 0x7C00);
  EXPECT_EQ(HalfFromDouble(-std::numeric_limits<double>::infinity()), 0xFC00);
}

TEST(DTypeValuesTest, HalfSubnormalsZerosAndNan) {
  EXPECT_EQ(HalfFromDouble(P2(-24)), 0x0001);
  EXPECT_EQ(HalfFromDouble(P2(-25)), 0x0000);  // tie between 0 and 2^-24: 0
  EXPECT_EQ(HalfFromDouble(P2(-25) + P2(-60)), 0x0001);
  EXPECT_EQ(HalfFromDouble(3 * P2(-25)), 0x0002);       // tie between 1 and 2 ulps: 2
  EXPECT_EQ(HalfFromDouble(1023.5 * P2(-24)), 0x0400);  // largest subnormal rounds to normal
  EXPECT_EQ(HalfFromDouble(-P2(-24)), 0x8001);
  EXPECT_EQ(HalfFromDouble(1e-300), 0x0000);
  EXPECT_EQ(HalfFromDouble(-1e-300), 0x8000);
  EXPECT_EQ(HalfFromDouble(std::numeric_limits<double>::denorm_min()), 0x0000);
  EXPECT_EQ(HalfFromDouble(0.0), 0x0000);
  EXPECT_EQ(HalfFromDouble(-0.0), 0x8000);
  EXPECT_TRUE(std::signbit(HalfToDouble(0x8000)));
  EXPECT_EQ(HalfToDouble(0x8000), 0.0);
  const uint16_t nan = HalfFromDouble(std::numeric_limits<double>::quiet_NaN());
  EXPECT_TRUE(HalfIsNan(nan));
  EXPECT_NE(nan & 0x0200, 0);  // quiet
  EXPECT_EQ(HalfFromDouble(-std::numeric_limits<double>::quiet_NaN()) & 0x8000, 0x8000);
}

TEST(DTypeValuesTest, HalfMatchesABruteForceNearestValue) {
  std::vector<double> table;  // every finite non-negative half, by pattern
  for (uint16_t b = 0; b <= 0x7BFF; ++b) table.push_back(HalfToDouble(b));
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int> pick(1, 0x7BFF);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  for (int i = 0; i < 3000; ++i) {
    const int b = pick(rng);
    const double mid = (table[b - 1] + table[b]) / 2;  // exact: one more bit than half
    const double step = table[b] - table[b - 1];
    const double x = i % 3 == 0 ? mid : mid + unit(rng) * step * (i % 3 == 1 ? 1e-9 : 1.0);
    if (x < 0 || x > 65504.0) continue;
    ASSERT_EQ(HalfFromDouble(x), NearestByTable(table, x)) << x;
  }
}

// --- bfloat16 ---

TEST(DTypeValuesTest, EveryBFloat16PatternRoundTripsAndMatchesFloatBits) {
  for (uint32_t b = 0; b <= 0xFFFF; ++b) {
    const uint16_t bits = static_cast<uint16_t>(b);
    const double d = BFloat16ToDouble(bits);
    const uint32_t f_bits = b << 16;  // independent decoding: bf16 is a float's top half
    float f;
    std::memcpy(&f, &f_bits, sizeof(f));
    if (BF16IsNan(bits)) {
      EXPECT_TRUE(std::isnan(d)) << std::hex << b;
      EXPECT_TRUE(BF16IsNan(BFloat16FromDouble(d))) << std::hex << b;
    } else {
      EXPECT_EQ(d, static_cast<double>(f)) << std::hex << b;
      EXPECT_EQ(std::signbit(d), std::signbit(f)) << std::hex << b;
      EXPECT_EQ(BFloat16FromDouble(d), bits) << std::hex << b;
    }
  }
}

TEST(DTypeValuesTest, BFloat16RoundsTiesToEvenAndInOneStep) {
  EXPECT_EQ(BFloat16FromDouble(1 + P2(-8)), 0x3F80);      // tie: 1.0 (even)
  EXPECT_EQ(BFloat16FromDouble(1 + 3 * P2(-8)), 0x3F82);  // tie: 1+2^-6 (even)
  EXPECT_EQ(BFloat16FromDouble(1 + P2(-8) + P2(-40)), 0x3F81);
  EXPECT_EQ(BFloat16FromDouble(1 + 3 * P2(-8) - P2(-40)), 0x3F81);
  EXPECT_EQ(BFloat16FromDouble(3.141592653589793), 0x4049);  // 3.140625
  // Via float the 2^-30 vanishes and the exact tie rounds down; the double is above the tie.
  const double d = 1 + P2(-8) + P2(-30);
  ASSERT_EQ(static_cast<double>(static_cast<float>(d)), 1 + P2(-8));
  EXPECT_EQ(BFloat16FromDouble(d), 0x3F81);
}

TEST(DTypeValuesTest, BFloat16OverflowSubnormalsZerosAndNan) {
  const double max = BFloat16ToDouble(0x7F7F);
  const double tie = (2 - P2(-8)) * P2(127);
  EXPECT_EQ(BFloat16FromDouble(max), 0x7F7F);
  EXPECT_EQ(BFloat16FromDouble(tie - P2(100)), 0x7F7F);
  EXPECT_EQ(BFloat16FromDouble(tie), 0x7F80);  // tie between 0x7F7F (odd) and 2^128: inf
  EXPECT_EQ(BFloat16FromDouble(FLT_MAX), 0x7F80);
  EXPECT_EQ(BFloat16FromDouble(-1e300), 0xFF80);
  EXPECT_EQ(BFloat16FromDouble(P2(-133)), 0x0001);
  EXPECT_EQ(BFloat16FromDouble(P2(-134)), 0x0000);
  EXPECT_EQ(BFloat16FromDouble(3 * P2(-134)), 0x0002);
  EXPECT_EQ(BFloat16FromDouble(-0.0), 0x8000);
  EXPECT_TRUE(std::signbit(BFloat16ToDouble(0x8000)));
  const uint16_t nan = BFloat16FromDouble(std::numeric_limits<double>::quiet_NaN());
  EXPECT_TRUE(BF16IsNan(nan));
  EXPECT_NE(nan & 0x0040, 0);  // quiet
}

TEST(DTypeValuesTest, BFloat16MatchesABruteForceNearestValue) {
  std::vector<double> table;
  for (uint16_t b = 0; b <= 0x7F7F; ++b) table.push_back(BFloat16ToDouble(b));
  std::mt19937_64 rng(11);
  std::uniform_int_distribution<int> pick(0x3000, 0x4800);  // 2^-31 .. 2^17: keep search short
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  for (int i = 0; i < 600; ++i) {
    const int b = i % 5 == 0 ? 1 + i % 200 : pick(rng);  // some subnormals too
    const double mid = (table[b - 1] + table[b]) / 2;
    const double step = table[b] - table[b - 1];
    const double x = i % 3 == 0 ? mid : mid + unit(rng) * step * (i % 3 == 1 ? 1e-9 : 1.0);
    ASSERT_EQ(BFloat16FromDouble(x), NearestByTable(table, x)) << x;
  }
}

// --- float ---

TEST(DTypeValuesTest, FloatStoreMatchesTheHardwareCastAndHandlesOverflow) {
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> mant(-2.0, 2.0);
  std::uniform_int_distribution<int> exp(-160, 127);
  for (int i = 0; i < 20000; ++i) {
    const double v = std::ldexp(mant(rng), exp(rng));
    const float f = static_cast<float>(v);
    uint32_t want;
    std::memcpy(&want, &f, sizeof(want));
    ASSERT_EQ(StoredBits(DType::kF32, v), want) << v;
    ASSERT_EQ(LoadElement(DType::kF32, &f, 0), static_cast<double>(f));
  }
  constexpr float kFloatNan = std::numeric_limits<float>::quiet_NaN();
  const double tie = P2(128) - P2(103);  // halfway from FLT_MAX to 2^128
  EXPECT_EQ(StoredBits(DType::kF32, tie - P2(80)), 0x7F7FFFFFu);
  EXPECT_EQ(StoredBits(DType::kF32, tie), 0x7F800000u);
  EXPECT_EQ(StoredBits(DType::kF32, -1e39), 0xFF800000u);
  EXPECT_EQ(StoredBits(DType::kF32, P2(-149)), 1u);
  EXPECT_EQ(StoredBits(DType::kF32, P2(-150)), 0u);
  EXPECT_EQ(StoredBits(DType::kF32, -0.0), 0x80000000u);
  EXPECT_TRUE(std::isnan(LoadElement(DType::kF32, &kFloatNan, 0)));
  EXPECT_TRUE(std::isnan(static_cast<float>(LoadElement(DType::kF32, &kFloatNan, 0))));
}

// --- loads and stores ---

TEST(DTypeValuesTest, StoreAndLoadAddressTheirElementUnaligned) {
  for (DType d : kAllDTypes) {
    unsigned char buf[1 + 3 * 8] = {};
    void* base = buf + 1;  // deliberately misaligned
    StoreElement(d, base, 0, 1.0);
    StoreElement(d, base, 1, 100.0);
    StoreElement(d, base, 2, 3.0);
    StoreElement(d, base, 1, 7.0);  // overwrites only element 1
    EXPECT_EQ(LoadElement(d, base, 0), 1.0) << DTypeName(d);
    EXPECT_EQ(LoadElement(d, base, 1), 7.0) << DTypeName(d);
    EXPECT_EQ(LoadElement(d, base, 2), 3.0) << DTypeName(d);
    EXPECT_EQ(buf[0], 0) << DTypeName(d);
  }
  unsigned char h[2] = {0x00, 0x3C};  // little-endian half 1.0
  EXPECT_EQ(LoadElement(DType::kF16, h, 0), 1.0);
  unsigned char bf[2] = {0x49, 0x40};  // bfloat16 3.140625
  EXPECT_EQ(LoadElement(DType::kBF16, bf, 0), 3.140625);
  EXPECT_EQ(StoredBits(DType::kF16, 1 + P2(-11) + P2(-30)), 0x3C01u);
  EXPECT_EQ(StoredBits(DType::kBF16, 1 + P2(-8) + P2(-30)), 0x3F81u);
}

TEST(DTypeValuesTest, Int8RoundsToNearestEvenAndSaturates) {
  EXPECT_EQ(StoredI8(2.5), 2);
  EXPECT_EQ(StoredI8(3.5), 4);
  EXPECT_EQ(StoredI8(-2.5), -2);
  EXPECT_EQ(StoredI8(2.6), 3);
  EXPECT_EQ(StoredI8(-2.6), -3);
  EXPECT_EQ(StoredI8(0.5), 0);
  EXPECT_EQ(StoredI8(-0.5), 0);
  EXPECT_EQ(StoredI8(127.4), 127);
  EXPECT_EQ(StoredI8(127.5), 127);
  EXPECT_EQ(StoredI8(1000), 127);
  EXPECT_EQ(StoredI8(-128.5), -128);
  EXPECT_EQ(StoredI8(-1000), -128);
  EXPECT_EQ(StoredI8(std::numeric_limits<double>::infinity()), 127);
  EXPECT_EQ(StoredI8(-std::numeric_limits<double>::infinity()), -128);
  EXPECT_EQ(StoredI8(std::numeric_limits<double>::quiet_NaN()), 0);
  const int8_t raw = -77;
  EXPECT_EQ(LoadElement(DType::kI8, &raw, 0), -77.0);
}

TEST(DTypeValuesTest, Uint8RoundsAndSaturates) {
  EXPECT_EQ(StoredBits(DType::kU8, -1), 0u);
  EXPECT_EQ(StoredBits(DType::kU8, -0.4), 0u);
  EXPECT_EQ(StoredBits(DType::kU8, 253.5), 254u);
  EXPECT_EQ(StoredBits(DType::kU8, 254.5), 254u);
  EXPECT_EQ(StoredBits(DType::kU8, 255.4), 255u);
  EXPECT_EQ(StoredBits(DType::kU8, 256), 255u);
  EXPECT_EQ(StoredBits(DType::kU8, std::numeric_limits<double>::quiet_NaN()), 0u);
  const uint8_t raw = 200;
  EXPECT_EQ(LoadElement(DType::kU8, &raw, 0), 200.0);
}

TEST(DTypeValuesTest, Int32RoundsAndSaturates) {
  EXPECT_EQ(StoredI32(-3.5), -4);
  EXPECT_EQ(StoredI32(123456.5), 123456);
  EXPECT_EQ(StoredI32(2147483647.0), INT32_MAX);
  EXPECT_EQ(StoredI32(2147483647.4), INT32_MAX);
  EXPECT_EQ(StoredI32(2147483648.0), INT32_MAX);
  EXPECT_EQ(StoredI32(1e10), INT32_MAX);
  EXPECT_EQ(StoredI32(-2147483648.0), INT32_MIN);
  EXPECT_EQ(StoredI32(-2147483649.0), INT32_MIN);
  EXPECT_EQ(StoredI32(std::numeric_limits<double>::quiet_NaN()), 0);
  const int32_t raw = INT32_MIN;
  EXPECT_EQ(LoadElement(DType::kI32, &raw, 0), -2147483648.0);
}

TEST(DTypeValuesTest, Int64RoundsAndSaturates) {
  EXPECT_EQ(StoredI64(P2(53) + 2), (int64_t{1} << 53) + 2);
  EXPECT_EQ(StoredI64(1e18), int64_t{1000000000000000000});
  EXPECT_EQ(StoredI64(-5.5), -6);
  EXPECT_EQ(StoredI64(P2(63) - P2(10)), INT64_MAX - 1023);  // largest double below 2^63
  EXPECT_EQ(StoredI64(P2(63)), INT64_MAX);
  EXPECT_EQ(StoredI64(1e19), INT64_MAX);
  EXPECT_EQ(StoredI64(-P2(63)), INT64_MIN);
  EXPECT_EQ(StoredI64(-1e19), INT64_MIN);
  EXPECT_EQ(StoredI64(std::numeric_limits<double>::infinity()), INT64_MAX);
  EXPECT_EQ(StoredI64(std::numeric_limits<double>::quiet_NaN()), 0);
  const int64_t raw = (int64_t{1} << 53) + 1;  // not a double: loads as the nearest, 2^53
  EXPECT_EQ(LoadElement(DType::kI64, &raw, 0), P2(53));
  const int64_t min = INT64_MIN;
  EXPECT_EQ(LoadElement(DType::kI64, &min, 0), -P2(63));
}

// --- classification and limits ---

TEST(DTypeValuesTest, OnlyTheThreeFloatTypesAreFloat) {
  EXPECT_TRUE(DTypeIsFloat(DType::kF32));
  EXPECT_TRUE(DTypeIsFloat(DType::kF16));
  EXPECT_TRUE(DTypeIsFloat(DType::kBF16));
  for (DType d : {DType::kI8, DType::kU8, DType::kI32, DType::kI64}) {
    EXPECT_FALSE(DTypeIsFloat(d)) << DTypeName(d);
  }
}

TEST(DTypeValuesTest, FloatLimitsAreTheFormatsExtremes) {
  const DTypeLimits h = Limits(DType::kF16);
  EXPECT_EQ(h.max, 65504.0);
  EXPECT_EQ(h.lowest, -65504.0);
  EXPECT_EQ(h.min_normal, P2(-14));
  EXPECT_EQ(h.min_subnormal, P2(-24));
  EXPECT_EQ(h.epsilon, P2(-10));
  EXPECT_EQ(h.epsilon, HalfToDouble(0x3C01) - 1);

  const DTypeLimits b = Limits(DType::kBF16);
  EXPECT_EQ(b.max, (2 - P2(-7)) * P2(127));
  EXPECT_EQ(b.max, BFloat16ToDouble(0x7F7F));
  EXPECT_EQ(b.lowest, -b.max);
  EXPECT_EQ(b.min_normal, P2(-126));
  EXPECT_EQ(b.min_subnormal, P2(-133));
  EXPECT_EQ(b.min_subnormal, BFloat16ToDouble(0x0001));
  EXPECT_EQ(b.epsilon, P2(-7));

  const DTypeLimits f = Limits(DType::kF32);
  EXPECT_EQ(f.max, static_cast<double>(FLT_MAX));
  EXPECT_EQ(f.lowest, -static_cast<double>(FLT_MAX));
  EXPECT_EQ(f.min_normal, static_cast<double>(FLT_MIN));
  EXPECT_EQ(f.min_subnormal, P2(-149));
  EXPECT_EQ(f.min_subnormal, static_cast<double>(std::numeric_limits<float>::denorm_min()));
  EXPECT_EQ(f.epsilon, static_cast<double>(FLT_EPSILON));
}

TEST(DTypeValuesTest, IntegerLimitsAreTheRangeWithUnitSpacing) {
  struct Want {
    DType dtype;
    double lowest, max;
  };
  for (const Want& w : {Want{DType::kI8, -128, 127}, Want{DType::kU8, 0, 255},
                        Want{DType::kI32, -2147483648.0, 2147483647.0},
                        Want{DType::kI64, -P2(63), P2(63)}}) {
    const DTypeLimits l = Limits(w.dtype);
    EXPECT_EQ(l.lowest, w.lowest) << DTypeName(w.dtype);
    EXPECT_EQ(l.max, w.max) << DTypeName(w.dtype);
    EXPECT_EQ(l.min_normal, 1.0) << DTypeName(w.dtype);
    EXPECT_EQ(l.min_subnormal, 1.0) << DTypeName(w.dtype);
    EXPECT_EQ(l.epsilon, 1.0) << DTypeName(w.dtype);
  }
}

}  // namespace
}  // namespace cannbot::ops
