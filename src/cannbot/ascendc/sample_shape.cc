// SampleShape (sample.h): the op's shape from the element counts of a sample's tensors.
#include <algorithm>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "cannbot/ascendc/sample.h"

namespace cannbot::ascendc {
namespace {

// `rows*cols` -> {rows, cols}; {} when the extent is anything but a product of names.
std::vector<std::string> ProductFactors(const std::string& extent) {
  static const std::regex kName(R"(\s*([A-Za-z_]\w*)\s*)");
  std::vector<std::string> factors;
  size_t start = 0;
  while (start <= extent.size()) {
    const size_t star = std::min(extent.find('*', start), extent.size());
    std::smatch m;
    const std::string part = extent.substr(start, star - start);
    if (!std::regex_match(part, m, kName)) return {};
    factors.push_back(m[1].str());
    start = star + 1;
  }
  return factors;
}

}  // namespace

Result<ops::Shape> SampleShape(const ops::OpSpec& op, const std::vector<int64_t>& elements) {
  const std::vector<const ops::Param*> tensors = op.Tensors();
  std::string counts;
  for (size_t t = 0; t < tensors.size() && t < elements.size(); ++t) {
    counts += (counts.empty() ? "" : ", ") + tensors[t]->name + "=" + std::to_string(elements[t]);
  }
  if (elements.size() != tensors.size() || op.shapes.empty()) {
    return Status::InvalidArgument("op " + op.name + " has " + std::to_string(tensors.size()) +
                                   " tensors; the sample launched " +
                                   std::to_string(elements.size()));
  }
  auto matches = [&](const ops::Shape& shape) {
    for (size_t t = 0; t < tensors.size(); ++t) {
      if (tensors[t]->elements(shape) != elements[t]) return false;
    }
    return true;
  };
  // Sizes a tensor's extent names alone first, then a product (`rows*cols`) with one factor
  // not yet fixed: that factor is the count over the others; again while that fixes more (a
  // size one product fixes may be what an earlier one lacked).
  auto propagate = [&](ops::Shape* shape, std::set<std::string>* fixed) {
    for (const bool products : {false, true, true, true}) {
      for (size_t t = 0; t < tensors.size(); ++t) {
        const std::vector<std::string> factors = ProductFactors(tensors[t]->extent);
        std::string unknown;
        int64_t known = 1;
        bool solvable = !factors.empty() && (products || factors.size() == 1);
        for (const std::string& f : factors) {
          if (shape->sizes.count(f) == 0) solvable = false;
          if (!solvable) break;
          if (fixed->count(f) > 0) {
            known *= shape->sizes[f];
          } else if (unknown.empty()) {
            unknown = f;
          } else {
            solvable = false;
          }
        }
        if (!solvable || unknown.empty() || known <= 0 || elements[t] % known != 0) continue;
        shape->sizes[unknown] = elements[t] / known;
        fixed->insert(unknown);
      }
    }
  };
  ops::Shape shape = op.shapes.front();
  std::set<std::string> fixed;
  propagate(&shape, &fixed);
  if (fixed.size() < shape.sizes.size()) {
    // Products that share factors (a matmul's m*k, k*n, m*n): try each divisor of the first
    // count with two unknown factors as the first of them; one solution must remain.
    for (size_t t = 0; t < tensors.size(); ++t) {
      const std::vector<std::string> factors = ProductFactors(tensors[t]->extent);
      if (factors.size() != 2 || fixed.count(factors[0]) > 0 || fixed.count(factors[1]) > 0 ||
          shape.sizes.count(factors[0]) == 0 || shape.sizes.count(factors[1]) == 0) {
        continue;
      }
      std::set<int64_t> divisors;
      for (int64_t d = 1; d <= elements[t] / d; ++d) {
        if (elements[t] % d == 0) divisors.insert({d, elements[t] / d});
      }
      std::vector<ops::Shape> solutions;
      for (const int64_t first : divisors) {
        ops::Shape guess = shape;
        std::set<std::string> guessed = fixed;
        guess.sizes[factors[0]] = first;
        guessed.insert(factors[0]);
        propagate(&guess, &guessed);
        if (guessed.size() == guess.sizes.size() && matches(guess)) solutions.push_back(guess);
      }
      if (solutions.size() == 1) {
        shape = solutions.front();
        fixed.clear();
        for (const auto& [name, value] : shape.sizes) fixed.insert(name);
      }
      break;
    }
  }
  auto as_sample = [](ops::Shape found) {
    found.label = "sample";
    found.perf = false;
    return found;
  };
  if (fixed.size() == shape.sizes.size() && matches(shape)) return as_sample(shape);
  for (const ops::Shape& known : op.shapes) {
    if (matches(known)) return as_sample(known);
  }
  return Status::InvalidArgument("the sample's tensors (" + counts + ") fix no shape of op " +
                                 op.name + ": its sizes cannot be read from the element counts "
                                 "alone and none of its shape cases has those counts");
}

}  // namespace cannbot::ascendc
