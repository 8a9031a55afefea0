// Catalog: normalization ops (softmax, layernorm, layernorm_gelu).
#include <cmath>

#include "cannbot/ops/reference/layernorm.h"
#include "cannbot/ops/reference/layernorm_gelu.h"
#include "cannbot/ops/reference/softmax.h"
#include "cannbot/ops/registry.h"

namespace cannbot::ops {
namespace {

// The layernorm shape whose x is drawn around kOffsetMean instead of 0 (see LayerNormInputs).
constexpr const char* kOffsetLabel = "offset";
constexpr double kOffsetMean = 100.0;

int64_t Rows(const Shape& s) { return s.Size("rows"); }
int64_t Cols(const Shape& s) { return s.Size("cols"); }
int64_t Matrix(const Shape& s) { return Rows(s) * Cols(s); }
double Elements(const Shape& s) { return static_cast<double>(Matrix(s)); }

OpSpec Softmax() {
  OpSpec op;
  op.name = "softmax";
  op.family = "normalization";
  op.summary = "softmax over the last axis of a [rows, cols] matrix";
  op.semantics =
      "x and y are [rows, cols] row-major. For every row r: m = max_j x[r][j], "
      "y[r][j] = exp(x[r][j] - m) / sum_j' exp(x[r][j'] - m). Each output row sums to 1. "
      "Inputs contain values up to +-1000, so exp(x) without subtracting the row maximum "
      "overflows to inf/NaN and fails.";
  op.params = {{"x", ParamKind::kInput, Matrix},
               {"y", ParamKind::kOutput, Matrix},
               {"rows", ParamKind::kSize, {}},
               {"cols", ParamKind::kSize, {}}};
  op.shapes = {
      {"tiny", {{"rows", 1}, {"cols", 1}}, {}, false},
      {"odd", {{"rows", 7}, {"cols", 33}}, {}, false},
      {"medium", {{"rows", 128}, {"cols", 512}}, {}, false},
      {"long", {{"rows", 5}, {"cols", 4099}}, {}, false},
      {"perf", {{"rows", 4096}, {"cols", 1024}}, {}, true},
  };
  Distribution x = Distribution::Normal(0.0, 4.0);
  // exp(100) and exp(1000) overflow fp32: only a max-subtracting kernel stays finite.
  x.edge_values = {50.0f, -50.0f, 100.0f, -100.0f, 1000.0f, -1000.0f};
  x.edge_fraction = 0.01;
  op.inputs = {{"x", x}};
  // Outputs lie in [0, 1]. Computing exp(x - (m + log(sum))) rounds m + log(sum) to an ulp
  // of |m| (6e-5 at m = 1000), a relative error of up to 3e-5 in y, so rtol is 5e-5; the
  // straightforward form measures below 5e-6. atol only covers outputs that underflow.
  op.tolerance = [](const Shape&) { return Tolerance{1e-7, 5e-5}; };
  // Per element: max, subtract, exp, sum, scale by 1/sum.
  op.flops = [](const Shape& s) { return (kTranscendentalFlops + 4.0) * Elements(s); };
  op.reference = [](const TensorArgs& t, const Shape& s) {
    cannbot_ref::softmax(t.inputs[0], t.outputs[0], Rows(s), Cols(s));
  };
  return op;
}

// Shapes shared by layernorm and layernorm_gelu. "odd" uses a large eps so a kernel that
// drops eps or adds it outside the sqrt is off by ~5% there, not by an invisible 5e-6.
std::vector<Shape> LayerNormShapes() {
  return {
      {"tiny", {{"rows", 1}, {"cols", 1}}, {{"eps", 1e-5f}}, false},
      {"odd", {{"rows", 7}, {"cols", 33}}, {{"eps", 0.1f}}, false},
      {"medium", {{"rows", 64}, {"cols", 768}}, {{"eps", 1e-5f}}, false},
      {kOffsetLabel, {{"rows", 64}, {"cols", 256}}, {{"eps", 1e-5f}}, false},
      {"perf", {{"rows", 4096}, {"cols", 1024}}, {{"eps", 1e-5f}}, true},
  };
}

void SetLayerNormCommon(OpSpec* op) {
  op->params = {{"x", ParamKind::kInput, Matrix},
                {"gamma", ParamKind::kInput, Cols},
                {"beta", ParamKind::kInput, Cols},
                {"y", ParamKind::kOutput, Matrix},
                {"rows", ParamKind::kSize, {}},
                {"cols", ParamKind::kSize, {}},
                {"eps", ParamKind::kScalar, {}}};
  op->shapes = LayerNormShapes();
  op->inputs = {{"x", Distribution::Normal(0.0, 1.0)},
                {"gamma", Distribution::Uniform(0.5, 1.5)},
                {"beta", Distribution::Uniform(-0.5, 0.5)}};
  // Rows with |mean| >> stddev: E[x^2] - E[x]^2 in fp32 cancels catastrophically here.
  op->input_overrides = {{kOffsetLabel, {{"x", Distribution::Normal(kOffsetMean, 1.0)}}}};
  op->tolerance = [](const Shape& s) {
    // Around mean 100 a correct fp32 two-pass or Welford kernel still gets the mean wrong by
    // ~u*100*sqrt(cols), measured <= 1.3e-4 at cols 256; E[x^2]-E[x]^2 loses ~u*100^2 of a
    // unit variance, measured >= 1.7e-3 even with double sums. 5e-4 separates the two.
    if (s.label == kOffsetLabel) return Tolerance{5e-4, 1e-5};
    // Zero-mean rows: fp32 kernels in any summation order measure <= 6e-6 at cols 1024.
    return Tolerance{1e-5, 1e-5};
  };
  op->check_shape = [](const Shape& s) {
    // A constant row has var = 0: without a positive eps the output is 0/0.
    const float eps = s.Scalar("eps");
    if (!(eps > 0.0f) || !std::isfinite(eps)) {
      return Status::InvalidArgument("eps must be positive and finite");
    }
    return Status::Ok();
  };
}

constexpr const char* kLayerNormFormula =
    "x and y are [rows, cols] row-major, gamma and beta are [cols]. For every row r: "
    "mean = (1/cols) * sum_j x[r][j], var = (1/cols) * sum_j (x[r][j] - mean)^2 (biased, "
    "divide by cols, not cols - 1), ";

constexpr const char* kLayerNormStability =
    " eps is added inside the square root. One checked shape has rows with mean 100 and "
    "stddev 1, where var = E[x^2] - E[x]^2 in fp32 cancels catastrophically: compute the "
    "variance around the mean (two passes or Welford), or accumulate in double.";

OpSpec LayerNorm() {
  OpSpec op;
  op.name = "layernorm";
  op.family = "normalization";
  op.summary = "layer normalization over the last axis, with per-column gamma and beta";
  op.semantics = std::string(kLayerNormFormula) +
                 "y[r][j] = (x[r][j] - mean) / sqrt(var + eps) * gamma[j] + beta[j]." +
                 kLayerNormStability;
  SetLayerNormCommon(&op);
  // Per element: sum, subtract mean, square-accumulate (2), scale by rstd, gamma/beta (2).
  op.flops = [](const Shape& s) { return 7.0 * Elements(s); };
  op.reference = [](const TensorArgs& t, const Shape& s) {
    cannbot_ref::layernorm(t.inputs[0], t.inputs[1], t.inputs[2], t.outputs[0], Rows(s),
                           Cols(s), s.Scalar("eps"));
  };
  return op;
}

OpSpec LayerNormGelu() {
  OpSpec op;
  op.name = "layernorm_gelu";
  op.family = "normalization";
  op.summary = "fused layernorm then exact (erf) GELU over the last axis";
  op.semantics = std::string(kLayerNormFormula) +
                 "t = (x[r][j] - mean) / sqrt(var + eps) * gamma[j] + beta[j], "
                 "y[r][j] = 0.5 * t * (1 + erf(t / sqrt(2))) (exact erf GELU, not the tanh "
                 "approximation). Must equal layernorm followed by gelu." +
                 kLayerNormStability;
  SetLayerNormCommon(&op);
  // gelu has slope <= 1.13, so layernorm's error carries over almost unchanged and the
  // same bounds hold (measured: zero-mean <= 4e-6, offset two-pass <= 1.3e-4).
  // Per element: layernorm's 7, then gelu's scale, erf, add and two multiplies.
  op.flops = [](const Shape& s) { return (7.0 + kTranscendentalFlops + 4.0) * Elements(s); };
  op.reference = [](const TensorArgs& t, const Shape& s) {
    cannbot_ref::layernorm_gelu(t.inputs[0], t.inputs[1], t.inputs[2], t.outputs[0], Rows(s),
                                Cols(s), s.Scalar("eps"));
  };
  return op;
}

}  // namespace

void AddNormalizationOps(std::vector<OpSpec>* ops) {
  ops->push_back(Softmax());
  ops->push_back(LayerNorm());
  ops->push_back(LayerNormGelu());
}

}  // namespace cannbot::ops
