// Catalog: linear ops (matmul).
#include <cfloat>

#include "cannbot/ops/reference/matmul.h"
#include "cannbot/ops/registry.h"

namespace cannbot::ops {
namespace {

int64_t RowsM(const Shape& s) { return s.Size("m"); }
int64_t ColsN(const Shape& s) { return s.Size("n"); }
int64_t DepthK(const Shape& s) { return s.Size("k"); }

OpSpec Matmul() {
  OpSpec op;
  op.name = "matmul";
  op.family = "matmul";
  op.summary = "matrix product C[m,n] = A[m,k] * B[k,n], row-major fp32";
  op.semantics = "a is [m, k], b is [k, n], c is [m, n], all row-major and contiguous: "
                 "c[i*n + j] = sum_{p<k} a[i*k + p] * b[p*n + j]. c is overwritten, not "
                 "accumulated into. Any summation order and FMA use is fine.";
  op.params = {{"a", ParamKind::kInput, [](const Shape& s) { return RowsM(s) * DepthK(s); }},
               {"b", ParamKind::kInput, [](const Shape& s) { return DepthK(s) * ColsN(s); }},
               {"c", ParamKind::kOutput, [](const Shape& s) { return RowsM(s) * ColsN(s); }},
               {"m", ParamKind::kSize, {}},
               {"n", ParamKind::kSize, {}},
               {"k", ParamKind::kSize, {}}};
  op.shapes = {
      {"tiny", {{"m", 1}, {"n", 1}, {"k", 1}}, {}, false},
      {"odd", {{"m", 33}, {"n", 17}, {"k", 37}}, {}, false},
      {"medium", {{"m", 128}, {"n", 192}, {"k", 256}}, {}, false},
      {"gemv", {{"m", 1}, {"n", 1000}, {"k", 513}}, {}, false},
      {"perf", {{"m", 512}, {"n", 512}, {"k", 512}}, {}, true},
  };
  Distribution d;
  d.a = -1.0;
  d.b = 1.0;
  op.inputs = {{"a", d}, {"b", d}};
  // With |a|, |b| <= 1 an fp32 sum of k products drifts by about k ulps of 1 in the worst
  // common order (sequential); 2*k*FLT_EPSILON measured 3x above that at k = 512, while a
  // single missing or misindexed term is off by ~0.25 on average.
  op.tolerance = [](const Shape& s) {
    return Tolerance{2.0 * static_cast<double>(DepthK(s)) * FLT_EPSILON, 1e-5};
  };
  op.flops = [](const Shape& s) {  // one multiply-add (2 flops) per (i, j, p)
    return 2.0 * static_cast<double>(RowsM(s)) * static_cast<double>(ColsN(s)) *
           static_cast<double>(DepthK(s));
  };
  op.reference = [](const TensorArgs& t, const Shape& s) {
    cannbot_ref::matmul(t.inputs[0], t.inputs[1], t.outputs[0], RowsM(s), ColsN(s), DepthK(s));
  };
  return op;
}

}  // namespace

void AddLinearOps(std::vector<OpSpec>* ops) { ops->push_back(Matmul()); }

}  // namespace cannbot::ops
