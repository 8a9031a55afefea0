#include "cannbot/validator/perf_data.h"

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

ops::Tensor Rotated(const ops::Tensor& tensor, int64_t by) {
  const int64_t n = tensor.elements();
  if (n <= 1 || by % n == 0) return tensor;
  by = ((by % n) + n) % n;
  ops::Tensor out(tensor.dtype(), n);
  const size_t width = ops::DTypeBytes(tensor.dtype());
  const char* from = static_cast<const char*>(tensor.data());
  char* to = static_cast<char*>(out.data());
  const size_t head = static_cast<size_t>(n - by) * width;  // elements by .. n-1 come first
  std::memcpy(to, from + static_cast<size_t>(by) * width, head);
  std::memcpy(to + head, from, static_cast<size_t>(by) * width);
  return out;
}

Result<PerfData> PerfData::Draw(const ReferenceOracle& reference, const ops::OpSpec& op,
                                const ops::Shape& shape, uint64_t seed, int count) {
  PerfData data(seed);
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

int64_t PerfData::Rotation(size_t s, int round, size_t input) const {
  if (round == 0) return 0;
  const int64_t n = sets_[s].inputs[input].elements();
  const int64_t step = row_elements_[input];
  // Whole rows of a row-structured tensor; a tensor of one row may turn within it.
  const int64_t units = n / step >= 2 ? n / step : n;
  const int64_t unit = n / step >= 2 ? step : 1;
  if (units < 2) return 0;
  // A twin turns exactly like its sibling: the pair shares one draw.
  const size_t pair = s % (sets_.size() / 2);
  std::seed_seq seq{static_cast<uint32_t>(seed_), static_cast<uint32_t>(seed_ >> 32),
                    static_cast<uint32_t>(round), static_cast<uint32_t>(pair),
                    static_cast<uint32_t>(input), 0x70u};
  std::mt19937_64 engine(seq);
  std::uniform_int_distribution<int64_t> pick(1, units - 1);
  return pick(engine) * unit;
}

CallData PerfData::ForRound(size_t s, int round) const {
  if (round == 0) return sets_[s];
  CallData data;
  const CallData& base = sets_[s];
  for (size_t i = 0; i < base.inputs.size(); ++i) {
    data.inputs.push_back(Rotated(base.inputs[i], Rotation(s, round, i)));
  }
  return data;
}

}  // namespace cannbot::validator
