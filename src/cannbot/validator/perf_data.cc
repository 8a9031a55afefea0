#include "cannbot/validator/perf_data.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "cannbot/validator/fresh_values.h"
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

// `out` (the dtype and size of `base`) filled with values drawn afresh from `d` for stream
// `key`: nothing of `base` but its shape survives, so no structure of an earlier round's data
// (a sum, a dot product, a row's largest value) carries over. fp32 normal and uniform inputs,
// nearly all of them, take the fast counter-based draws (fresh_values.h); probability rows and
// inputs that mix edge values into the perf data are drawn by GenerateInput from `stream`.
void DrawFresh(const ops::Tensor& base, const ops::Distribution& d, uint64_t key, uint64_t seed,
               const std::string& stream, int64_t row_elements, ops::Tensor* out) {
  using Kind = ops::Distribution::Kind;
  const int64_t n = base.elements();
  if (d.kind == Kind::kProbabilityRows || (!d.edge_values.empty() && d.edge_fraction > 0)) {
    *out = GenerateInput(d, base.dtype(), n, seed, stream, row_elements);
    return;
  }
  if (out->elements() != n || out->dtype() != base.dtype()) *out = ops::Tensor(base.dtype(), n);
  if (d.kind == Kind::kInteger) {
    const double low = std::ceil(d.a);
    const uint64_t range = static_cast<uint64_t>(std::max(0.0, std::floor(d.b) - low)) + 1;
    for (int64_t i = 0; i < n; ++i) {
      out->Set(i, low + static_cast<double>(FreshWord(key, i) % range));
    }
    return;
  }
  const bool f32 = base.dtype() == ops::DType::kF32;
  std::vector<float> scratch;
  float* values = f32 ? out->f32() : (scratch.resize(static_cast<size_t>(n)), scratch.data());
  const float a = static_cast<float>(d.a), b = static_cast<float>(d.b);
  if (d.kind == Kind::kNormal) {
    FillNormal(values, n, key, a, b);
  } else {
    FillUniform(values, n, key, a, b, static_cast<float>(BelowInDType(ops::DType::kF32, d.b)));
  }
  if (f32) return;
  const double below_b = d.kind == Kind::kUniform ? BelowInDType(base.dtype(), d.b) : 0;
  for (int64_t i = 0; i < n; ++i) {
    out->Set(i, values[i]);
    // A value rounded up to b in the dtype goes back below it.
    if (d.kind == Kind::kUniform && out->At(i) >= d.b) out->Set(i, below_b);
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
  const size_t half = sets_.size() / 2;
  const size_t pair = s % half;
  const auto params = op_->ParamsOfKind(ops::ParamKind::kInput);
  for (size_t i = 0; i < base.inputs.size(); ++i) {
    const ops::Distribution& d = op_->InputDistribution(shape_->label, params[i]->name);
    const std::string stream = "perf-round/" + std::to_string(round) + "/" +
                               std::to_string(pair) + "/" + params[i]->name;
    DrawFresh(base.inputs[i], d, FreshKey(seed_, static_cast<uint64_t>(round), pair, i), seed_,
              stream, row_elements_[i], &data->inputs[i]);
  }
  // A twin is its sibling's fresh data with its own interior differences, new every round.
  if (s >= half) {
    data->inputs = MakeTwin(*op_, *shape_, std::move(data->inputs),
                            FreshKey(seed_, static_cast<uint64_t>(round), s, 0x7477696eULL));
  }
}

CallData PerfData::ForRound(size_t s, int round) const {
  CallData data;
  ForRound(s, round, &data);
  return data;
}

}  // namespace cannbot::validator
