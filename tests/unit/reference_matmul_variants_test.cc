// Reference matmul variants (matmul_bt, batched_matmul, matmul_f16_f32, matmul_int8_dequant)
// against hand-computed products and independent formulations (a transposed copy through
// matmul, per-batch matmul calls, exact integer sums), and their specs' tolerances against a
// plain fp32 kernel, a kernel that drops one term and (for fp16) an fp16 accumulator.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "cannbot/ops/reference/batched_matmul.h"
#include "cannbot/ops/reference/matmul.h"
#include "cannbot/ops/reference/matmul_bt.h"
#include "cannbot/ops/reference/matmul_f16_f32.h"
#include "cannbot/ops/reference/matmul_int8_dequant.h"

namespace reference_matmul_variants_test {
namespace {

constexpr double kFltEps = 1.1920928955078125e-07;

std::vector<float> UniformF(int64_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = static_cast<float>(d(rng));
  return v;
}

// Uniform [-1, 1) rounded to half, held as float (what cannbot hands the reference).
std::vector<float> UniformHalf(int64_t n, uint64_t seed) {
  std::vector<float> v = UniformF(n, seed);
  for (float& x : v) x = static_cast<float>(static_cast<_Float16>(x));
  return v;
}

std::vector<int8_t> UniformI8(int64_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> d(-128, 127);
  std::vector<int8_t> v(static_cast<size_t>(n));
  for (int8_t& x : v) x = static_cast<int8_t>(d(rng));
  return v;
}

// The specs' [tolerance] for the three float matmuls: atol 2*k*FLT_EPSILON, rtol 1e-5.
int64_t MatmulFailures(const std::vector<float>& got, const std::vector<float>& want, int64_t k) {
  const double atol = 2.0 * static_cast<double>(k) * kFltEps, rtol = 1e-5;
  int64_t bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (!(std::fabs(static_cast<double>(got[i]) - want[i]) <= atol + rtol * std::fabs(want[i]))) {
      ++bad;
    }
  }
  return bad;
}

// Within one float ulp of an exactly (long double) accumulated value.
void ExpectWithinUlp(const std::vector<float>& got, const std::vector<long double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    const float rounded = static_cast<float>(want[i]);
    const double ulp = std::nextafter(std::fabs(rounded), INFINITY) - std::fabs(rounded);
    EXPECT_NEAR(got[i], static_cast<double>(want[i]), ulp) << "element " << i;
  }
}

// ---------------------------------------------------------------------------- matmul_bt

std::vector<float> MatmulBt(const std::vector<float>& a, const std::vector<float>& b, int64_t m,
                            int64_t n, int64_t k) {
  std::vector<float> c(static_cast<size_t>(m * n), -123.0f);
  cannbot_ref::matmul_bt(a.data(), b.data(), c.data(), m, n, k);
  return c;
}

TEST(ReferenceMatmulBtTest, HandComputed) {
  // A = [1 2 3; 4 5 6] (2x3), B stored as [n=2, k=3] = [7 9 11; 8 10 12], i.e. the
  // mathematical B = [7 8; 9 10; 11 12]: C = [58 64; 139 154].
  EXPECT_EQ(MatmulBt({1, 2, 3, 4, 5, 6}, {7, 9, 11, 8, 10, 12}, 2, 2, 3),
            (std::vector<float>{58, 64, 139, 154}));
  // A 1x2 times B^T where B is [3, 2]: dot products of [2, -1] with each row of B.
  EXPECT_EQ(MatmulBt({2, -1}, {1, 4, 2, 5, 3, 6}, 1, 3, 2), (std::vector<float>{-2, -1, 0}));
  // One element: overwritten, not accumulated into.
  std::vector<float> c = {1e6f};
  const std::vector<float> a = {3}, b = {-4};
  cannbot_ref::matmul_bt(a.data(), b.data(), c.data(), 1, 1, 1);
  EXPECT_EQ(c[0], -12.0f);
}

TEST(ReferenceMatmulBtTest, EqualsMatmulOfTheTransposedCopy) {
  const int64_t m = 33, n = 17, k = 37;
  const std::vector<float> a = UniformF(m * k, 1), bt = UniformF(n * k, 2);
  std::vector<float> b(static_cast<size_t>(k * n));  // [k, n]
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t p = 0; p < k; ++p) b[p * n + j] = bt[j * k + p];
  }
  std::vector<float> want(static_cast<size_t>(m * n));
  cannbot_ref::matmul(a.data(), b.data(), want.data(), m, n, k);
  // Both accumulate the same products in double, exactly enough that the roundings agree.
  EXPECT_EQ(MatmulBt(a, bt, m, n, k), want);
}

TEST(ReferenceMatmulBtTest, ToleranceAcceptsFp32AndRejectsAMissingTerm) {
  const int64_t m = 128, n = 192, k = 256;  // the spec's medium shape
  const std::vector<float> a = UniformF(m * k, 3), b = UniformF(n * k, 4);
  const std::vector<float> want = MatmulBt(a, b, m, n, k);
  std::vector<float> fp32(want.size()), dropped(want.size());
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (int64_t p = 0; p < k - 1; ++p) acc += a[i * k + p] * b[j * k + p];
      dropped[i * n + j] = acc;
      fp32[i * n + j] = acc + a[i * k + k - 1] * b[j * k + k - 1];
    }
  }
  EXPECT_EQ(MatmulFailures(fp32, want, k), 0);
  EXPECT_GT(MatmulFailures(dropped, want, k), m * n / 2);
}

// ----------------------------------------------------------------------- batched_matmul

std::vector<float> Batched(const std::vector<float>& a, const std::vector<float>& b, int64_t bt,
                           int64_t m, int64_t n, int64_t k) {
  std::vector<float> c(static_cast<size_t>(bt * m * n), -123.0f);
  cannbot_ref::batched_matmul(a.data(), b.data(), c.data(), bt, m, n, k);
  return c;
}

TEST(ReferenceBatchedMatmulTest, HandComputed) {
  // Two batches of 2x2: [1 2; 3 4][5 6; 7 8] = [19 22; 43 50] and the identity times
  // [1 -2; 3 -4], each with its own B (no broadcasting of batch 0's B).
  const std::vector<float> a = {1, 2, 3, 4, 1, 0, 0, 1};
  const std::vector<float> b = {5, 6, 7, 8, 1, -2, 3, -4};
  EXPECT_EQ(Batched(a, b, 2, 2, 2, 2), (std::vector<float>{19, 22, 43, 50, 1, -2, 3, -4}));
  // Three batches of 1x1x1: elementwise products.
  EXPECT_EQ(Batched({2, 3, -4}, {5, -6, 7}, 3, 1, 1, 1), (std::vector<float>{10, -18, -28}));
  // Rectangular, batch 2: [1x2] * [2x3].
  EXPECT_EQ(Batched({1, 1, 2, -1}, {1, 2, 3, 4, 5, 6, 1, 0, 1, 0, 1, 0}, 2, 1, 3, 2),
            (std::vector<float>{5, 7, 9, 2, -1, 2}));
}

TEST(ReferenceBatchedMatmulTest, EqualsOneMatmulPerBatch) {
  const int64_t bt = 3, m = 13, n = 17, k = 19;
  const std::vector<float> a = UniformF(bt * m * k, 5), b = UniformF(bt * k * n, 6);
  const std::vector<float> got = Batched(a, b, bt, m, n, k);
  for (int64_t t = 0; t < bt; ++t) {
    std::vector<float> want(static_cast<size_t>(m * n));
    cannbot_ref::matmul(a.data() + t * m * k, b.data() + t * k * n, want.data(), m, n, k);
    EXPECT_EQ(std::vector<float>(got.begin() + t * m * n, got.begin() + (t + 1) * m * n), want)
        << "batch " << t;
  }
}

TEST(ReferenceBatchedMatmulTest, ToleranceAcceptsFp32AndRejectsAWrongBatch) {
  const int64_t bt = 12, m = 64, n = 64, k = 64;  // the spec's heads shape
  const std::vector<float> a = UniformF(bt * m * k, 7), b = UniformF(bt * k * n, 8);
  const std::vector<float> want = Batched(a, b, bt, m, n, k);
  std::vector<float> fp32(want.size()), shared_b(want.size());
  for (int64_t t = 0; t < bt; ++t) {
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        float acc = 0.0f, acc0 = 0.0f;
        for (int64_t p = 0; p < k; ++p) {
          acc += a[(t * m + i) * k + p] * b[(t * k + p) * n + j];
          acc0 += a[(t * m + i) * k + p] * b[p * n + j];  // always batch 0's B
        }
        fp32[(t * m + i) * n + j] = acc;
        shared_b[(t * m + i) * n + j] = acc0;
      }
    }
  }
  EXPECT_EQ(MatmulFailures(fp32, want, k), 0);
  // Batch 0 is right, every other batch wrong.
  EXPECT_GT(MatmulFailures(shared_b, want, k), (bt - 1) * m * n * 9 / 10);
}

// ---------------------------------------------------------------------- matmul_f16_f32

std::vector<float> F16F32(const std::vector<float>& a, const std::vector<float>& b, int64_t m,
                          int64_t n, int64_t k) {
  std::vector<float> c(static_cast<size_t>(m * n), -123.0f);
  cannbot_ref::matmul_f16_f32(a.data(), b.data(), c.data(), m, n, k);
  return c;
}

TEST(ReferenceMatmulF16F32Test, HandComputed) {
  EXPECT_EQ(F16F32({1, 2, 3, 4}, {5, 6, 7, 8}, 2, 2, 2), (std::vector<float>{19, 22, 43, 50}));
  // The output is float, not half: 2049 (not a half) and 1 + 2^-12 come out exactly.
  EXPECT_EQ(F16F32({2048, 1}, {1, 1}, 1, 1, 2), (std::vector<float>{2049}));
  EXPECT_EQ(F16F32({1, 0.000244140625f}, {1, 1}, 1, 1, 2), (std::vector<float>{1.000244140625f}));
  // Largest halves: 65504^2 * 2 = 8.58e9 overflows half but not float.
  EXPECT_EQ(F16F32({65504, -65504}, {65504, -65504}, 1, 1, 2),
            (std::vector<float>{static_cast<float>(2.0 * 65504.0 * 65504.0)}));
  // A half subnormal (2^-24) times 2^-24 is 2^-48, exact in float.
  EXPECT_EQ(F16F32({5.9604644775390625e-08f}, {5.9604644775390625e-08f}, 1, 1, 1),
            (std::vector<float>{std::ldexp(1.0f, -48)}));
  // Zeros of either sign give a zero (the tolerance compares values, not zero signs).
  EXPECT_EQ(F16F32({-0.0f, 0.0f}, {1, -1}, 1, 1, 2)[0], 0.0f);
}

TEST(ReferenceMatmulF16F32Test, WithinOneUlpOfAnExactSum) {
  const int64_t m = 33, n = 17, k = 37;
  const std::vector<float> a = UniformHalf(m * k, 9), b = UniformHalf(k * n, 10);
  std::vector<long double> want(static_cast<size_t>(m * n), 0.0L);
  for (int64_t j = 0; j < n; ++j) {  // j-p-i: a different traversal, in long double
    for (int64_t p = 0; p < k; ++p) {
      for (int64_t i = 0; i < m; ++i) {
        want[i * n + j] += static_cast<long double>(a[i * k + p]) * b[p * n + j];
      }
    }
  }
  ExpectWithinUlp(F16F32(a, b, m, n, k), want);
}

TEST(ReferenceMatmulF16F32Test, ToleranceAcceptsFp32AndRejectsFp16Accumulation) {
  const int64_t m = 128, n = 192, k = 256;  // the spec's medium shape
  const std::vector<float> a = UniformHalf(m * k, 11), b = UniformHalf(k * n, 12);
  const std::vector<float> want = F16F32(a, b, m, n, k);
  std::vector<float> fp32(want.size()), fp16acc(want.size()), dropped(want.size());
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      float acc = 0.0f, part = 0.0f;
      _Float16 acc16 = 0;
      for (int64_t p = 0; p < k; ++p) {
        const float prod = a[i * k + p] * b[p * n + j];
        acc += prod;
        if (p < k - 1) part += prod;
        acc16 = static_cast<_Float16>(static_cast<float>(acc16) + prod);
      }
      fp32[i * n + j] = acc;
      dropped[i * n + j] = part;
      fp16acc[i * n + j] = static_cast<float>(acc16);
    }
  }
  EXPECT_EQ(MatmulFailures(fp32, want, k), 0);
  EXPECT_GT(MatmulFailures(dropped, want, k), m * n / 2);
  EXPECT_GT(MatmulFailures(fp16acc, want, k), m * n / 2);
}

// ------------------------------------------------------------------ matmul_int8_dequant

std::vector<float> Int8(const std::vector<int8_t>& a, const std::vector<int8_t>& b,
                        const std::vector<float>& scale, int64_t m, int64_t n, int64_t k) {
  std::vector<float> y(static_cast<size_t>(m * n), -123.0f);
  cannbot_ref::matmul_int8_dequant(a.data(), b.data(), scale.data(), y.data(), m, n, k);
  return y;
}

TEST(ReferenceMatmulInt8DequantTest, HandComputed) {
  // [1 2; 3 4][5 6; 7 8] = [19 22; 43 50], channel scales 0.5 and 2.
  EXPECT_EQ(Int8({1, 2, 3, 4}, {5, 6, 7, 8}, {0.5f, 2.0f}, 2, 2, 2),
            (std::vector<float>{9.5f, 44, 21.5f, 100}));
  // The extremes: -128 * -128 * 2 = 32768, 127 * -128 + (-128) * 127 = -32512.
  EXPECT_EQ(Int8({-128, -128}, {-128, -128}, {1.0f}, 1, 1, 2), (std::vector<float>{32768}));
  EXPECT_EQ(Int8({127, -128}, {-128, 127}, {1.0f}, 1, 1, 2), (std::vector<float>{-32512}));
  // A sum that cancels exactly: 0 * scale is 0.
  EXPECT_EQ(Int8({1, -1}, {100, 100}, {0.3f}, 1, 1, 2), (std::vector<float>{0}));
  // acc = 3 with scale 0.1f: one rounding of the exact product 3 * 0.1f.
  EXPECT_EQ(Int8({1, 1, 1}, {1, 1, 1}, {0.1f}, 1, 1, 3),
            (std::vector<float>{static_cast<float>(3.0 * static_cast<double>(0.1f))}));
}

TEST(ReferenceMatmulInt8DequantTest, SaturatedAtTheLargestK) {
  // k = 1024 terms of -128 * -128: acc = 2^24, still exact in float.
  const int64_t k = 1024;
  const std::vector<int8_t> a(k, -128), b(k, -128);
  EXPECT_EQ(Int8(a, b, {1.0f}, 1, 1, k), (std::vector<float>{16777216.0f}));
  EXPECT_EQ(Int8(a, b, {0.0078125f}, 1, 1, k), (std::vector<float>{131072.0f}));
  // 1023 terms of 127 * -128 then one of 127 * 127: a large negative partial sum, exact.
  std::vector<int8_t> a2(k, 127), b2(k, -128);
  b2[k - 1] = 127;
  EXPECT_EQ(Int8(a2, b2, {1.0f}, 1, 1, k),
            (std::vector<float>{static_cast<float>(1023 * 127 * -128 + 127 * 127)}));
}

TEST(ReferenceMatmulInt8DequantTest, EqualsExactIntegerSumTimesScaleRoundedOnce) {
  const int64_t m = 33, n = 17, k = 37;
  const std::vector<int8_t> a = UniformI8(m * k, 13), b = UniformI8(k * n, 14);
  std::vector<float> scale(static_cast<size_t>(n));
  std::mt19937_64 rng(15);
  std::uniform_real_distribution<double> d(1e-4, 0.05);
  for (float& s : scale) s = static_cast<float>(d(rng));
  const std::vector<float> got = Int8(a, b, scale, m, n, k);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      int32_t acc = 0;  // p-descending: another order, exact all the same
      for (int64_t p = k - 1; p >= 0; --p) acc += int32_t{a[i * k + p]} * int32_t{b[p * n + j]};
      // float(acc) is exact (|acc| < 2^24), so the fp32 product is correctly rounded.
      EXPECT_EQ(got[i * n + j], static_cast<float>(acc) * scale[j]) << i << "," << j;
    }
  }
}

TEST(ReferenceMatmulInt8DequantTest, ToleranceIsOneRoundingAndRejectsAMissingTerm) {
  const int64_t m = 128, n = 192, k = 256;  // the spec's medium shape
  const std::vector<int8_t> a = UniformI8(m * k, 16), b = UniformI8(k * n, 17);
  std::vector<float> scale(static_cast<size_t>(n));
  std::mt19937_64 rng(18);
  std::uniform_real_distribution<double> d(1e-4, 0.05);
  for (float& s : scale) s = static_cast<float>(d(rng));
  const std::vector<float> want = Int8(a, b, scale, m, n, k);
  const double rtol = kFltEps;  // the spec: atol 0, rtol FLT_EPSILON
  int64_t bad_scaled_terms = 0, bad_missing = 0;
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      // Scaling each term before a float sum (the wrong order) and dropping the last term.
      float scaled = 0.0f;
      int32_t part = 0;
      for (int64_t p = 0; p < k; ++p) {
        const int32_t prod = int32_t{a[i * k + p]} * int32_t{b[p * n + j]};
        scaled += static_cast<float>(prod) * scale[j];
        if (p < k - 1) part += prod;
      }
      const double w = want[i * n + j];
      if (std::fabs(scaled - w) > rtol * std::fabs(w)) ++bad_scaled_terms;
      if (std::fabs(static_cast<float>(part) * scale[j] - w) > rtol * std::fabs(w)) ++bad_missing;
      // A result one float ulp away (the next float up) still passes.
      if (w != 0.0) {
        const float up = std::nextafter(static_cast<float>(w), INFINITY);
        EXPECT_LE(std::fabs(up - w), rtol * std::fabs(w)) << i << "," << j;
      }
    }
  }
  EXPECT_GT(bad_scaled_terms, m * n / 2);
  EXPECT_GT(bad_missing, m * n * 9 / 10);
}

}  // namespace
}  // namespace reference_matmul_variants_test
