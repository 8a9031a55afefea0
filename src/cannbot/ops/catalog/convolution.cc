// Catalog: convolution ops (conv2d, depthwise_conv2d, conv_bn_relu, dwsep_block).
#include <cfloat>
#include <cmath>
#include <string>

#include "cannbot/ops/reference/conv2d.h"
#include "cannbot/ops/reference/conv_bn_relu.h"
#include "cannbot/ops/reference/depthwise_conv2d.h"
#include "cannbot/ops/reference/dwsep_block.h"
#include "cannbot/ops/registry.h"

namespace cannbot::ops {
namespace {

// Batch-norm parameter ranges. gamma / sqrt(var + eps) is at most kBnGammaMax /
// sqrt(kBnVarMin) ~ 4.74: the factor by which a BN stage can magnify an upstream error.
constexpr double kBnGammaMax = 1.5;
constexpr double kBnVarMin = 0.1;

double MaxBnGain() { return kBnGammaMax / std::sqrt(kBnVarMin); }

// Output extent of one spatial axis; 0 when the (padded) input cannot hold the kernel or the
// stride is invalid, so element counts stay sane until check_shape rejects the shape.
int64_t OutDim(int64_t in, int64_t kernel, int64_t stride, int64_t pad) {
  if (stride < 1 || kernel < 1 || in + 2 * pad < kernel) return 0;
  return (in + 2 * pad - kernel) / stride + 1;
}

int64_t Oh(const Shape& s) {
  return OutDim(s.Size("h"), s.Size("kh"), s.Size("stride"), s.Size("pad"));
}
int64_t Ow(const Shape& s) {
  return OutDim(s.Size("w_"), s.Size("kw"), s.Size("stride"), s.Size("pad"));
}
double D(int64_t v) { return static_cast<double>(v); }

// Input image, filter and output element counts shared by every op here.
int64_t XElements(const Shape& s) {
  return s.Size("n") * s.Size("c") * s.Size("h") * s.Size("w_");
}
int64_t DenseFilter(const Shape& s) {
  return s.Size("k") * s.Size("c") * s.Size("kh") * s.Size("kw");
}
int64_t DepthwiseFilter(const Shape& s) { return s.Size("c") * s.Size("kh") * s.Size("kw"); }
int64_t PerK(const Shape& s) { return s.Size("k"); }
int64_t PerC(const Shape& s) { return s.Size("c"); }
int64_t PointwiseFilter(const Shape& s) { return s.Size("k") * s.Size("c"); }
int64_t YElementsK(const Shape& s) { return s.Size("n") * s.Size("k") * Oh(s) * Ow(s); }
int64_t YElementsC(const Shape& s) { return s.Size("n") * s.Size("c") * Oh(s) * Ow(s); }

Status CheckGeometry(const Shape& s) {
  if (s.Size("stride") < 1) return Status::InvalidArgument("stride must be >= 1");
  if (s.Size("kh") < 1 || s.Size("kw") < 1) {
    return Status::InvalidArgument("kernel sizes kh and kw must be >= 1");
  }
  if (Oh(s) < 1 || Ow(s) < 1) {
    return Status::InvalidArgument("the kernel does not fit the padded image: need "
                                   "h + 2*pad >= kh and w_ + 2*pad >= kw");
  }
  if (s.scalars.count("eps") && !(s.Scalar("eps") >= 0.0f && std::isfinite(s.Scalar("eps")))) {
    return Status::InvalidArgument("eps must be finite and >= 0");
  }
  return Status::Ok();
}

std::vector<Param> SizeParams(std::vector<std::string> names) {
  std::vector<Param> params;
  for (std::string& name : names) params.push_back({std::move(name), ParamKind::kSize, {}});
  return params;
}

void Append(std::vector<Param>* to, std::vector<Param> more) {
  for (Param& p : more) to->push_back(std::move(p));
}

using Sizes = std::map<std::string, int64_t>;

// n, c, h, w_, k, kh, kw, stride, pad for ops with k output channels.
Sizes DenseSizes(int64_t n, int64_t c, int64_t h, int64_t w, int64_t k, int64_t kh,
                 int64_t kw, int64_t stride, int64_t pad) {
  return {{"n", n},   {"c", c},   {"h", h},           {"w_", w},    {"k", k},
          {"kh", kh}, {"kw", kw}, {"stride", stride}, {"pad", pad}};
}

// Dense-conv shapes: tiny 1x1; "odd" has a non-square image and kernel, stride 2, pad 1 and
// a padded height that the stride does not divide; "valid" stride 2, pad 0, 5x3 kernel;
// "medium" a ResNet-like 3x3, stride 1, pad 1 layer.
std::vector<Shape> DenseShapes(bool with_eps) {
  std::vector<Shape> shapes = {
      {"tiny", DenseSizes(1, 1, 1, 1, 1, 1, 1, 1, 0), {}, false},
      {"odd", DenseSizes(2, 3, 14, 7, 5, 3, 2, 2, 1), {}, false},
      {"valid", DenseSizes(1, 7, 13, 33, 13, 5, 3, 2, 0), {}, false},
      {"medium", DenseSizes(2, 16, 28, 28, 32, 3, 3, 1, 1), {}, false},
      {"perf", DenseSizes(1, 32, 56, 56, 32, 3, 3, 1, 1), {}, true},
  };
  if (with_eps) {
    // A large eps on "odd" makes a dropped or misplaced eps visible.
    for (Shape& s : shapes) s.scalars["eps"] = s.label == "odd" ? 1e-3f : 1e-5f;
  }
  return shapes;
}

Distribution Activations() { return Distribution::Normal(0.0, 1.0); }
Distribution Weights() { return Distribution::Uniform(-0.5, 0.5); }
Distribution BnGamma() { return Distribution::Uniform(0.5, kBnGammaMax); }
Distribution BnBeta() { return Distribution::Uniform(-0.5, 0.5); }
Distribution BnMean() { return Distribution::Normal(0.0, 0.5); }
Distribution BnVar() { return Distribution::Uniform(kBnVarMin, 2.0); }  // must stay positive

// With x ~ N(0,1) and |w| <= 0.5, an fp32 sum of `terms` products drifts by about `terms`
// ulps of 1 in the worst common (sequential) order; 2*terms*FLT_EPSILON measured >= 4x
// above that at the perf shapes, while a missing or misindexed tap is off by ~0.1 or more.
double ReductionAtol(double terms) { return 2.0 * terms * FLT_EPSILON; }

constexpr const char* kConvLayout =
    "NCHW, row-major, zero padding: taps outside the image read 0. "
    "oh = (h + 2*pad - kh) / stride + 1, ow = (w_ + 2*pad - kw) / stride + 1 (floor). ";

constexpr const char* kDenseConvFormula =
    "x is [n, c, h, w_], w is [k, c, kh, kw], bias is [k], y is [n, k, oh, ow]. "
    "conv[b][o][oy][ox] = bias[o] + sum_{ci<c, i<kh, j<kw} "
    "x[b][ci][oy*stride - pad + i][ox*stride - pad + j] * w[o][ci][i][j]. ";

OpSpec Conv2d() {
  OpSpec op;
  op.name = "conv2d";
  op.family = "convolution";
  op.summary = "2-D convolution with bias, NCHW, zero padding";
  op.semantics = std::string(kConvLayout) + kDenseConvFormula + "y = conv.";
  op.params = {{"x", ParamKind::kInput, XElements},
               {"w", ParamKind::kInput, DenseFilter},
               {"bias", ParamKind::kInput, PerK},
               {"y", ParamKind::kOutput, YElementsK}};
  Append(&op.params, SizeParams({"n", "c", "h", "w_", "k", "kh", "kw", "stride", "pad"}));
  op.shapes = DenseShapes(false);
  op.inputs = {{"x", Activations()}, {"w", Weights()}, {"bias", Weights()}};
  op.tolerance = [](const Shape& s) {
    return Tolerance{ReductionAtol(D(s.Size("c") * s.Size("kh") * s.Size("kw"))), 1e-5};
  };
  op.check_shape = CheckGeometry;
  op.flops = [](const Shape& s) {  // a multiply-add (2) per tap, plus the bias add
    return D(YElementsK(s)) * (2.0 * D(s.Size("c") * s.Size("kh") * s.Size("kw")) + 1.0);
  };
  op.reference = [](const TensorArgs& t, const Shape& s) {
    cannbot_ref::conv2d(t.inputs[0], t.inputs[1], t.inputs[2], t.outputs[0], s.Size("n"),
                        s.Size("c"), s.Size("h"), s.Size("w_"), s.Size("k"), s.Size("kh"),
                        s.Size("kw"), s.Size("stride"), s.Size("pad"));
  };
  return op;
}

Sizes DepthwiseSizes(int64_t n, int64_t c, int64_t h, int64_t w, int64_t kh, int64_t kw,
                     int64_t stride, int64_t pad) {
  return {{"n", n},   {"c", c},   {"h", h},           {"w_", w},
          {"kh", kh}, {"kw", kw}, {"stride", stride}, {"pad", pad}};
}

OpSpec DepthwiseConv2d() {
  OpSpec op;
  op.name = "depthwise_conv2d";
  op.family = "convolution";
  op.summary = "depthwise 2-D convolution (one filter per channel), NCHW, no bias";
  op.semantics =
      std::string(kConvLayout) +
      "x is [n, c, h, w_], w is [c, 1, kh, kw], y is [n, c, oh, ow]; channel ch only sees "
      "its own filter: y[b][ch][oy][ox] = sum_{i<kh, j<kw} "
      "x[b][ch][oy*stride - pad + i][ox*stride - pad + j] * w[ch][0][i][j]. No bias.";
  op.params = {{"x", ParamKind::kInput, XElements},
               {"w", ParamKind::kInput, DepthwiseFilter},
               {"y", ParamKind::kOutput, YElementsC}};
  Append(&op.params, SizeParams({"n", "c", "h", "w_", "kh", "kw", "stride", "pad"}));
  // "odd": non-square image and 3x5 kernel, stride 2, pad 1; "valid": stride 2, pad 0.
  op.shapes = {
      {"tiny", DepthwiseSizes(1, 1, 1, 1, 1, 1, 1, 0), {}, false},
      {"odd", DepthwiseSizes(2, 7, 13, 9, 3, 5, 2, 1), {}, false},
      {"valid", DepthwiseSizes(1, 13, 33, 37, 3, 3, 2, 0), {}, false},
      {"medium", DepthwiseSizes(2, 32, 56, 56, 3, 3, 1, 1), {}, false},
      {"perf", DepthwiseSizes(1, 64, 112, 112, 3, 3, 1, 1), {}, true},
  };
  op.inputs = {{"x", Activations()}, {"w", Weights()}};
  op.tolerance = [](const Shape& s) {
    return Tolerance{ReductionAtol(D(s.Size("kh") * s.Size("kw"))), 1e-5};
  };
  op.check_shape = CheckGeometry;
  op.flops = [](const Shape& s) {  // a multiply-add (2) per tap
    return D(YElementsC(s)) * 2.0 * D(s.Size("kh") * s.Size("kw"));
  };
  op.reference = [](const TensorArgs& t, const Shape& s) {
    cannbot_ref::depthwise_conv2d(t.inputs[0], t.inputs[1], t.outputs[0], s.Size("n"),
                                  s.Size("c"), s.Size("h"), s.Size("w_"), s.Size("kh"),
                                  s.Size("kw"), s.Size("stride"), s.Size("pad"));
  };
  return op;
}

// Flops of batch norm + relu on one value: subtract mean, scale, add beta, max.
constexpr double kBnReluFlops = 4.0;

OpSpec ConvBnRelu() {
  OpSpec op;
  op.name = "conv_bn_relu";
  op.family = "convolution";
  op.summary = "fused conv2d + inference batch norm + relu, NCHW";
  op.semantics =
      std::string(kConvLayout) + kDenseConvFormula +
      "gamma, beta, mean, var are [k] (per output channel o). "
      "y[b][o][oy][ox] = max(0, gamma[o] * (conv[b][o][oy][ox] - mean[o]) / "
      "sqrt(var[o] + eps) + beta[o]). Folding BN into the weights "
      "(w' = w * gamma / sqrt(var + eps), b' = (bias - mean) * gamma / sqrt(var + eps) + beta) "
      "is allowed.";
  op.params = {{"x", ParamKind::kInput, XElements},
               {"w", ParamKind::kInput, DenseFilter},
               {"bias", ParamKind::kInput, PerK},
               {"gamma", ParamKind::kInput, PerK},
               {"beta", ParamKind::kInput, PerK},
               {"mean", ParamKind::kInput, PerK},
               {"var", ParamKind::kInput, PerK},
               {"y", ParamKind::kOutput, YElementsK}};
  Append(&op.params, SizeParams({"n", "c", "h", "w_", "k", "kh", "kw", "stride", "pad"}));
  op.params.push_back({"eps", ParamKind::kScalar, {}});
  op.shapes = DenseShapes(true);
  op.inputs = {{"x", Activations()}, {"w", Weights()},  {"bias", Weights()},
               {"gamma", BnGamma()}, {"beta", BnBeta()}, {"mean", BnMean()},
               {"var", BnVar()}};
  // The BN scale multiplies the convolution's rounding error by up to MaxBnGain().
  op.tolerance = [](const Shape& s) {
    const double terms = D(s.Size("c") * s.Size("kh") * s.Size("kw"));
    return Tolerance{ReductionAtol(terms) * MaxBnGain(), 1e-5};
  };
  op.check_shape = CheckGeometry;
  op.flops = [](const Shape& s) {  // conv2d's count plus BN + relu per output value
    const double taps = D(s.Size("c") * s.Size("kh") * s.Size("kw"));
    return D(YElementsK(s)) * (2.0 * taps + 1.0 + kBnReluFlops);
  };
  op.reference = [](const TensorArgs& t, const Shape& s) {
    cannbot_ref::conv_bn_relu(t.inputs[0], t.inputs[1], t.inputs[2], t.inputs[3], t.inputs[4],
                              t.inputs[5], t.inputs[6], t.outputs[0], s.Size("n"), s.Size("c"),
                              s.Size("h"), s.Size("w_"), s.Size("k"), s.Size("kh"),
                              s.Size("kw"), s.Size("stride"), s.Size("pad"),
                              s.Scalar("eps"));
  };
  return op;
}

OpSpec DwsepBlock() {
  OpSpec op;
  op.name = "dwsep_block";
  op.family = "convolution";
  op.summary = "depthwise-separable block: dwconv -> BN -> relu -> 1x1 conv -> BN -> relu";
  op.semantics =
      std::string(kConvLayout) +
      "x is [n, c, h, w_], dw_w is [c, 1, kh, kw], pw_w is [k, c], bn1_* are [c], bn2_* are "
      "[k], y is [n, k, oh, ow]. Six steps, inference mode, no conv biases: "
      "d[b][ch][oy][ox] = sum_{i<kh, j<kw} x[b][ch][oy*stride - pad + i][ox*stride - pad + j] "
      "* dw_w[ch][0][i][j]; "
      "m = max(0, bn1_gamma[ch] * (d - bn1_mean[ch]) / sqrt(bn1_var[ch] + eps) + "
      "bn1_beta[ch]); "
      "p[b][o][oy][ox] = sum_{ch<c} pw_w[o][ch] * m[b][ch][oy][ox]; "
      "y = max(0, bn2_gamma[o] * (p - bn2_mean[o]) / sqrt(bn2_var[o] + eps) + bn2_beta[o]). "
      "The intermediates d, m, p need not be stored; folding each BN into its conv is "
      "allowed.";
  op.params = {{"x", ParamKind::kInput, XElements},
               {"dw_w", ParamKind::kInput, DepthwiseFilter},
               {"bn1_gamma", ParamKind::kInput, PerC},
               {"bn1_beta", ParamKind::kInput, PerC},
               {"bn1_mean", ParamKind::kInput, PerC},
               {"bn1_var", ParamKind::kInput, PerC},
               {"pw_w", ParamKind::kInput, PointwiseFilter},
               {"bn2_gamma", ParamKind::kInput, PerK},
               {"bn2_beta", ParamKind::kInput, PerK},
               {"bn2_mean", ParamKind::kInput, PerK},
               {"bn2_var", ParamKind::kInput, PerK},
               {"y", ParamKind::kOutput, YElementsK}};
  Append(&op.params, SizeParams({"n", "c", "h", "w_", "k", "kh", "kw", "stride", "pad"}));
  op.params.push_back({"eps", ParamKind::kScalar, {}});
  // "odd": stride 2, pad 1, non-square image, large eps; "valid": stride 1, pad 0, a 3x5
  // kernel and k > c; "medium": a MobileNet-like stage.
  op.shapes = {
      {"tiny", DenseSizes(1, 1, 1, 1, 1, 1, 1, 1, 0), {{"eps", 1e-5f}}, false},
      {"odd", DenseSizes(2, 7, 13, 11, 5, 3, 3, 2, 1), {{"eps", 1e-3f}}, false},
      {"valid", DenseSizes(1, 13, 9, 17, 33, 3, 5, 1, 0), {{"eps", 1e-5f}}, false},
      {"medium", DenseSizes(1, 32, 28, 28, 64, 3, 3, 1, 1), {{"eps", 1e-5f}}, false},
      {"perf", DenseSizes(1, 64, 56, 56, 64, 3, 3, 1, 1), {{"eps", 1e-5f}}, true},
  };
  op.inputs = {{"x", Activations()},   {"dw_w", Weights()},    {"bn1_gamma", BnGamma()},
               {"bn1_beta", BnBeta()}, {"bn1_mean", BnMean()}, {"bn1_var", BnVar()},
               {"pw_w", Weights()},    {"bn2_gamma", BnGamma()}, {"bn2_beta", BnBeta()},
               {"bn2_mean", BnMean()}, {"bn2_var", BnVar()}};
  // Two chained reductions (kh*kw taps, then c channels), each followed by a BN gain of up
  // to MaxBnGain(); measured errors stay >= 10x below this at the perf shape.
  op.tolerance = [](const Shape& s) {
    const double terms = D(s.Size("kh") * s.Size("kw") + s.Size("c"));
    return Tolerance{ReductionAtol(terms) * MaxBnGain(), 1e-5};
  };
  op.check_shape = CheckGeometry;
  op.flops = [](const Shape& s) {
    const double mid = D(YElementsC(s));  // depthwise outputs
    const double out = D(YElementsK(s));  // pointwise outputs
    return mid * (2.0 * D(s.Size("kh") * s.Size("kw")) + kBnReluFlops) +
           out * (2.0 * D(s.Size("c")) + kBnReluFlops);
  };
  op.reference = [](const TensorArgs& t, const Shape& s) {
    cannbot_ref::dwsep_block(t.inputs[0], t.inputs[1], t.inputs[2], t.inputs[3], t.inputs[4],
                             t.inputs[5], t.inputs[6], t.inputs[7], t.inputs[8], t.inputs[9],
                             t.inputs[10], t.outputs[0], s.Size("n"), s.Size("c"), s.Size("h"),
                             s.Size("w_"), s.Size("k"), s.Size("kh"), s.Size("kw"),
                             s.Size("stride"), s.Size("pad"), s.Scalar("eps"));
  };
  return op;
}

}  // namespace

void AddConvolutionOps(std::vector<OpSpec>* ops) {
  ops->push_back(Conv2d());
  ops->push_back(DepthwiseConv2d());
  ops->push_back(ConvBnRelu());
  ops->push_back(DwsepBlock());
}

}  // namespace cannbot::ops
