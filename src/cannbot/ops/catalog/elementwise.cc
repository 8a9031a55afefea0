// Catalog: elementwise ops (add, relu, swish, gelu, prelu).
#include "cannbot/ops/reference/add.h"
#include "cannbot/ops/reference/gelu.h"
#include "cannbot/ops/reference/prelu.h"
#include "cannbot/ops/reference/relu.h"
#include "cannbot/ops/reference/swish.h"
#include "cannbot/ops/registry.h"

namespace cannbot::ops {
namespace {

constexpr int64_t kPerfElements = int64_t{1} << 22;

int64_t N(const Shape& s) { return s.Size("n"); }

// The shapes every 1-D elementwise op is checked on: tiny, odd (not a multiple of 8 or 16,
// so vector remainders run), a mid size, and the perf size.
std::vector<Shape> FlatShapes() {
  return {
      {"tiny", {{"n", 1}}, {}, false},
      {"odd", {{"n", 1037}}, {}, false},
      {"medium", {{"n", 65536 + 13}}, {}, false},
      {"perf", {{"n", kPerfElements}}, {}, true},
  };
}

Distribution Wide() {
  Distribution d;
  d.kind = Distribution::Kind::kNormal;
  d.a = 0.0;
  d.b = 4.0;
  // Large magnitudes overflow a naive exp(-x); zeros and denormals check the odd corners.
  d.edge_values = {0.0f, -0.0f, 1e-30f, -1e-30f, 20.0f, -20.0f, 88.0f, -88.0f,
                   100.0f, -100.0f, 1e4f, -1e4f, 3e38f, -3e38f};
  d.edge_fraction = 0.02;
  return d;
}

OpSpec Add() {
  OpSpec op;
  op.name = "add";
  op.family = "binary";
  op.summary = "elementwise sum: y = a + b";
  op.semantics = "y[i] = a[i] + b[i] for 0 <= i < n. fp32 in, fp32 out; the result must be "
                 "the correctly rounded fp32 sum.";
  op.params = {{"a", ParamKind::kInput, N},
               {"b", ParamKind::kInput, N},
               {"y", ParamKind::kOutput, N},
               {"n", ParamKind::kSize, {}}};
  op.shapes = FlatShapes();
  Distribution d;
  d.a = -100.0;
  d.b = 100.0;
  op.inputs = {{"a", d}, {"b", d}};
  op.tolerance = [](const Shape&) { return Tolerance{0.0, 1e-6}; };
  op.flops = [](const Shape& s) { return static_cast<double>(N(s)); };
  op.reference = [](const TensorArgs& t, const Shape& s) {
    cannbot_ref::add(t.inputs[0], t.inputs[1], t.outputs[0], N(s));
  };
  return op;
}

OpSpec Swish() {
  OpSpec op;
  op.name = "swish";
  op.family = "activation";
  op.summary = "swish / SiLU: y = x * sigmoid(x)";
  op.semantics = "y[i] = x[i] / (1 + exp(-x[i])) for 0 <= i < n. Must stay finite and "
                 "accurate for |x| up to 3e38 (sigmoid saturates to 0 or 1).";
  op.params = {{"x", ParamKind::kInput, N},
               {"y", ParamKind::kOutput, N},
               {"n", ParamKind::kSize, {}}};
  op.shapes = FlatShapes();
  op.inputs = {{"x", Wide()}};
  op.tolerance = [](const Shape&) { return Tolerance{1e-5, 1e-5}; };
  // exp, then 1 + e and the divide (the negation is free).
  op.flops = [](const Shape& s) {
    return (kTranscendentalFlops + 2.0) * static_cast<double>(N(s));
  };
  op.reference = [](const TensorArgs& t, const Shape& s) {
    cannbot_ref::swish(t.inputs[0], t.outputs[0], N(s));
  };
  return op;
}

OpSpec Relu() {
  OpSpec op;
  op.name = "relu";
  op.family = "activation";
  op.summary = "rectified linear unit: y = max(x, 0)";
  op.semantics = "y[i] = x[i] > 0 ? x[i] : 0 for 0 <= i < n. fp32 in, fp32 out; the result is "
                 "exact (no rounding), so it must match the reference bit for bit up to the "
                 "sign of zero.";
  op.params = {{"x", ParamKind::kInput, N},
               {"y", ParamKind::kOutput, N},
               {"n", ParamKind::kSize, {}}};
  op.shapes = FlatShapes();
  op.inputs = {{"x", Wide()}};
  // max(x, 0) never rounds, so any difference is a bug (-0 vs +0 compares equal).
  op.tolerance = [](const Shape&) { return Tolerance{0.0, 0.0}; };
  op.flops = [](const Shape& s) { return static_cast<double>(N(s)); };  // one max
  op.reference = [](const TensorArgs& t, const Shape& s) {
    cannbot_ref::relu(t.inputs[0], t.outputs[0], N(s));
  };
  return op;
}

OpSpec Gelu() {
  OpSpec op;
  op.name = "gelu";
  op.family = "activation";
  op.summary = "GELU, exact erf form: y = 0.5 * x * (1 + erf(x / sqrt(2)))";
  op.semantics = "y[i] = 0.5 * x[i] * (1 + erf(x[i] / sqrt(2))) for 0 <= i < n (the exact "
                 "Gaussian CDF form, not the tanh approximation, which is off by up to 5e-4 "
                 "and fails the tolerance). Must stay finite and accurate for |x| up to 3e38: "
                 "y -> x for large positive x and y -> -0 for large negative x, so an erf "
                 "approximation must saturate to exactly +-1.";
  op.params = {{"x", ParamKind::kInput, N},
               {"y", ParamKind::kOutput, N},
               {"n", ParamKind::kSize, {}}};
  op.shapes = FlatShapes();
  op.inputs = {{"x", Wide()}};
  // A few-ulp fp32 erf is within ~1e-6 of exact; the tanh form is off by ~5e-4 and fails.
  op.tolerance = [](const Shape&) { return Tolerance{1e-5, 1e-5}; };
  // x / sqrt(2), erf, 1 + erf, and the two multiplies.
  op.flops = [](const Shape& s) {
    return (kTranscendentalFlops + 4.0) * static_cast<double>(N(s));
  };
  op.reference = [](const TensorArgs& t, const Shape& s) {
    cannbot_ref::gelu(t.inputs[0], t.outputs[0], N(s));
  };
  return op;
}

int64_t PreluElements(const Shape& s) { return s.Size("n") * s.Size("c") * s.Size("hw"); }
int64_t PreluChannels(const Shape& s) { return s.Size("c"); }

OpSpec Prelu() {
  OpSpec op;
  op.name = "prelu";
  op.family = "activation";
  op.summary = "parametric relu with one learned slope per channel";
  op.semantics = "x and y are [n, c, hw] row-major (NCHW with H*W flattened to hw), alpha is "
                 "[c]. y[b][ch][i] = x[b][ch][i] > 0 ? x[b][ch][i] : alpha[ch] * x[b][ch][i], "
                 "i.e. element e = (b*c + ch)*hw + i uses alpha[(e / hw) % c]. One fp32 "
                 "multiply, so the result is the correctly rounded fp32 product.";
  op.params = {{"x", ParamKind::kInput, PreluElements},
               {"alpha", ParamKind::kInput, PreluChannels},
               {"y", ParamKind::kOutput, PreluElements},
               {"n", ParamKind::kSize, {}},
               {"c", ParamKind::kSize, {}},
               {"hw", ParamKind::kSize, {}}};
  op.shapes = {
      {"tiny", {{"n", 1}, {"c", 1}, {"hw", 1}}, {}, false},
      {"odd", {{"n", 3}, {"c", 7}, {"hw", 37}}, {}, false},
      {"medium", {{"n", 2}, {"c", 32}, {"hw", 28 * 28}}, {}, false},
      {"perf", {{"n", 1}, {"c", 64}, {"hw", 65536}}, {}, true},
  };
  Distribution x;
  x.kind = Distribution::Kind::kNormal;
  x.a = 0.0;
  x.b = 2.0;
  // Huge negatives check alpha * x cannot overflow; signed zeros and tiny values the sign test.
  x.edge_values = {0.0f, -0.0f, 1e-30f, -1e-30f, 1e4f, -1e4f, 3e38f, -3e38f};
  x.edge_fraction = 0.01;
  Distribution alpha;
  alpha.a = 0.01;
  alpha.b = 0.5;
  op.inputs = {{"x", x}, {"alpha", alpha}};
  // A single fp32 multiply is correctly rounded; only a wrong channel or formula differs.
  op.tolerance = [](const Shape&) { return Tolerance{0.0, 1e-6}; };
  op.flops = [](const Shape& s) {  // compare + multiply
    return 2.0 * static_cast<double>(PreluElements(s));
  };
  op.reference = [](const TensorArgs& t, const Shape& s) {
    cannbot_ref::prelu(t.inputs[0], t.inputs[1], t.outputs[0], s.Size("n"), s.Size("c"),
                       s.Size("hw"));
  };
  return op;
}

}  // namespace

void AddElementwiseOps(std::vector<OpSpec>* ops) {
  ops->push_back(Add());
  ops->push_back(Relu());
  ops->push_back(Swish());
  ops->push_back(Gelu());
  ops->push_back(Prelu());
}

}  // namespace cannbot::ops
