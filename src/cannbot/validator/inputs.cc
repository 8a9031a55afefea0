#include "cannbot/validator/inputs.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace cannbot::validator {
namespace {

uint64_t SplitMix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

uint64_t StreamSeed(uint64_t seed, const std::string& stream) {
  uint64_t h = SplitMix64(seed);
  for (unsigned char c : stream) h = SplitMix64(h ^ c);
  return h;
}

}  // namespace

std::vector<float> GenerateInput(const ops::Distribution& d, int64_t elements, uint64_t seed,
                                 const std::string& stream) {
  std::mt19937_64 engine(StreamSeed(seed, stream));
  std::vector<float> values(static_cast<size_t>(elements));
  if (d.kind == ops::Distribution::Kind::kNormal) {
    std::normal_distribution<double> normal(d.a, d.b);
    for (float& v : values) v = static_cast<float>(normal(engine));
  } else {
    std::uniform_real_distribution<double> uniform(d.a, d.b);
    // Rounding to float can land on b itself; keep the range half-open as documented.
    const float below_b = std::nextafter(static_cast<float>(d.b), -INFINITY);
    for (float& v : values) v = std::min(static_cast<float>(uniform(engine)), below_b);
  }
  if (!d.edge_values.empty() && d.edge_fraction > 0) {
    std::bernoulli_distribution pick(d.edge_fraction);
    std::uniform_int_distribution<size_t> which(0, d.edge_values.size() - 1);
    for (float& v : values) {
      if (pick(engine)) v = d.edge_values[which(engine)];
    }
  }
  return values;
}

std::vector<std::vector<float>> GenerateInputs(const ops::OpSpec& op, const ops::Shape& shape,
                                               uint64_t seed, const std::string& stream) {
  std::vector<std::vector<float>> inputs;
  for (const ops::Param* p : op.ParamsOfKind(ops::ParamKind::kInput)) {
    inputs.push_back(GenerateInput(op.InputDistribution(shape.label, p->name),
                                   p->elements(shape), seed, stream + "/" + p->name));
  }
  return inputs;
}

uint64_t NewSeed() {
  std::random_device device;
  return ((static_cast<uint64_t>(device()) << 32) ^ device()) & 0xffffffffffffULL;
}

}  // namespace cannbot::validator
