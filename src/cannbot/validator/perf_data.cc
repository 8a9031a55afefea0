#include "cannbot/validator/perf_data.h"

#include <cmath>
#include <cstring>
#include <random>

#include "cannbot/validator/inputs.h"

namespace cannbot::validator {
namespace {

// A twin keeps this many elements at each end of every tensor identical to its sibling.
constexpr int64_t kTwinKeptEnds = 32;

}  // namespace

std::vector<ops::Tensor> MakeTwin(const ops::OpSpec& op, const ops::Shape& shape,
                                  std::vector<ops::Tensor> inputs, uint64_t seed) {
  std::mt19937_64 engine(seed);
  const auto params = op.ParamsOfKind(ops::ParamKind::kInput);
  for (size_t i = 0; i < inputs.size(); ++i) {
    ops::Tensor& data = inputs[i];
    const int64_t n = data.elements();
    if (n < 4 * kTwinKeptEnds) continue;
    const auto& dist = op.InputDistribution(shape.label, params[i]->name);
    const ops::Tensor fresh = GenerateInput(dist, data.dtype(), n / 100 + 1, seed,
                                            "twin/" + params[i]->name);
    std::uniform_int_distribution<int64_t> where(kTwinKeptEnds, n - kTwinKeptEnds - 1);
    for (int64_t f = 0; f < fresh.elements(); ++f) {
      const int64_t slot = where(engine);
      const double value = fresh.At(f);
      data.Set(slot, value != data.At(slot) ? value : -data.At(slot) + 1.0);
    }
  }
  return inputs;
}

Result<PerfData> PerfData::Draw(const ReferenceOracle& reference, const ops::OpSpec& op,
                                const ops::Shape& shape, uint64_t seed, int count) {
  PerfData data(op, shape, seed);
  count = std::max(2, count + count % 2);
  for (int s = 0; s < count; ++s) {
    if (s < count / 2) {
      CANNBOT_ASSIGN_OR_RETURN(CallData set, DrawCallData(reference, op, shape, seed,
                                                          "perf/" + std::to_string(s)));
      data.sets_.push_back(std::move(set));
      continue;
    }
    CANNBOT_ASSIGN_OR_RETURN(
        CallData twin,
        WithReference(reference, shape,
                      MakeTwin(op, shape, data.sets_[static_cast<size_t>(s - count / 2)].inputs,
                               seed + static_cast<uint64_t>(s))));
    data.sets_.push_back(std::move(twin));
  }
  for (const ops::Param* p : op.ParamsOfKind(ops::ParamKind::kInput)) {
    const ops::Distribution& d = op.InputDistribution(shape.label, p->name);
    const bool rows = d.kind == ops::Distribution::Kind::kProbabilityRows && d.row_elements;
    data.row_elements_.push_back(rows ? std::max<int64_t>(1, d.row_elements(shape)) : 1);
  }
  return data;
}

namespace {

// `base` given new values of the same distribution, element by element in place (every
// parameter drawn from `engine`, so a twin and its sibling change alike):
//  - uniform on [a, b): every value shifted by the same random share of the width, modulo it;
//  - normal: consecutive pairs turned by one random angle about the mean (a pair of
//    independent normals turned is a pair of independent normals); an odd last one mirrored;
//  - integer on [a, b]: every value shifted by the same random step, modulo the range.
// Probability rows, and inputs that mix edge values into the perf data, are drawn afresh
// from `stream` instead.
// The round's parameters of one input's transform.
struct Transform {
  double share = 0;  // uniform: of the width; integer: of the range
  double cosine = 1, sine = 0;
};

// `d`'s transform of value `v` (uniform, integer); normal pairs are done by the caller.
inline double Moved(const ops::Distribution& d, double v, const Transform& t, double below_b) {
  if (d.kind == ops::Distribution::Kind::kUniform) {
    const double width = d.b - d.a;
    const double moved = d.a + std::fmod(v - d.a + t.share * width, width);
    return moved >= d.b ? below_b : moved;
  }
  const double low = std::ceil(d.a);
  const int64_t range = static_cast<int64_t>(std::floor(d.b) - low) + 1;
  if (range <= 1) return v;
  const int64_t step = 1 + static_cast<int64_t>(t.share * static_cast<double>(range - 1));
  return low + static_cast<double>((static_cast<int64_t>(v - low) + step) % range);
}

// The fp32 forms of Refresh's uniform and normal transforms, in float and branch-free so they
// vectorise: this runs over every input of every data set of every round.
void RefreshFloats(const ops::Tensor& base, const ops::Distribution& d, const Transform& t,
                   double below_b, ops::Tensor* out) {
  const int64_t n = base.elements();
  const float* from = base.f32();
  float* to = out->f32();
  const float a = static_cast<float>(d.a);
  if (d.kind == ops::Distribution::Kind::kNormal) {
    const float c = static_cast<float>(t.cosine), s = static_cast<float>(t.sine);
    for (int64_t i = 0; i + 1 < n; i += 2) {
      const float x = from[i] - a, y = from[i + 1] - a;
      to[i] = a + c * x - s * y;
      to[i + 1] = a + s * x + c * y;
    }
    if (n % 2 == 1) to[n - 1] = 2 * a - from[n - 1];
    return;
  }
  // Uniform on [a, b): shifted by less than the width, so at most one width comes off.
  const float b = static_cast<float>(d.b), width = static_cast<float>(d.b - d.a);
  const float shift = static_cast<float>(t.share) * width, top = static_cast<float>(below_b);
  for (int64_t i = 0; i < n; ++i) {
    float v = from[i] + shift;
    v = v >= b ? v - width : v;
    v = v < a ? a : v;
    to[i] = v >= b ? top : v;
  }
}

// Writes `base` with new values of the same distribution into `out` (same dtype and size), by
// a transform drawn from `engine` (so a twin and its sibling change alike):
//  - uniform on [a, b): every value shifted by the same random share of the width, modulo it;
//  - normal: consecutive pairs turned by one random angle about the mean (a pair of
//    independent normals turned is a pair of independent normals); an odd last one mirrored;
//  - integer on [a, b]: every value shifted by the same random step, modulo the range.
// Probability rows, and inputs that mix edge values into the perf data, are drawn afresh
// from `stream` instead. fp32 tensors, nearly all of them, take the direct path: this runs on
// every input of every data set of every round.
void Refresh(const ops::Tensor& base, const ops::Distribution& d, std::mt19937_64& engine,
             uint64_t seed, const std::string& stream, int64_t row_elements, ops::Tensor* out) {
  using Kind = ops::Distribution::Kind;
  const int64_t n = base.elements();
  if (d.kind == Kind::kProbabilityRows || (!d.edge_values.empty() && d.edge_fraction > 0)) {
    *out = GenerateInput(d, base.dtype(), n, seed, stream, row_elements);
    return;
  }
  if (out->elements() != n || out->dtype() != base.dtype()) *out = ops::Tensor(base.dtype(), n);
  std::uniform_real_distribution<double> unit(0.05, 0.95);
  Transform t;
  t.share = unit(engine);
  const double angle = unit(engine) * 2 * M_PI;
  t.cosine = std::cos(angle);
  t.sine = std::sin(angle);
  const double below_b = d.kind == Kind::kUniform ? BelowInDType(base.dtype(), d.b) : 0;
  const bool f32 = base.dtype() == ops::DType::kF32;
  if (f32 && d.kind != Kind::kInteger) return RefreshFloats(base, d, t, below_b, out);
  const float* from = f32 ? base.f32() : nullptr;
  float* to = f32 ? out->f32() : nullptr;
  auto get = [&](int64_t i) { return f32 ? static_cast<double>(from[i]) : base.At(i); };
  auto put = [&](int64_t i, double v) {
    if (f32) {
      to[i] = static_cast<float>(v);
    } else {
      out->Set(i, v);
    }
  };
  if (d.kind == Kind::kNormal) {
    for (int64_t i = 0; i + 1 < n; i += 2) {
      const double x = get(i) - d.a, y = get(i + 1) - d.a;
      put(i, d.a + t.cosine * x - t.sine * y);
      put(i + 1, d.a + t.sine * x + t.cosine * y);
    }
    if (n % 2 == 1) put(n - 1, 2 * d.a - get(n - 1));
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    put(i, Moved(d, get(i), t, below_b));
    // A value rounded up to b in the dtype goes back below it.
    if (d.kind == Kind::kUniform && !f32 && out->At(i) >= d.b) put(i, below_b);
  }
  if (f32 && d.kind == Kind::kUniform) {
    const float top = static_cast<float>(below_b);
    for (int64_t i = 0; i < n; ++i) {
      if (static_cast<double>(to[i]) >= d.b) to[i] = top;
    }
  }
}

}  // namespace

void PerfData::ForRound(size_t s, int round, CallData* data) const {
  const CallData& base = sets_[s];
  if (round == 0) {
    *data = base;
    return;
  }
  data->expected.clear();
  data->inputs.resize(base.inputs.size());
  const size_t pair = s % (sets_.size() / 2);
  const auto params = op_->ParamsOfKind(ops::ParamKind::kInput);
  for (size_t i = 0; i < base.inputs.size(); ++i) {
    std::seed_seq seq{static_cast<uint32_t>(seed_), static_cast<uint32_t>(seed_ >> 32),
                      static_cast<uint32_t>(round), static_cast<uint32_t>(pair),
                      static_cast<uint32_t>(i), 0x76u};
    std::mt19937_64 engine(seq);
    const ops::Distribution& d = op_->InputDistribution(shape_->label, params[i]->name);
    const std::string stream = "perf-round/" + std::to_string(round) + "/" +
                               std::to_string(pair) + "/" + params[i]->name;
    Refresh(base.inputs[i], d, engine, seed_, stream, row_elements_[i], &data->inputs[i]);
  }
}

CallData PerfData::ForRound(size_t s, int round) const {
  CallData data;
  ForRound(s, round, &data);
  return data;
}

}  // namespace cannbot::validator
