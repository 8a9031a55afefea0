// Reference convolutions against independent formulations on every numeric catalog shape:
// conv2d as im2col + matmul, depthwise as a dense conv with a block-diagonal filter, and the
// fused ops as their unfused steps composed by hand.
#include <gtest/gtest.h>
#include "builtin_ops.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "cannbot/ops/reference/conv2d.h"
#include "cannbot/ops/reference/conv_bn_relu.h"
#include "cannbot/ops/reference/depthwise_conv2d.h"
#include "cannbot/ops/reference/dwsep_block.h"
#include "cannbot/ops/reference/matmul.h"
#include "cannbot/ops/registry.h"
#include "unit_support.h"

namespace cannbot::ops {
namespace {

using Tensor = std::vector<float>;

using cannbot::test::Draw;

const OpSpec& Op(const char* name) {
  const OpSpec* op = cannbot_test::BuiltInOps().Find(name);
  EXPECT_NE(op, nullptr) << name;
  return *op;
}

// Every input of `op` at `shape`, drawn from the catalog's distributions, by name.
std::map<std::string, Tensor> Inputs(const OpSpec& op, const Shape& shape, uint64_t seed) {
  std::map<std::string, Tensor> inputs;
  for (const Param* p : op.ParamsOfKind(ParamKind::kInput)) {
    inputs[p->name] = Draw(op.InputDistribution(shape.label, p->name), p->elements(shape), seed++);
  }
  return inputs;
}

std::vector<Shape> NumericShapes(const OpSpec& op) {
  std::vector<Shape> shapes;
  for (const Shape& s : op.shapes) {
    if (!s.perf) shapes.push_back(s);
  }
  return shapes;
}

struct Geometry {
  int64_t n, c, h, w, k, kh, kw, stride, pad, oh, ow;
};

Geometry Geom(const Shape& s) {
  Geometry g{};
  g.n = s.Size("n");
  g.c = s.Size("c");
  g.h = s.Size("h");
  g.w = s.Size("w_");
  g.k = s.sizes.count("k") ? s.Size("k") : g.c;
  g.kh = s.Size("kh");
  g.kw = s.Size("kw");
  g.stride = s.Size("stride");
  g.pad = s.Size("pad");
  g.oh = (g.h + 2 * g.pad - g.kh) / g.stride + 1;
  g.ow = (g.w + 2 * g.pad - g.kw) / g.stride + 1;
  return g;
}

Tensor Conv2d(const Tensor& x, const Tensor& w, const Tensor& bias, const Geometry& g) {
  Tensor y(static_cast<size_t>(g.n * g.k * g.oh * g.ow), -123.0f);
  cannbot_ref::conv2d(x.data(), w.data(), bias.data(), y.data(), g.n, g.c, g.h, g.w, g.k, g.kh,
                      g.kw, g.stride, g.pad);
  return y;
}

void ExpectClose(const Tensor& got, const Tensor& want, double atol, double rtol,
                 const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  int64_t reported = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double err = std::fabs(static_cast<double>(got[i]) - want[i]);
    if (!(err <= atol + rtol * std::fabs(want[i])) && reported++ < 5) {
      ADD_FAILURE() << what << " element " << i << ": got " << got[i] << ", want " << want[i];
    }
  }
}

TEST(ReferenceConv2dTest, HandComputedStrideAndPadding) {
  // One 3x3 channel, one 2x2 filter [[1,2],[3,4]].
  const Tensor x = {1, 2, 3, 4, 5, 6, 7, 8, 9}, w = {1, 2, 3, 4};
  Geometry g{1, 1, 3, 3, 1, 2, 2, 1, 0, 2, 2};
  EXPECT_EQ(Conv2d(x, w, {0.5f}, g), (Tensor{37.5f, 47.5f, 67.5f, 77.5f}));
  // stride 2, pad 1: the top-left window sees only x[0][0] under w[1][1].
  g.stride = 2;
  g.pad = 1;
  EXPECT_EQ(Conv2d(x, w, {0.0f}, g), (Tensor{4, 18, 36, 77}));
}

TEST(ReferenceConv2dTest, MatchesIm2colTimesMatmul) {
  const OpSpec& op = Op("conv2d");
  for (const Shape& s : NumericShapes(op)) {
    const Geometry g = Geom(s);
    auto in = Inputs(op, s, 100);
    const int64_t taps = g.c * g.kh * g.kw, pixels = g.oh * g.ow;
    Tensor want(static_cast<size_t>(g.n * g.k * pixels));
    for (int64_t b = 0; b < g.n; ++b) {
      // cols[tap][pixel]: the input value each filter tap multiplies at each output pixel.
      Tensor cols(static_cast<size_t>(taps * pixels), 0.0f);
      for (int64_t ci = 0; ci < g.c; ++ci) {
        for (int64_t i = 0; i < g.kh; ++i) {
          for (int64_t j = 0; j < g.kw; ++j) {
            const int64_t tap = (ci * g.kh + i) * g.kw + j;
            for (int64_t oy = 0; oy < g.oh; ++oy) {
              for (int64_t ox = 0; ox < g.ow; ++ox) {
                const int64_t iy = oy * g.stride + i - g.pad, ix = ox * g.stride + j - g.pad;
                if (iy >= 0 && iy < g.h && ix >= 0 && ix < g.w) {
                  cols[tap * pixels + oy * g.ow + ox] =
                      in["x"][((b * g.c + ci) * g.h + iy) * g.w + ix];
                }
              }
            }
          }
        }
      }
      // The filter as a [k, taps] matrix times cols [taps, pixels], then the bias.
      Tensor out(static_cast<size_t>(g.k * pixels));
      cannbot_ref::matmul(in["w"].data(), cols.data(), out.data(), g.k, pixels, taps);
      for (int64_t o = 0; o < g.k; ++o) {
        for (int64_t p = 0; p < pixels; ++p) {
          want[(b * g.k + o) * pixels + p] = out[o * pixels + p] + in["bias"][o];
        }
      }
    }
    ExpectClose(Conv2d(in["x"], in["w"], in["bias"], g), want, 1e-6, 1e-6, s.label);
  }
}

TEST(ReferenceDepthwiseConv2dTest, EqualsDenseConvWithBlockDiagonalFilter) {
  const OpSpec& op = Op("depthwise_conv2d");
  for (const Shape& s : NumericShapes(op)) {
    const Geometry g = Geom(s);
    auto in = Inputs(op, s, 200);
    // Output channel ch of the dense filter is zero except on input channel ch.
    Tensor dense(static_cast<size_t>(g.c * g.c * g.kh * g.kw), 0.0f);
    for (int64_t ch = 0; ch < g.c; ++ch) {
      for (int64_t t = 0; t < g.kh * g.kw; ++t) {
        dense[(ch * g.c + ch) * g.kh * g.kw + t] = in["w"][ch * g.kh * g.kw + t];
      }
    }
    const Tensor want = Conv2d(in["x"], dense, Tensor(static_cast<size_t>(g.c), 0.0f), g);
    Tensor y(want.size(), -123.0f);
    cannbot_ref::depthwise_conv2d(in["x"].data(), in["w"].data(), y.data(), g.n, g.c, g.h, g.w,
                                  g.kh, g.kw, g.stride, g.pad);
    ExpectClose(y, want, 1e-7, 1e-7, s.label);
  }
}

// gamma * (v - mean) / sqrt(var + eps) + beta, then relu, in double.
float BnRelu(double v, float gamma, float beta, float mean, float var, float eps) {
  const double t = gamma * (v - mean) / std::sqrt(static_cast<double>(var) + eps) + beta;
  return static_cast<float>(std::max(t, 0.0));
}

TEST(ReferenceConvBnReluTest, EqualsConvThenBatchNormThenRelu) {
  const OpSpec& op = Op("conv_bn_relu");
  int64_t zeros = 0, positives = 0;
  for (const Shape& s : NumericShapes(op)) {
    const Geometry g = Geom(s);
    const float eps = s.Scalar("eps");
    auto in = Inputs(op, s, 300);
    const Tensor conv = Conv2d(in["x"], in["w"], in["bias"], g);
    Tensor want(conv.size());
    for (size_t i = 0; i < conv.size(); ++i) {
      const size_t o = (i / static_cast<size_t>(g.oh * g.ow)) % static_cast<size_t>(g.k);
      want[i] = BnRelu(conv[i], in["gamma"][o], in["beta"][o], in["mean"][o], in["var"][o], eps);
      (want[i] == 0.0f ? zeros : positives) += 1;
    }
    Tensor y(want.size(), -123.0f);
    cannbot_ref::conv_bn_relu(in["x"].data(), in["w"].data(), in["bias"].data(), in["gamma"].data(),
                              in["beta"].data(), in["mean"].data(), in["var"].data(), y.data(), g.n,
                              g.c, g.h, g.w, g.k, g.kh, g.kw, g.stride, g.pad, eps);
    // conv is rounded to float before the BN here, and the BN gain is at most ~4.7.
    ExpectClose(y, want, 1e-6, 1e-5, s.label);
  }
  // Both sides of the relu were exercised.
  EXPECT_GT(zeros, 100);
  EXPECT_GT(positives, 100);
}

TEST(ReferenceDwsepBlockTest, EqualsItsSixStepsComposed) {
  const OpSpec& op = Op("dwsep_block");
  for (const Shape& s : NumericShapes(op)) {
    const Geometry g = Geom(s);
    const float eps = s.Scalar("eps");
    auto in = Inputs(op, s, 400);
    const int64_t pixels = g.oh * g.ow;
    // Steps 1-3: depthwise conv, BN1, relu.
    Tensor d(static_cast<size_t>(g.n * g.c * pixels));
    cannbot_ref::depthwise_conv2d(in["x"].data(), in["dw_w"].data(), d.data(), g.n, g.c, g.h, g.w,
                                  g.kh, g.kw, g.stride, g.pad);
    for (size_t i = 0; i < d.size(); ++i) {
      const size_t ch = (i / static_cast<size_t>(pixels)) % static_cast<size_t>(g.c);
      d[i] = BnRelu(d[i], in["bn1_gamma"][ch], in["bn1_beta"][ch], in["bn1_mean"][ch],
                    in["bn1_var"][ch], eps);
    }
    // Steps 4-6: 1x1 pointwise conv over channels, BN2, relu.
    Tensor want(static_cast<size_t>(g.n * g.k * pixels));
    for (int64_t b = 0; b < g.n; ++b) {
      for (int64_t p = 0; p < pixels; ++p) {
        for (int64_t o = 0; o < g.k; ++o) {
          double acc = 0;
          for (int64_t ch = 0; ch < g.c; ++ch) {
            acc += static_cast<double>(in["pw_w"][o * g.c + ch]) * d[(b * g.c + ch) * pixels + p];
          }
          want[(b * g.k + o) * pixels + p] = BnRelu(acc, in["bn2_gamma"][o], in["bn2_beta"][o],
                                                    in["bn2_mean"][o], in["bn2_var"][o], eps);
        }
      }
    }
    Tensor y(want.size(), -123.0f);
    cannbot_ref::dwsep_block(in["x"].data(), in["dw_w"].data(), in["bn1_gamma"].data(),
                             in["bn1_beta"].data(), in["bn1_mean"].data(), in["bn1_var"].data(),
                             in["pw_w"].data(), in["bn2_gamma"].data(), in["bn2_beta"].data(),
                             in["bn2_mean"].data(), in["bn2_var"].data(), y.data(), g.n, g.c, g.h,
                             g.w, g.k, g.kh, g.kw, g.stride, g.pad, eps);
    // The intermediate is rounded to float here; two BN gains of <= 4.7 amplify that.
    ExpectClose(y, want, 1e-5, 1e-5, s.label);
    EXPECT_TRUE(std::any_of(y.begin(), y.end(), [](float v) { return v > 0.0f; })) << s.label;
  }
}

using cannbot::test::Failures;

// Sequential fp32 direct convolution; `skip_last_tap` drops the filter's last tap, the kind
// of off-by-one the tolerance must catch.
Tensor Conv2dFp32(const Tensor& x, const Tensor& w, const Tensor& bias, const Geometry& g,
                  bool skip_last_tap) {
  Tensor y(static_cast<size_t>(g.n * g.k * g.oh * g.ow));
  for (int64_t b = 0; b < g.n; ++b) {
    for (int64_t o = 0; o < g.k; ++o) {
      for (int64_t oy = 0; oy < g.oh; ++oy) {
        for (int64_t ox = 0; ox < g.ow; ++ox) {
          float acc = bias[o];
          for (int64_t ci = 0; ci < g.c; ++ci) {
            for (int64_t i = 0; i < g.kh; ++i) {
              for (int64_t j = 0; j < g.kw; ++j) {
                if (skip_last_tap && i == g.kh - 1 && j == g.kw - 1) continue;
                const int64_t iy = oy * g.stride + i - g.pad, ix = ox * g.stride + j - g.pad;
                if (iy < 0 || iy >= g.h || ix < 0 || ix >= g.w) continue;
                acc += x[((b * g.c + ci) * g.h + iy) * g.w + ix] *
                       w[((o * g.c + ci) * g.kh + i) * g.kw + j];
              }
            }
          }
          y[((b * g.k + o) * g.oh + oy) * g.ow + ox] = acc;
        }
      }
    }
  }
  return y;
}

TEST(ReferenceConv2dTest, ToleranceAcceptsFp32AndRejectsAMissingTap) {
  const OpSpec& op = Op("conv2d");
  for (const Shape& s : op.shapes) {
    if (s.label == "tiny") continue;  // a single tap: nothing to drop
    const Geometry g = Geom(s);
    auto in = Inputs(op, s, 500);
    const Tensor want = Conv2d(in["x"], in["w"], in["bias"], g);
    const Tolerance tol = op.tolerance(s);
    EXPECT_EQ(Failures(Conv2dFp32(in["x"], in["w"], in["bias"], g, false), want, tol), 0)
        << s.label;
    EXPECT_GT(Failures(Conv2dFp32(in["x"], in["w"], in["bias"], g, true), want, tol),
              static_cast<int64_t>(want.size()) / 2)
        << s.label;
  }
}

}  // namespace
}  // namespace cannbot::ops
