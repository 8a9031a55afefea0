// Small helpers shared by the unit tests (one definition each, so test files can be compiled
// together in a unity build). Stateless; thread-safe.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "cannbot/ops/op_spec.h"

namespace cannbot::test {

inline bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Values drawn from an op's input distribution, edge values included at their rate.
inline std::vector<float> Draw(const ops::Distribution& d, int64_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> uniform(d.a, d.b);
  std::normal_distribution<double> normal(d.a,
                                          d.kind == ops::Distribution::Kind::kNormal ? d.b : 1);
  std::uniform_real_distribution<double> coin(0.0, 1.0);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) {
    x = static_cast<float>(d.kind == ops::Distribution::Kind::kUniform ? uniform(rng)
                                                                        : normal(rng));
    if (!d.edge_values.empty() && coin(rng) < d.edge_fraction) {
      x = d.edge_values[static_cast<size_t>(coin(rng) * static_cast<double>(d.edge_values.size()))];
    }
  }
  return v;
}

// How many elements of `got` are outside the tolerance around `want`.
inline int64_t Failures(const std::vector<float>& got, const std::vector<float>& want,
                        ops::Tolerance t) {
  int64_t failures = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double err = std::fabs(static_cast<double>(got[i]) - want[i]);
    if (!(err <= t.atol + t.rtol * std::fabs(want[i]))) ++failures;
  }
  return failures;
}

}  // namespace cannbot::test
