// Catalog: elementwise ops (add, relu, swish, gelu, prelu).
#include "cannbot/ops/reference/add.h"
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
  op.summary = "swish / SiLU: y = x * sigmoid(x)";
  op.semantics = "y[i] = x[i] / (1 + exp(-x[i])) for 0 <= i < n. Must stay finite and "
                 "accurate for |x| up to 3e38 (sigmoid saturates to 0 or 1).";
  op.params = {{"x", ParamKind::kInput, N},
               {"y", ParamKind::kOutput, N},
               {"n", ParamKind::kSize, {}}};
  op.shapes = FlatShapes();
  op.inputs = {{"x", Wide()}};
  op.tolerance = [](const Shape&) { return Tolerance{1e-5, 1e-5}; };
  // exp, add, divide (and the multiply folded in): about 4 operations per element.
  op.flops = [](const Shape& s) { return 4.0 * static_cast<double>(N(s)); };
  op.reference = [](const TensorArgs& t, const Shape& s) {
    cannbot_ref::swish(t.inputs[0], t.outputs[0], N(s));
  };
  return op;
}

}  // namespace

void AddElementwiseOps(std::vector<OpSpec>* ops) {
  ops->push_back(Add());
  ops->push_back(Swish());
}

}  // namespace cannbot::ops
