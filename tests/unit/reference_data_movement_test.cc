// Reference concat, split, permute_0213, quantize_int8, dequantize_int8, nchw_to_nc1hwc0 and
// cast_f32_bf16 against hand-picked values and independent formulations: inverse operations,
// other references (transpose), the float arithmetic of the C++ compiler and the bit-level
// rounding recipe.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "cannbot/ops/reference/cast_f32_bf16.h"
#include "cannbot/ops/reference/concat.h"
#include "cannbot/ops/reference/dequantize_int8.h"
#include "cannbot/ops/reference/nchw_to_nc1hwc0.h"
#include "cannbot/ops/reference/permute_0213.h"
#include "cannbot/ops/reference/quantize_int8.h"
#include "cannbot/ops/reference/split.h"
#include "cannbot/ops/reference/transpose.h"

namespace cannbot_data_movement_test {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

uint32_t Bits(float v) {
  uint32_t u;
  std::memcpy(&u, &v, sizeof u);
  return u;
}

float FromBits(uint32_t u) {
  float v;
  std::memcpy(&v, &u, sizeof v);
  return v;
}

bool SameBits(float a, float b) { return Bits(a) == Bits(b); }

// Normal values with some signed zeros, subnormals and huge floats mixed in, so that every
// bit-for-bit copy is checked on the values a float-arithmetic copy would disturb.
std::vector<float> Values(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> d(0.0, 10.0);
  const float specials[] = {0.0f, -0.0f, 1e-45f, -1e-45f, 3e38f, -3e38f};
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = i % 7 == 3 ? specials[(i / 7) % 6] : static_cast<float>(d(rng));
  return v;
}

// ---------------------------------------------------------------------------------- concat

TEST(ReferenceConcatTest, HandPickedValues) {
  // rows = 2, ca = 2, cb = 1.
  const std::vector<float> a = {1.0f, 2.0f, 3.0f, 4.0f};
  const std::vector<float> b = {-0.0f, 1e-45f};
  std::vector<float> y(6, -123.0f);
  cannbot_ref::concat(a.data(), b.data(), y.data(), 2, 2, 1);
  const std::vector<float> want = {1.0f, 2.0f, -0.0f, 3.0f, 4.0f, 1e-45f};
  for (size_t i = 0; i < y.size(); ++i) EXPECT_TRUE(SameBits(y[i], want[i])) << i;
}

TEST(ReferenceConcatTest, SplitUndoesConcatBitForBit) {
  const int64_t shapes[][3] = {{1, 1, 1}, {37, 19, 13}, {5, 1, 30}, {3, 30, 1}, {64, 257, 263}};
  for (const auto& s : shapes) {
    const int64_t rows = s[0], ca = s[1], cb = s[2];
    const std::vector<float> a = Values(static_cast<size_t>(rows * ca), 1);
    const std::vector<float> b = Values(static_cast<size_t>(rows * cb), 2);
    std::vector<float> y(static_cast<size_t>(rows * (ca + cb)), -123.0f);
    cannbot_ref::concat(a.data(), b.data(), y.data(), rows, ca, cb);
    std::vector<float> a2(a.size(), -1.0f), b2(b.size(), -1.0f);
    cannbot_ref::split(y.data(), a2.data(), b2.data(), rows, ca, cb);
    for (size_t i = 0; i < a.size(); ++i) ASSERT_TRUE(SameBits(a[i], a2[i])) << rows << " " << ca << " " << i;
    for (size_t i = 0; i < b.size(); ++i) ASSERT_TRUE(SameBits(b[i], b2[i])) << rows << " " << cb << " " << i;
    // Concatenating along the last axis is the transposes' concatenation along the first:
    // concat(a, b) = transpose([a^T; b^T]), with [a^T; b^T] the two buffers back to back.
    std::vector<float> stacked(y.size());
    cannbot_ref::transpose(a.data(), stacked.data(), rows, ca);
    cannbot_ref::transpose(b.data(), stacked.data() + rows * ca, rows, cb);
    std::vector<float> via(y.size(), -1.0f);
    cannbot_ref::transpose(stacked.data(), via.data(), ca + cb, rows);
    for (size_t i = 0; i < y.size(); ++i) ASSERT_TRUE(SameBits(y[i], via[i])) << i;
  }
}

// ----------------------------------------------------------------------------------- split

TEST(ReferenceSplitTest, HandPickedValues) {
  // rows = 2, ca = 1, cb = 2.
  const std::vector<float> x = {1.0f, -0.0f, 3e38f, 4.0f, 5.0f, -1e-45f};
  std::vector<float> y0(2, -123.0f), y1(4, -123.0f);
  cannbot_ref::split(x.data(), y0.data(), y1.data(), 2, 1, 2);
  const std::vector<float> want0 = {1.0f, 4.0f};
  const std::vector<float> want1 = {-0.0f, 3e38f, 5.0f, -1e-45f};
  for (size_t i = 0; i < y0.size(); ++i) EXPECT_TRUE(SameBits(y0[i], want0[i])) << i;
  for (size_t i = 0; i < y1.size(); ++i) EXPECT_TRUE(SameBits(y1[i], want1[i])) << i;
}

TEST(ReferenceSplitTest, ConcatUndoesSplitBitForBit) {
  const int64_t shapes[][3] = {{1, 1, 1}, {37, 19, 13}, {999, 1, 1}, {65, 3, 1021}};
  for (const auto& s : shapes) {
    const int64_t rows = s[0], ca = s[1], cb = s[2];
    const std::vector<float> x = Values(static_cast<size_t>(rows * (ca + cb)), 3);
    std::vector<float> y0(static_cast<size_t>(rows * ca), -123.0f), y1(static_cast<size_t>(rows * cb), -123.0f);
    cannbot_ref::split(x.data(), y0.data(), y1.data(), rows, ca, cb);
    std::vector<float> back(x.size(), -1.0f);
    cannbot_ref::concat(y0.data(), y1.data(), back.data(), rows, ca, cb);
    for (size_t i = 0; i < x.size(); ++i) ASSERT_TRUE(SameBits(x[i], back[i])) << rows << " " << i;
  }
}

// ---------------------------------------------------------------------------- permute_0213

TEST(ReferencePermute0213Test, HandPickedValues) {
  // b = 1, s = 2, h = 3, d = 2: x[j][k][l] = 100 j + 10 k + l, so y[k][j][l] must hold it.
  std::vector<float> x(12);
  for (int j = 0; j < 2; ++j)
    for (int k = 0; k < 3; ++k)
      for (int l = 0; l < 2; ++l) x[(j * 3 + k) * 2 + l] = static_cast<float>(100 * j + 10 * k + l);
  std::vector<float> y(12, -123.0f);
  cannbot_ref::permute_0213(x.data(), y.data(), 1, 2, 3, 2);
  const std::vector<float> want = {0, 1, 100, 101, 10, 11, 110, 111, 20, 21, 120, 121};
  for (size_t i = 0; i < y.size(); ++i) EXPECT_EQ(y[i], want[i]) << i;
}

TEST(ReferencePermute0213Test, MatchesBatchedTransposeAndIsItsOwnInverse) {
  const int64_t shapes[][4] = {{1, 1, 1, 1}, {3, 37, 5, 19}, {2, 129, 1, 33}, {2, 301, 7, 1}, {2, 16, 12, 64}};
  for (const auto& sh : shapes) {
    const int64_t b = sh[0], s = sh[1], h = sh[2], d = sh[3];
    const std::vector<float> x = Values(static_cast<size_t>(b * s * h * d), 4);
    std::vector<float> y(x.size(), -123.0f);
    cannbot_ref::permute_0213(x.data(), y.data(), b, s, h, d);
    // Independent: per batch and per head-dim lane, y is the transpose of the [s, h] matrix.
    for (int64_t i = 0; i < b; ++i) {
      for (int64_t l = 0; l < d; ++l) {
        std::vector<float> m(static_cast<size_t>(s * h)), t(static_cast<size_t>(s * h));
        for (int64_t j = 0; j < s; ++j)
          for (int64_t k = 0; k < h; ++k) m[j * h + k] = x[((i * s + j) * h + k) * d + l];
        cannbot_ref::transpose(m.data(), t.data(), s, h);
        for (int64_t k = 0; k < h; ++k)
          for (int64_t j = 0; j < s; ++j)
            ASSERT_TRUE(SameBits(y[((i * h + k) * s + j) * d + l], t[k * s + j])) << i << " " << j << " " << k << " " << l;
      }
    }
    // Swapping the axes back ([b, h, s, d] -> [b, s, h, d]) restores x exactly.
    std::vector<float> back(x.size(), -1.0f);
    cannbot_ref::permute_0213(y.data(), back.data(), b, h, s, d);
    for (size_t i = 0; i < x.size(); ++i) ASSERT_TRUE(SameBits(x[i], back[i])) << i;
  }
}

// --------------------------------------------------------------------------- quantize_int8

std::vector<int8_t> Quantize(const std::vector<float>& x, float scale) {
  std::vector<int8_t> y(x.size(), 99);
  cannbot_ref::quantize_int8(x.data(), y.data(), static_cast<int64_t>(x.size()), scale);
  return y;
}

TEST(ReferenceQuantizeInt8Test, HandPickedValues) {
  const float scale = 0.0625f;
  // Quotients: 0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.49, 127.5, -128.5, 127, -128, 1000/16,
  // 16000, huge (3e38 / 0.0625 overflows to inf), zeros, the smallest subnormal.
  const std::vector<float> x = {0.03125f, 0.09375f, 0.15625f, -0.03125f, -0.09375f, -0.15625f,
                                3.49f * 0.0625f, 7.96875f, -8.03125f, 7.9375f, -8.0f, 1000.0f * 0.0625f,
                                1000.0f, 3e38f, -3e38f, 0.0f, -0.0f, 1e-45f, -kInf, kInf};
  const std::vector<int> want = {0, 2, 2, 0, -2, -2, 3, 127, -128, 127, -128, 127,
                                 127, 127, -128, 0, 0, 0, -128, 127};
  const std::vector<int8_t> y = Quantize(x, scale);
  for (size_t i = 0; i < x.size(); ++i) EXPECT_EQ(static_cast<int>(y[i]), want[i]) << i << " x=" << x[i];
  // A scale that is not a power of two: 0.1 / 0.05 is 2 in float, 0.074 / 0.05 = 1.48 -> 1.
  const std::vector<int8_t> z = Quantize({0.1f, 0.074f, -0.076f, 6.4f, -6.4f}, 0.05f);
  EXPECT_EQ(z[0], 2);
  EXPECT_EQ(z[1], 1);
  EXPECT_EQ(z[2], -2);
  EXPECT_EQ(z[3], 127);  // 128 saturates
  EXPECT_EQ(z[4], -128);
}

// Independent: the float division and std::nearbyint (ties to even in the default rounding
// mode), clamped before the conversion.
int FloatQuantize(float x, float scale) {
  float q = std::nearbyint(x / scale);
  if (q > 127.0f) q = 127.0f;
  if (q < -128.0f) q = -128.0f;
  return static_cast<int>(q);
}

TEST(ReferenceQuantizeInt8Test, MatchesFloatDivisionAndNearbyint) {
  std::mt19937_64 rng(5);
  std::normal_distribution<double> normal(0.0, 4.0);
  std::uniform_int_distribution<int> half_steps(-600, 600);
  const float scales[] = {0.0625f, 0.05f, 0.001f, 0.0173f, 1.0f, 3.7f, 1e-6f, 1e6f};
  for (float scale : scales) {
    std::vector<float> x;
    for (int i = 0; i < 20000; ++i) {
      if (i % 3 == 0) {
        // Exactly k/2 * scale where that is representable: ties and near-ties.
        x.push_back(static_cast<float>(half_steps(rng) * 0.5) * scale);
      } else if (i % 3 == 1) {
        x.push_back(static_cast<float>(normal(rng)) * scale * 10.0f);
      } else {
        x.push_back(static_cast<float>(normal(rng)));
      }
    }
    for (float e : {0.0f, -0.0f, 1e-45f, -1e-45f, 3e38f, -3e38f, kInf, -kInf}) x.push_back(e);
    const std::vector<int8_t> y = Quantize(x, scale);
    for (size_t i = 0; i < x.size(); ++i) {
      ASSERT_EQ(static_cast<int>(y[i]), FloatQuantize(x[i], scale)) << "scale " << scale << " x " << x[i];
    }
  }
}

// ------------------------------------------------------------------------- dequantize_int8

TEST(ReferenceDequantizeInt8Test, HandPickedValues) {
  const std::vector<int8_t> x = {0, 1, -1, 127, -128, 64};
  std::vector<float> y(x.size(), -123.0f);
  cannbot_ref::dequantize_int8(x.data(), y.data(), static_cast<int64_t>(x.size()), 0.0625f);
  const std::vector<float> want = {0.0f, 0.0625f, -0.0625f, 7.9375f, -8.0f, 4.0f};
  for (size_t i = 0; i < y.size(); ++i) EXPECT_TRUE(SameBits(y[i], want[i])) << i;  // 0 -> +0
  cannbot_ref::dequantize_int8(x.data(), y.data(), 2, 0.05f);
  EXPECT_EQ(y[1], 0.05f);
}

TEST(ReferenceDequantizeInt8Test, MatchesFloatProductOnEveryInt8) {
  const float scales[] = {0.05f, 0.0078125f, 12345.678f, 1e-6f, 1e6f, 0.1f, 3.0f};
  std::vector<int8_t> x;
  for (int v = -128; v <= 127; ++v) x.push_back(static_cast<int8_t>(v));
  for (float scale : scales) {
    std::vector<float> y(x.size(), -123.0f);
    cannbot_ref::dequantize_int8(x.data(), y.data(), static_cast<int64_t>(x.size()), scale);
    for (size_t i = 0; i < x.size(); ++i) {
      volatile float widened = static_cast<float>(x[i]);
      const float want = widened * scale;
      ASSERT_TRUE(SameBits(y[i], want)) << scale << " " << static_cast<int>(x[i]);
    }
    // Quantising back recovers every value (round trip through the same scale).
    const std::vector<int8_t> back = Quantize(y, scale);
    for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(back[i], x[i]) << scale;
  }
}

// ------------------------------------------------------------------------- nchw_to_nc1hwc0

TEST(ReferenceNchwToNc1hwc0Test, HandPickedValues) {
  // n = 1, c = 17, h = 1, w = 2: x[ch][q] = 10 ch + q. c1 = 2; the second block holds channel
  // 16 in lane 0 and +0 in lanes 1..15.
  std::vector<float> x(34);
  for (int ch = 0; ch < 17; ++ch)
    for (int q = 0; q < 2; ++q) x[ch * 2 + q] = static_cast<float>(10 * ch + q);
  std::vector<float> y(2 * 2 * 16, -123.0f);
  cannbot_ref::nchw_to_nc1hwc0(x.data(), y.data(), 1, 17, 1, 2);
  for (int q = 0; q < 2; ++q) {
    for (int m = 0; m < 16; ++m) EXPECT_EQ(y[q * 16 + m], static_cast<float>(10 * m + q)) << q << " " << m;
    EXPECT_EQ(y[(2 + q) * 16], static_cast<float>(160 + q));
    for (int m = 1; m < 16; ++m) EXPECT_TRUE(SameBits(y[(2 + q) * 16 + m], 0.0f)) << q << " " << m;
  }
}

TEST(ReferenceNchwToNc1hwc0Test, IsATransposePerBlockAndPadsWithPositiveZero) {
  const int64_t shapes[][4] = {{1, 1, 1, 1}, {2, 19, 7, 9}, {1, 16, 13, 11}, {2, 3, 33, 35}, {2, 72, 5, 6}};
  for (const auto& sh : shapes) {
    const int64_t n = sh[0], c = sh[1], h = sh[2], w = sh[3];
    const int64_t c1n = (c + 15) / 16, hw = h * w;
    const std::vector<float> x = Values(static_cast<size_t>(n * c * hw), 6);
    std::vector<float> y(static_cast<size_t>(n * c1n * hw * 16), -123.0f);
    cannbot_ref::nchw_to_nc1hwc0(x.data(), y.data(), n, c, h, w);
    // Independent: zero-pad each image to [c1*16, h*w]; block k of y is then the transpose of
    // rows 16k .. 16k+15 of that matrix, [16, h*w] -> [h*w, 16].
    for (int64_t i = 0; i < n; ++i) {
      std::vector<float> padded(static_cast<size_t>(c1n * 16 * hw), 0.0f);
      std::memcpy(padded.data(), x.data() + i * c * hw, static_cast<size_t>(c * hw) * sizeof(float));
      for (int64_t k = 0; k < c1n; ++k) {
        std::vector<float> t(static_cast<size_t>(16 * hw));
        cannbot_ref::transpose(padded.data() + k * 16 * hw, t.data(), 16, hw);
        const float* block = y.data() + (i * c1n + k) * hw * 16;
        for (int64_t e = 0; e < 16 * hw; ++e) ASSERT_TRUE(SameBits(block[e], t[e])) << i << " " << k << " " << e;
      }
    }
  }
}

// --------------------------------------------------------------------------- cast_f32_bf16

float CastBf16(float v) {
  float y = -123.0f;
  cannbot_ref::cast_f32_bf16(&v, &y, 1);
  return y;
}

TEST(ReferenceCastF32Bf16Test, HandPickedValues) {
  EXPECT_EQ(CastBf16(1.0f), 1.0f);
  EXPECT_EQ(CastBf16(1.00390625f), 1.0f);              // 1 + 2^-8: tie -> even (1)
  EXPECT_EQ(CastBf16(1.01171875f), 1.015625f);         // 1 + 3 * 2^-8: tie -> even (1 + 2^-6)
  EXPECT_EQ(CastBf16(FromBits(0x3F808001u)), 1.0078125f);  // just above the tie: up
  EXPECT_EQ(CastBf16(257.0f), 256.0f);
  EXPECT_EQ(CastBf16(259.0f), 260.0f);
  EXPECT_EQ(CastBf16(-257.0f), -256.0f);
  EXPECT_EQ(CastBf16(-259.0f), -260.0f);
  EXPECT_EQ(CastBf16(0.1f), FromBits(0x3DCD0000u));   // 0x3DCCCCCD: bit 15 set, rounds up
  const float max_bf16 = FromBits(0x7F7F0000u);
  EXPECT_EQ(CastBf16(max_bf16), max_bf16);
  EXPECT_EQ(CastBf16(FromBits(0x7F7F7FFFu)), max_bf16);   // just below the tie to inf
  EXPECT_EQ(CastBf16(FromBits(0x7F7F8000u)), kInf);       // the tie: to even, which is inf
  EXPECT_EQ(CastBf16(std::numeric_limits<float>::max()), kInf);
  EXPECT_EQ(CastBf16(-kInf), -kInf);
  EXPECT_TRUE(std::isnan(CastBf16(std::numeric_limits<float>::quiet_NaN())));
  // Subnormals: bf16's are multiples of 2^-133 = bits 0x00010000.
  EXPECT_EQ(CastBf16(FromBits(0x00010000u)), FromBits(0x00010000u));
  EXPECT_EQ(CastBf16(FromBits(0x00018000u)), FromBits(0x00020000u));  // tie -> even (2)
  EXPECT_EQ(CastBf16(FromBits(0x00028000u)), FromBits(0x00020000u));  // tie -> even (2)
  EXPECT_TRUE(SameBits(CastBf16(FromBits(0x00008000u)), 0.0f));      // 2^-134: tie -> 0
  EXPECT_EQ(CastBf16(FromBits(0x00008001u)), FromBits(0x00010000u));
  EXPECT_TRUE(SameBits(CastBf16(1e-45f), 0.0f));
  EXPECT_TRUE(SameBits(CastBf16(-1e-45f), -0.0f));
  EXPECT_TRUE(SameBits(CastBf16(-0.0f), -0.0f));
  EXPECT_EQ(CastBf16(FromBits(0x007FFFFFu)), FromBits(0x00800000u));  // largest subnormal -> min normal
}

// Independent: the usual bit recipe, add 0x7fff plus the lowest kept bit, keep the top 16 bits.
float BitRecipeBf16(float v) { return FromBits(((Bits(v) + 0x7FFFu + ((Bits(v) >> 16) & 1u)) >> 16) << 16); }

TEST(ReferenceCastF32Bf16Test, MatchesBitRecipeOnEveryBinade) {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<uint32_t> low_bits(0, 0xFFFFu);
  std::uniform_int_distribution<uint32_t> any(0, 0xFFFFFFFFu);
  std::vector<float> x;
  // Every exponent (subnormals included), both signs, every kept pattern's neighbourhood of
  // the tie (low 16 bits 0x7FFF, 0x8000, 0x8001), and random low bits.
  for (uint32_t sign = 0; sign < 2; ++sign) {
    for (uint32_t exponent = 0; exponent < 255; ++exponent) {
      for (uint32_t kept = 0; kept < 128; kept += 3) {
        const uint32_t base = (sign << 31) | (exponent << 23) | (kept << 16);
        for (uint32_t low : {0x0000u, 0x7FFFu, 0x8000u, 0x8001u, 0xFFFFu, low_bits(rng)}) x.push_back(FromBits(base | low));
      }
    }
  }
  for (int i = 0; i < 200000; ++i) {
    const float v = FromBits(any(rng));
    if (std::isfinite(v)) x.push_back(v);
  }
  std::vector<float> y(x.size(), -123.0f);
  cannbot_ref::cast_f32_bf16(x.data(), y.data(), static_cast<int64_t>(x.size()));
  for (size_t i = 0; i < x.size(); ++i) {
    ASSERT_TRUE(SameBits(y[i], BitRecipeBf16(x[i]))) << std::hex << Bits(x[i]) << " -> " << Bits(y[i]);
  }
}

}  // namespace
}  // namespace cannbot_data_movement_test
