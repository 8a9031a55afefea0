// Reference swiglu, rope, sdpa, transpose, embedding, max_pool2d, avg_pool2d and cast_f32_f16
// against hand-picked values and independent formulations: chains of other references, closed
// forms, the compiler's own fp16 conversion, and properties the ops must obey.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "cannbot/ops/reference/avg_pool2d.h"
#include "cannbot/ops/reference/cast_f32_f16.h"
#include "cannbot/ops/reference/depthwise_conv2d.h"
#include "cannbot/ops/reference/embedding.h"
#include "cannbot/ops/reference/matmul.h"
#include "cannbot/ops/reference/max_pool2d.h"
#include "cannbot/ops/reference/rope.h"
#include "cannbot/ops/reference/sdpa.h"
#include "cannbot/ops/reference/softmax.h"
#include "cannbot/ops/reference/swiglu.h"
#include "cannbot/ops/reference/swish.h"
#include "cannbot/ops/reference/transpose.h"

namespace cannbot_transformer_movement_test {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

std::vector<float> Normal(size_t n, double mean, double stddev, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> d(mean, stddev);
  std::vector<float> v(n);
  for (float& x : v) x = static_cast<float>(d(rng));
  return v;
}

std::vector<float> Uniform(size_t n, double low, double high, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> d(low, high);
  std::vector<float> v(n);
  for (float& x : v) x = static_cast<float>(d(rng));
  return v;
}

bool SameBits(float a, float b) { return std::memcmp(&a, &b, sizeof(float)) == 0; }

// ---------------------------------------------------------------------------------- swiglu

std::vector<float> Swiglu(const std::vector<float>& x, int64_t rows, int64_t cols) {
  std::vector<float> y(static_cast<size_t>(rows * cols), -123.0f);
  cannbot_ref::swiglu(x.data(), y.data(), rows, cols);
  return y;
}

TEST(ReferenceSwigluTest, HandPickedValues) {
  // One row, cols = 6: gates then ups.
  const std::vector<float> x = {0.0f, 1.0f, -1e4f, 1e30f, -1e30f, 2.0f,
                                7.0f, 2.0f, 5.0f,  1e30f, 1e30f,  -3.0f};
  const std::vector<float> y = Swiglu(x, 1, 6);
  EXPECT_EQ(y[0], 0.0f);
  EXPECT_NEAR(y[1], 2.0 * 0.7310585786300049, 2e-7);  // 2 * sigmoid(1)
  EXPECT_EQ(y[2], 0.0f);                              // exp(1e4) = inf: silu = -0
  EXPECT_TRUE(std::signbit(y[2]));
  EXPECT_EQ(y[3], kInf);  // 1e60 is beyond the float range
  EXPECT_EQ(y[4], 0.0f);  // -1e30 / inf * 1e30, not NaN
  EXPECT_FALSE(std::isnan(y[4]));
  EXPECT_NEAR(y[5], -3.0 * 2.0 / (1.0 + std::exp(-2.0)), 4e-7);
}

TEST(ReferenceSwigluTest, EqualsSwishOfGateTimesUp) {
  // The chain swish(gate) * up, with the halves split out by hand, rows of odd width.
  const int64_t rows = 5, cols = 37;
  const std::vector<float> x = Uniform(static_cast<size_t>(rows * 2 * cols), -20.0, 20.0, 1);
  const std::vector<float> y = Swiglu(x, rows, cols);
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<float> gate(x.begin() + r * 2 * cols, x.begin() + r * 2 * cols + cols);
    std::vector<float> silu(static_cast<size_t>(cols));
    cannbot_ref::swish(gate.data(), silu.data(), cols);
    for (int64_t j = 0; j < cols; ++j) {
      const double want = static_cast<double>(silu[j]) * x[r * 2 * cols + cols + j];
      EXPECT_NEAR(y[r * cols + j], want, 3e-7 * std::fabs(want) + 1e-30) << r << "," << j;
    }
  }
}

TEST(ReferenceSwigluTest, OnlyTheGateHalfGoesThroughSilu) {
  // Swapping the halves changes the result: silu(a) * b != silu(b) * a in general.
  const std::vector<float> y = Swiglu({1.0f, 3.0f}, 1, 1);
  const std::vector<float> swapped = Swiglu({3.0f, 1.0f}, 1, 1);
  EXPECT_NEAR(y[0], 3.0 / (1.0 + std::exp(-1.0)), 3e-7);
  EXPECT_NEAR(swapped[0], 3.0 / (1.0 + std::exp(-3.0)), 3e-7);
}

// ------------------------------------------------------------------------------------ rope

std::vector<float> Rope(const std::vector<float>& x, const std::vector<float>& c,
                        const std::vector<float>& s, int64_t tokens, int64_t heads, int64_t half) {
  std::vector<float> y(x.size(), -123.0f);
  cannbot_ref::rope(x.data(), c.data(), s.data(), y.data(), tokens, heads, half);
  return y;
}

TEST(ReferenceRopeTest, HandPickedValues) {
  // One token, one head, half = 2: x = [lo0, lo1, hi0, hi1].
  const std::vector<float> y = Rope({1.0f, 3.0f, 0.0f, 4.0f}, {0.0f, 0.5f}, {1.0f, 0.25f}, 1, 1, 2);
  EXPECT_EQ(y[0], 0.0f);                      // 1 * 0 - 0 * 1
  EXPECT_EQ(y[1], 3.0f * 0.5f - 4.0f * 0.25f);  // 0.5
  EXPECT_EQ(y[2], 1.0f);                      // 0 * 0 + 1 * 1
  EXPECT_EQ(y[3], 4.0f * 0.5f + 3.0f * 0.25f);  // 2.75
}

TEST(ReferenceRopeTest, EqualsComplexRotationOfHalfPairs) {
  // (x[j] + i x[j + half]) * (cos + i sin), gathered and scattered by hand.
  const int64_t tokens = 7, heads = 3, half = 19, dim = 2 * half;
  const std::vector<float> x = Normal(static_cast<size_t>(tokens * heads * dim), 0.0, 1.0, 2);
  const std::vector<float> c = Uniform(static_cast<size_t>(tokens * half), -1.0, 1.0, 3);
  const std::vector<float> s = Uniform(static_cast<size_t>(tokens * half), -1.0, 1.0, 4);
  const std::vector<float> y = Rope(x, c, s, tokens, heads, half);
  for (int64_t t = 0; t < tokens; ++t) {
    for (int64_t h = 0; h < heads; ++h) {
      const int64_t base = (t * heads + h) * dim;
      for (int64_t j = 0; j < half; ++j) {
        const std::complex<long double> z(x[base + j], x[base + j + half]);
        const std::complex<long double> w(c[t * half + j], s[t * half + j]);
        const std::complex<long double> r = z * w;
        EXPECT_NEAR(y[base + j], static_cast<double>(r.real()), 1e-6) << t << "," << h << "," << j;
        EXPECT_NEAR(y[base + j + half], static_cast<double>(r.imag()), 1e-6)
            << t << "," << h << "," << j;
      }
    }
  }
}

TEST(ReferenceRopeTest, RealAnglesPreserveNormsAndCompose) {
  // With cos/sin of real angles each (lo, hi) pair keeps its length, and rotating by a then
  // by b is rotating by a + b.
  const int64_t tokens = 4, heads = 2, half = 8, dim = 2 * half;
  const std::vector<float> x = Normal(static_cast<size_t>(tokens * heads * dim), 0.0, 1.0, 5);
  std::vector<float> ca, sa, cb, sb, cab, sab;
  for (int64_t t = 0; t < tokens; ++t) {
    for (int64_t j = 0; j < half; ++j) {
      const double theta = t * std::pow(10000.0, -2.0 * static_cast<double>(j) / dim);
      const double a = theta, b = 0.3 + 0.1 * static_cast<double>(j);
      ca.push_back(static_cast<float>(std::cos(a)));
      sa.push_back(static_cast<float>(std::sin(a)));
      cb.push_back(static_cast<float>(std::cos(b)));
      sb.push_back(static_cast<float>(std::sin(b)));
      cab.push_back(static_cast<float>(std::cos(a + b)));
      sab.push_back(static_cast<float>(std::sin(a + b)));
    }
  }
  const std::vector<float> ya = Rope(x, ca, sa, tokens, heads, half);
  const std::vector<float> yab = Rope(ya, cb, sb, tokens, heads, half);
  const std::vector<float> direct = Rope(x, cab, sab, tokens, heads, half);
  for (int64_t v = 0; v < tokens * heads; ++v) {
    for (int64_t j = 0; j < half; ++j) {
      const int64_t lo = v * dim + j, hi = lo + half;
      EXPECT_NEAR(std::hypot(ya[lo], ya[hi]), std::hypot(x[lo], x[hi]), 1e-6);
      EXPECT_NEAR(yab[lo], direct[lo], 2e-6);
      EXPECT_NEAR(yab[hi], direct[hi], 2e-6);
    }
  }
}

// ------------------------------------------------------------------------------------ sdpa

std::vector<float> Sdpa(const std::vector<float>& q, const std::vector<float>& k,
                        const std::vector<float>& v, int64_t bh, int64_t s, int64_t d,
                        int64_t causal) {
  std::vector<float> y(q.size(), -123.0f);
  cannbot_ref::sdpa(q.data(), k.data(), v.data(), y.data(), bh, s, d, causal);
  return y;
}

TEST(ReferenceSdpaTest, HandPickedTwoKeys) {
  // d = 1, scale 1: scores 0 and ln 3 give weights 1/4 and 3/4; causal row 0 sees key 0 only.
  const float ln3 = static_cast<float>(std::log(3.0));
  const std::vector<float> q = {1.0f, 1.0f}, k = {0.0f, ln3}, v = {4.0f, 8.0f};
  const std::vector<float> full = Sdpa(q, k, v, 1, 2, 1, 0);
  EXPECT_NEAR(full[0], 7.0, 1e-6);
  EXPECT_NEAR(full[1], 7.0, 1e-6);
  const std::vector<float> causal = Sdpa(q, k, v, 1, 2, 1, 1);
  EXPECT_EQ(causal[0], 4.0f);
  EXPECT_NEAR(causal[1], 7.0, 1e-6);
}

TEST(ReferenceSdpaTest, OneKeyGivesItsValue) {
  const std::vector<float> v = {0.5f, -2.0f, 3e30f};
  for (int64_t causal : {0, 1}) {
    EXPECT_EQ(Sdpa({100.0f, -7.0f, 1.0f}, {3.0f, 1e3f, -1.0f}, v, 1, 1, 3, causal), v);
  }
}

TEST(ReferenceSdpaTest, ZeroQueriesAverageTheVisibleValues) {
  const int64_t s = 9, d = 3;
  const std::vector<float> q(static_cast<size_t>(s * d), 0.0f);
  const std::vector<float> k = Normal(static_cast<size_t>(s * d), 0.0, 1.0, 6);
  const std::vector<float> v = Normal(static_cast<size_t>(s * d), 0.0, 1.0, 7);
  for (int64_t causal : {0, 1}) {
    const std::vector<float> y = Sdpa(q, k, v, 1, s, d, causal);
    for (int64_t i = 0; i < s; ++i) {
      const int64_t keys = causal ? i + 1 : s;
      for (int64_t c = 0; c < d; ++c) {
        double mean = 0;
        for (int64_t j = 0; j < keys; ++j) mean += v[j * d + c];
        EXPECT_NEAR(y[i * d + c], mean / static_cast<double>(keys), 1e-6)
            << "causal " << causal << " row " << i;
      }
    }
  }
}

TEST(ReferenceSdpaTest, EqualsMatmulSoftmaxMatmulChain) {
  // softmax(q k^T / sqrt(d) + mask) v with the transpose, matmul and softmax references; the
  // mask is -inf, which the softmax reference turns into weight 0.
  const int64_t bh = 3, s = 23, d = 16;
  const std::vector<float> q = Normal(static_cast<size_t>(bh * s * d), 0.0, 1.0, 8);
  const std::vector<float> k = Normal(static_cast<size_t>(bh * s * d), 0.0, 1.0, 9);
  const std::vector<float> v = Normal(static_cast<size_t>(bh * s * d), 0.0, 1.0, 10);
  for (int64_t causal : {0, 1}) {
    const std::vector<float> y = Sdpa(q, k, v, bh, s, d, causal);
    for (int64_t b = 0; b < bh; ++b) {
      const float* qb = q.data() + b * s * d;
      const float* kb = k.data() + b * s * d;
      const float* vb = v.data() + b * s * d;
      std::vector<float> kt(static_cast<size_t>(d * s)), scores(static_cast<size_t>(s * s));
      std::vector<float> p(scores.size()), want(static_cast<size_t>(s * d));
      cannbot_ref::transpose(kb, kt.data(), s, d);
      cannbot_ref::matmul(qb, kt.data(), scores.data(), s, s, d);
      for (int64_t i = 0; i < s; ++i) {
        for (int64_t j = 0; j < s; ++j) {
          float& e = scores[i * s + j];
          e = causal && j > i ? -kInf : static_cast<float>(e / std::sqrt(static_cast<double>(d)));
        }
      }
      cannbot_ref::softmax(scores.data(), p.data(), s, s);
      cannbot_ref::matmul(p.data(), vb, want.data(), s, d, s);
      for (int64_t i = 0; i < s * d; ++i) {
        EXPECT_NEAR(y[b * s * d + i], want[i], 2e-6) << "causal " << causal << " slice " << b;
      }
    }
  }
}

TEST(ReferenceSdpaTest, HugeScoresStayFiniteAndCausalRowsIgnoreTheFuture) {
  const int64_t bh = 2, s = 16, d = 8;
  std::vector<float> q = Normal(static_cast<size_t>(bh * s * d), 0.0, 1000.0, 11);
  const std::vector<float> k = Normal(static_cast<size_t>(bh * s * d), 0.0, 1.0, 12);
  std::vector<float> v = Normal(static_cast<size_t>(bh * s * d), 0.0, 1.0, 13);
  const std::vector<float> y = Sdpa(q, k, v, bh, s, d, 1);
  for (int64_t b = 0; b < bh; ++b) {
    for (int64_t i = 0; i < s; ++i) {
      for (int64_t c = 0; c < d; ++c) {
        // A convex combination of the visible values.
        float lo = kInf, hi = -kInf;
        for (int64_t j = 0; j <= i; ++j) {
          lo = std::min(lo, v[(b * s + j) * d + c]);
          hi = std::max(hi, v[(b * s + j) * d + c]);
        }
        const float got = y[(b * s + i) * d + c];
        ASSERT_TRUE(std::isfinite(got));
        EXPECT_GE(got, lo - 1e-6f);
        EXPECT_LE(got, hi + 1e-6f);
      }
    }
  }
  // Changing the last key's value changes only the last row of each slice.
  for (int64_t b = 0; b < bh; ++b) {
    for (int64_t c = 0; c < d; ++c) v[(b * s + s - 1) * d + c] += 5.0f;
  }
  const std::vector<float> y2 = Sdpa(q, k, v, bh, s, d, 1);
  for (int64_t b = 0; b < bh; ++b) {
    for (int64_t i = 0; i < s - 1; ++i) {
      for (int64_t c = 0; c < d; ++c) {
        EXPECT_EQ(y2[(b * s + i) * d + c], y[(b * s + i) * d + c]) << b << "," << i;
      }
    }
  }
}

// ------------------------------------------------------------------------------- transpose

TEST(ReferenceTransposeTest, HandPickedValues) {
  const std::vector<float> x = {1, 2, 3, 4, 5, 6};  // [2, 3]
  std::vector<float> y(6, -1.0f);
  cannbot_ref::transpose(x.data(), y.data(), 2, 3);
  EXPECT_EQ(y, (std::vector<float>{1, 4, 2, 5, 3, 6}));  // [3, 2]
}

TEST(ReferenceTransposeTest, TwiceIsTheIdentityBitForBit) {
  const int64_t rows = 37, cols = 19;
  std::vector<float> x = Normal(static_cast<size_t>(rows * cols), 0.0, 1.0, 14);
  x[3] = -0.0f;
  x[40] = std::numeric_limits<float>::denorm_min();
  x[77] = -3e38f;
  std::vector<float> t(x.size()), back(x.size());
  cannbot_ref::transpose(x.data(), t.data(), rows, cols);
  cannbot_ref::transpose(t.data(), back.data(), cols, rows);
  for (size_t i = 0; i < x.size(); ++i) EXPECT_TRUE(SameBits(back[i], x[i])) << i;
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) EXPECT_TRUE(SameBits(t[j * rows + i], x[i * cols + j]));
  }
}

// ------------------------------------------------------------------------------- embedding

TEST(ReferenceEmbeddingTest, HandPickedValues) {
  const std::vector<float> table = {0, 1, 10, 11, 20, 21};  // [3, 2]
  const std::vector<int32_t> ids = {2, 0, 2, 1};
  std::vector<float> y(8, -1.0f);
  cannbot_ref::embedding(table.data(), ids.data(), y.data(), 4, 3, 2);
  EXPECT_EQ(y, (std::vector<float>{20, 21, 0, 1, 20, 21, 10, 11}));
}

TEST(ReferenceEmbeddingTest, EqualsOneHotMatmul) {
  // onehot(ids) [tokens, vocab] x table [vocab, dim], via the matmul reference.
  const int64_t tokens = 13, vocab = 37, dim = 19;
  const std::vector<float> table = Normal(static_cast<size_t>(vocab * dim), 0.0, 1.0, 15);
  std::mt19937_64 rng(16);
  std::vector<int32_t> ids(static_cast<size_t>(tokens));
  for (int32_t& id : ids) id = static_cast<int32_t>(rng() % vocab);
  ids[0] = 0;
  ids[1] = vocab - 1;
  std::vector<float> onehot(static_cast<size_t>(tokens * vocab), 0.0f);
  for (int64_t t = 0; t < tokens; ++t) onehot[t * vocab + ids[t]] = 1.0f;
  std::vector<float> want(static_cast<size_t>(tokens * dim)), y(want.size(), -1.0f);
  cannbot_ref::matmul(onehot.data(), table.data(), want.data(), tokens, dim, vocab);
  cannbot_ref::embedding(table.data(), ids.data(), y.data(), tokens, vocab, dim);
  EXPECT_EQ(y, want);
}

TEST(ReferenceEmbeddingTest, CopiesBitsAndNeverReadsOutsideTheTable) {
  const std::vector<float> table = {-0.0f, std::numeric_limits<float>::denorm_min()};  // [2, 1]
  const std::vector<int32_t> ids = {0, 1, 2, -1};  // the last two never occur in a checked case
  std::vector<float> y(4, -1.0f);
  cannbot_ref::embedding(table.data(), ids.data(), y.data(), 4, 2, 1);
  EXPECT_TRUE(SameBits(y[0], -0.0f));
  EXPECT_TRUE(SameBits(y[1], table[1]));
  EXPECT_EQ(y[2], 0.0f);
  EXPECT_EQ(y[3], 0.0f);
}

// ------------------------------------------------------------------------------ max_pool2d

struct Pool {
  int64_t n, c, h, w, kh, kw, stride, pad;
  int64_t oh() const { return (h + 2 * pad - kh) / stride + 1; }
  int64_t ow() const { return (w + 2 * pad - kw) / stride + 1; }
  size_t in() const { return static_cast<size_t>(n * c * h * w); }
  size_t out() const { return static_cast<size_t>(n * c * oh() * ow()); }
};

std::vector<float> MaxPool(const std::vector<float>& x, const Pool& p) {
  std::vector<float> y(p.out(), -123.0f);
  cannbot_ref::max_pool2d(x.data(), y.data(), p.n, p.c, p.h, p.w, p.kh, p.kw, p.stride, p.pad);
  return y;
}

std::vector<float> AvgPool(const std::vector<float>& x, const Pool& p) {
  std::vector<float> y(p.out(), -123.0f);
  cannbot_ref::avg_pool2d(x.data(), y.data(), p.n, p.c, p.h, p.w, p.kh, p.kw, p.stride, p.pad);
  return y;
}

const Pool kPools[] = {
    {2, 3, 15, 11, 3, 2, 2, 1},  // odd
    {1, 5, 13, 33, 5, 3, 3, 0},  // valid, trailing columns dropped
    {1, 2, 7, 7, 7, 7, 1, 0},    // global
    {1, 3, 9, 10, 3, 3, 2, 1},   // overlap with padding
    {2, 1, 6, 5, 2, 4, 1, 1},    // pad 1 with a 2-tap height
};

TEST(ReferenceMaxPool2dTest, HandPickedValues) {
  // 3x3 image, 2x2 windows, stride 1, no padding.
  const std::vector<float> x = {1, -2, 3, 4, 5, -6, -7, 8, 9};
  EXPECT_EQ(MaxPool(x, {1, 1, 3, 3, 2, 2, 1, 0}), (std::vector<float>{5, 5, 8, 9}));
  // All negative, 3x3 windows, pad 1: the padding never wins.
  const std::vector<float> neg = {-1, -2, -3, -4};  // 2x2
  EXPECT_EQ(MaxPool(neg, {1, 1, 2, 2, 3, 3, 1, 1}), (std::vector<float>{-1, -1, -1, -1}));
  EXPECT_EQ(MaxPool(neg, {1, 1, 2, 2, 2, 2, 2, 1}), (std::vector<float>{-1, -2, -3, -4}));
}

TEST(ReferenceMaxPool2dTest, EqualsUnpaddedPoolOverAMinusInfinityBorder) {
  // Materialise the padded image with -inf and pool it without padding, by brute force.
  for (const Pool& p : kPools) {
    const std::vector<float> x = Uniform(p.in(), -2.0, -1.0, 17 + p.h);
    const std::vector<float> y = MaxPool(x, p);
    const int64_t ph = p.h + 2 * p.pad, pw = p.w + 2 * p.pad;
    for (int64_t plane = 0; plane < p.n * p.c; ++plane) {
      std::vector<float> padded(static_cast<size_t>(ph * pw), -kInf);
      for (int64_t i = 0; i < p.h; ++i) {
        for (int64_t j = 0; j < p.w; ++j) {
          padded[(i + p.pad) * pw + j + p.pad] = x[(plane * p.h + i) * p.w + j];
        }
      }
      for (int64_t oy = 0; oy < p.oh(); ++oy) {
        for (int64_t ox = 0; ox < p.ow(); ++ox) {
          float best = -kInf;
          for (int64_t i = 0; i < p.kh; ++i) {
            for (int64_t j = 0; j < p.kw; ++j) {
              best = std::max(best, padded[(oy * p.stride + i) * pw + ox * p.stride + j]);
            }
          }
          ASSERT_TRUE(std::isfinite(best));  // every window holds an image element
          EXPECT_EQ(y[(plane * p.oh() + oy) * p.ow() + ox], best) << "h " << p.h << " " << oy;
        }
      }
    }
  }
}

TEST(ReferenceMaxPool2dTest, UnitWindowIsTheIdentity) {
  std::vector<float> x = Normal(60, 0.0, 1.0, 18);
  x[5] = 3e38f;
  x[6] = -3e38f;
  EXPECT_EQ(MaxPool(x, {2, 3, 2, 5, 1, 1, 1, 0}), x);
}

// ------------------------------------------------------------------------------ avg_pool2d

TEST(ReferenceAvgPool2dTest, HandPickedValues) {
  // 3x3 ones, 3x3 windows, stride 1, pad 1: count_include_pad = false keeps every mean 1
  // (including the padding would give 4/9 in the corners and 6/9 on the edges).
  const std::vector<float> ones(9, 1.0f);
  EXPECT_EQ(AvgPool(ones, {1, 1, 3, 3, 3, 3, 1, 1}), std::vector<float>(9, 1.0f));
  // 2x2 image, 2x2 windows, stride 1, pad 1: the corners see one element each, the centre all.
  const std::vector<float> x = {1, 2, 3, 6};
  EXPECT_EQ(AvgPool(x, {1, 1, 2, 2, 2, 2, 1, 1}),
            (std::vector<float>{1, 1.5f, 2, 2, 3, 4, 3, 4.5f, 6}));
}

TEST(ReferenceAvgPool2dTest, EqualsZeroPaddedSumOverInImageCount) {
  // sum = depthwise conv with all-ones filters (zero padding); count = the same conv of an
  // all-ones image. Their quotient is the count_include_pad = false average.
  for (const Pool& p : kPools) {
    const std::vector<float> x = Normal(p.in(), 0.0, 1.0, 19 + p.w);
    const std::vector<float> w(static_cast<size_t>(p.c * p.kh * p.kw), 1.0f);
    const std::vector<float> ones(p.in(), 1.0f);
    std::vector<float> sum(p.out()), count(p.out());
    cannbot_ref::depthwise_conv2d(x.data(), w.data(), sum.data(), p.n, p.c, p.h, p.w, p.kh, p.kw,
                                  p.stride, p.pad);
    cannbot_ref::depthwise_conv2d(ones.data(), w.data(), count.data(), p.n, p.c, p.h, p.w, p.kh,
                                  p.kw, p.stride, p.pad);
    const std::vector<float> y = AvgPool(x, p);
    for (size_t i = 0; i < y.size(); ++i) {
      ASSERT_GE(count[i], 1.0f);
      const double want = static_cast<double>(sum[i]) / count[i];
      EXPECT_NEAR(y[i], want, 1e-6 * (1.0 + std::fabs(want))) << "h " << p.h << " " << i;
    }
  }
}

TEST(ReferenceAvgPool2dTest, ConstantImagesAverageToTheConstant) {
  for (const Pool& p : kPools) {
    for (float v : {-2.5f, 1e30f}) {
      EXPECT_EQ(AvgPool(std::vector<float>(p.in(), v), p), std::vector<float>(p.out(), v));
    }
  }
}

// ---------------------------------------------------------------------------- cast_f32_f16

float Cast(float x) {
  float y = -123.0f;
  cannbot_ref::cast_f32_f16(&x, &y, 1);
  return y;
}

// The compiler's own conversion: an independent implementation of the same IEEE rounding.
float CompilerHalf(float x) { return static_cast<float>(static_cast<_Float16>(x)); }

TEST(ReferenceCastF32F16Test, HandPickedValues) {
  const double sub = std::ldexp(1.0, -24);  // the smallest fp16 subnormal
  EXPECT_EQ(Cast(1.0f), 1.0f);
  EXPECT_EQ(Cast(65504.0f), 65504.0f);
  EXPECT_EQ(Cast(65519.0f), 65504.0f);
  EXPECT_EQ(Cast(65500.0f), 65504.0f);
  EXPECT_EQ(Cast(65520.0f), kInf);  // the tie above the largest half rounds to even: 2^16
  EXPECT_EQ(Cast(-65520.0f), -kInf);
  EXPECT_EQ(Cast(2049.0f), 2048.0f);  // ties to even
  EXPECT_EQ(Cast(2051.0f), 2052.0f);
  EXPECT_EQ(Cast(-2049.0f), -2048.0f);
  EXPECT_EQ(Cast(1.00048828125f), 1.0f);              // 1 + 2^-11: a tie
  EXPECT_EQ(Cast(1.000732421875f), 1.0009765625f);    // 1 + 3*2^-12: up, not truncated
  EXPECT_EQ(Cast(static_cast<float>(std::ldexp(1.0, -25))), 0.0f);  // a tie at the bottom
  EXPECT_EQ(Cast(3e-8f), static_cast<float>(sub));
  EXPECT_EQ(Cast(6e-8f), static_cast<float>(sub));
  EXPECT_EQ(Cast(3e-6f), static_cast<float>(50 * sub));
  EXPECT_EQ(Cast(6.1035152e-05f), 6.103515625e-05f);  // rounds up to the smallest normal
  EXPECT_TRUE(SameBits(Cast(-1e-9f), -0.0f));
  EXPECT_TRUE(SameBits(Cast(-0.0f), -0.0f));
  EXPECT_TRUE(SameBits(Cast(1e-30f), 0.0f));
  EXPECT_EQ(Cast(kInf), kInf);
  EXPECT_TRUE(std::isnan(Cast(std::numeric_limits<float>::quiet_NaN())));
}

TEST(ReferenceCastF32F16Test, MatchesTheCompilersConversionOnEveryHalfAndMidpoint) {
  // Every finite half h, the midpoints to its neighbours, and the floats either side of
  // those midpoints: every tie and near-tie there is.
  int checked = 0;
  for (uint32_t bits = 0; bits < 0x7c00; ++bits) {
    const uint16_t b16 = static_cast<uint16_t>(bits), next16 = static_cast<uint16_t>(bits + 1);
    _Float16 h, next;
    std::memcpy(&h, &b16, 2);
    std::memcpy(&next, &next16, 2);
    const double mid = (static_cast<double>(h) + static_cast<double>(next)) / 2.0;
    const float m = static_cast<float>(mid);  // exact: halves have 11 significant bits
    for (float v : {static_cast<float>(h), m, std::nextafter(m, 0.0f), std::nextafter(m, kInf)}) {
      for (float s : {v, -v}) {
        const float got = Cast(s), want = CompilerHalf(s);
        ASSERT_TRUE(SameBits(got, want)) << s << ": got " << got << ", want " << want;
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 0x7c00 * 8);
}

TEST(ReferenceCastF32F16Test, MatchesTheCompilersConversionOnRandomFloats) {
  // Random bit patterns over every float exponent (NaNs skipped).
  std::mt19937 rng(20);
  for (int i = 0; i < 200000; ++i) {
    const uint32_t bits = static_cast<uint32_t>(rng());
    float x;
    std::memcpy(&x, &bits, 4);
    if (std::isnan(x)) continue;
    ASSERT_TRUE(SameBits(Cast(x), CompilerHalf(x))) << x;
  }
}

}  // namespace
}  // namespace cannbot_transformer_movement_test
