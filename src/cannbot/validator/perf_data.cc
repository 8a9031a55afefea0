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
ops::Tensor Refreshed(const ops::Tensor& base, const ops::Distribution& d,
                      std::mt19937_64& engine, uint64_t seed, const std::string& stream,
                      int64_t row_elements) {
  using Kind = ops::Distribution::Kind;
  const int64_t n = base.elements();
  if (d.kind == Kind::kProbabilityRows || (!d.edge_values.empty() && d.edge_fraction > 0)) {
    return GenerateInput(d, base.dtype(), n, seed, stream, row_elements);
  }
  const ops::Tensor& turned = base;
  ops::Tensor out(base.dtype(), n);
  std::uniform_real_distribution<double> unit(0.05, 0.95);
  const double share = unit(engine);
  const double angle = unit(engine) * 2 * M_PI;
  const double width = d.b - d.a;
  const int64_t range = static_cast<int64_t>(std::floor(d.b) - std::ceil(d.a)) + 1;
  const int64_t step = range > 1 ? 1 + static_cast<int64_t>(share * static_cast<double>(range - 1)) : 0;
  const double below_b = d.kind == Kind::kUniform ? BelowInDType(base.dtype(), d.b) : 0;
  const bool f32 = base.dtype() == ops::DType::kF32;
  auto get = [&](int64_t i) { return f32 ? static_cast<double>(turned.f32()[i]) : turned.At(i); };
  auto put = [&](int64_t i, double v) {
    if (f32) {
      out.f32()[i] = static_cast<float>(v);
    } else {
      out.Set(i, v);
    }
  };
  switch (d.kind) {
    case Kind::kUniform:
      for (int64_t i = 0; i < n; ++i) {
        put(i, d.a + std::fmod(get(i) - d.a + share * width, width));
        if ((f32 ? out.f32()[i] : out.At(i)) >= d.b) put(i, below_b);
      }
      break;
    case Kind::kNormal: {
      const double c = std::cos(angle), s = std::sin(angle);
      for (int64_t i = 0; i + 1 < n; i += 2) {
        const double x = get(i) - d.a, y = get(i + 1) - d.a;
        put(i, d.a + c * x - s * y);
        put(i + 1, d.a + s * x + c * y);
      }
      if (n % 2 == 1) put(n - 1, 2 * d.a - get(n - 1));
      break;
    }
    case Kind::kInteger:
      for (int64_t i = 0; i < n; ++i) {
        const int64_t v = static_cast<int64_t>(get(i)) - static_cast<int64_t>(std::ceil(d.a));
        put(i, std::ceil(d.a) + static_cast<double>(range > 1 ? (v + step) % range : v));
      }
      break;
    case Kind::kProbabilityRows: break;  // drawn afresh above
  }
  return out;
}

}  // namespace

CallData PerfData::ForRound(size_t s, int round) const {
  if (round == 0) return sets_[s];
  CallData data;
  const CallData& base = sets_[s];
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
    data.inputs.push_back(
        Refreshed(base.inputs[i], d, engine, seed_, stream, row_elements_[i]));
  }
  return data;
}

}  // namespace cannbot::validator
