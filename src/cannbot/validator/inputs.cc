#include "cannbot/validator/inputs.h"

#include "cannbot/ops/dtype_values.h"
#include "cannbot/validator/fresh_values.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

namespace cannbot::validator {
namespace {

uint64_t StreamSeed(uint64_t seed, const std::string& stream) {
  uint64_t h = SplitMix64(seed);
  for (unsigned char c : stream) h = SplitMix64(h ^ c);
  return h;
}

}  // namespace

double BelowInDType(ops::DType dtype, double b) {
  ops::Tensor t(dtype, 1);
  t.Set(0, b);
  if (dtype == ops::DType::kF32) return std::nextafter(static_cast<float>(b), -INFINITY);
  if (!ops::DTypeIsFloat(dtype)) return t.At(0) >= b ? t.At(0) - 1 : t.At(0);
  uint16_t bits;  // fp16 and bfloat16 are sign-magnitude: step the bits toward -infinity
  std::memcpy(&bits, t.data(), sizeof(bits));
  if (t.At(0) < b) return t.At(0);
  if (bits == 0) bits = 0x8001;
  else if (bits & 0x8000) ++bits;
  else --bits;
  std::memcpy(t.data(), &bits, sizeof(bits));
  return t.At(0);
}

namespace {

void DrawBase(const ops::Distribution& d, int64_t row_elements, std::mt19937_64& engine,
              ops::Tensor* values) {
  const int64_t n = values->elements();
  switch (d.kind) {
    case ops::Distribution::Kind::kNormal: {
      std::normal_distribution<double> normal(d.a, d.b);
      for (int64_t i = 0; i < n; ++i) values->Set(i, normal(engine));
      return;
    }
    case ops::Distribution::Kind::kInteger: {
      std::uniform_int_distribution<int64_t> integer(static_cast<int64_t>(std::ceil(d.a)),
                                                     static_cast<int64_t>(std::floor(d.b)));
      for (int64_t i = 0; i < n; ++i) values->Set(i, static_cast<double>(integer(engine)));
      return;
    }
    case ops::Distribution::Kind::kProbabilityRows: {
      std::uniform_real_distribution<double> uniform(1e-3, 1.0);
      const int64_t row = row_elements > 0 ? row_elements : n;
      std::vector<double> draw(static_cast<size_t>(row));
      for (int64_t start = 0; start < n; start += row) {
        const int64_t len = std::min(row, n - start);
        double sum = 0;
        for (int64_t j = 0; j < len; ++j) sum += draw[static_cast<size_t>(j)] = uniform(engine);
        for (int64_t j = 0; j < len; ++j) values->Set(start + j, draw[static_cast<size_t>(j)] / sum);
      }
      return;
    }
    case ops::Distribution::Kind::kUniform: {
      std::uniform_real_distribution<double> uniform(d.a, d.b);
      const double below_b = BelowInDType(values->dtype(), d.b);
      for (int64_t i = 0; i < n; ++i) {
        values->Set(i, uniform(engine));
        if (values->At(i) >= d.b) values->Set(i, below_b);
      }
      return;
    }
  }
}

}  // namespace

ops::Tensor GenerateInput(const ops::Distribution& d, ops::DType dtype, int64_t elements,
                          uint64_t seed, const std::string& stream, int64_t row_elements) {
  std::mt19937_64 engine(StreamSeed(seed, stream));
  ops::Tensor values(dtype, elements);
  DrawBase(d, row_elements, engine, &values);
  if (!d.edge_values.empty() && d.edge_fraction > 0) {
    std::bernoulli_distribution pick(d.edge_fraction);
    std::uniform_int_distribution<size_t> which(0, d.edge_values.size() - 1);
    for (int64_t i = 0; i < elements; ++i) {
      if (pick(engine)) values.Set(i, d.edge_values[which(engine)]);
    }
  }
  return values;
}

std::vector<float> GenerateInput(const ops::Distribution& d, int64_t elements, uint64_t seed,
                                 const std::string& stream) {
  return GenerateInput(d, ops::DType::kF32, elements, seed, stream).ToFloats();
}

std::vector<ops::Tensor> GenerateInputs(const ops::OpSpec& op, const ops::Shape& shape,
                                        uint64_t seed, const std::string& stream) {
  std::vector<ops::Tensor> inputs;
  for (const ops::Param* p : op.ParamsOfKind(ops::ParamKind::kInput)) {
    const ops::Distribution& d = op.InputDistribution(shape.label, p->name);
    const int64_t row = d.row_elements ? d.row_elements(shape) : 0;
    inputs.push_back(GenerateInput(d, p->dtype, p->elements(shape), seed, stream + "/" + p->name, row));
  }
  return inputs;
}

ops::Distribution WithEdges(const ops::OpSpec& op, const ops::Shape& shape,
                            const std::string& input) {
  ops::Distribution d = op.InputDistribution(shape.label, input);
  const ops::Distribution& general = op.inputs.at(input);
  if ((d.edge_values.empty() || d.edge_fraction <= 0) && !general.edge_values.empty()) {
    d.edge_values = general.edge_values;
    d.edge_fraction = general.edge_fraction;
  }
  return d;
}

std::vector<ops::Tensor> GenerateEdgeInputs(const ops::OpSpec& op, const ops::Shape& shape,
                                            uint64_t seed, const std::string& stream) {
  std::vector<ops::Tensor> inputs;
  for (const ops::Param* p : op.ParamsOfKind(ops::ParamKind::kInput)) {
    const ops::Distribution d = WithEdges(op, shape, p->name);
    const int64_t row = d.row_elements ? d.row_elements(shape) : 0;
    inputs.push_back(GenerateInput(d, p->dtype, p->elements(shape), seed, stream + "/" + p->name, row));
  }
  return inputs;
}

uint64_t NewSeed() {
  std::random_device device;
  return ((static_cast<uint64_t>(device()) << 32) ^ device()) & 0xffffffffffffULL;
}

}  // namespace cannbot::validator
