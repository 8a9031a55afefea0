#include "cannbot/ops/spec_shapes.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <random>
#include <vector>

#include "cannbot/ops/spec_values.h"

namespace cannbot::ops::spec_file {

std::function<Status(const Shape&)> MakeShapeCheck(const OpSpec& op, const ParamFacts& facts,
                                                   const SpecLoadOptions& options) {
  struct Extent {
    std::string name;
    util::Expr extent;
    int64_t width;
  };
  std::vector<Extent> tensors;
  std::vector<std::string> sizes;
  for (const Param& p : op.params) {
    if (p.IsTensor()) {
      tensors.push_back({p.name, facts.extents.at(p.name), static_cast<int64_t>(DTypeBytes(p.dtype))});
    }
    if (p.kind == ParamKind::kSize) sizes.push_back(p.name);
  }
  return [tensors, sizes, bounds = facts.scalar_bounds, multiples = facts.multiples,
          limit = options.max_call_bytes](const Shape& shape) -> Status {
    for (const std::string& name : sizes) {
      if (shape.sizes.count(name) == 0) return Status::InvalidArgument("no value for size " + name);
    }
    for (const auto& [name, multiple] : multiples) {
      const int64_t v = shape.sizes.at(name);
      if (v % multiple != 0) {
        return Status::InvalidArgument(name + " = " + std::to_string(v) + " is not a multiple of " +
                                       std::to_string(multiple) + " (its multiple_of)");
      }
    }
    for (const auto& [name, range] : bounds) {
      auto it = shape.scalars.find(name);
      const double v = it == shape.scalars.end() ? NAN : it->second;
      if (v >= range.first && v <= range.second && std::isfinite(v)) continue;
      char text[160];
      std::snprintf(text, sizeof(text), "%s = %g is outside the parameter's range [%g, %g]",
                    name.c_str(), v, range.first, range.second);
      return Status::InvalidArgument(text);
    }
    int64_t bytes = 0;
    for (const Extent& t : tensors) {
      auto n = t.extent.EvaluateInteger(shape.sizes);
      if (!n.ok()) return Status::InvalidArgument("tensor " + t.name + ": " + n.status().message());
      if (*n < 1) {
        return Status::InvalidArgument("tensor " + t.name + " has " + std::to_string(*n) +
                                       " elements on this shape (extent \"" + t.extent.text() +
                                       "\")");
      }
      if (*n > limit) return Status::InvalidArgument("tensor " + t.name + " is too large");
      bytes += *n * t.width;
    }
    if (bytes > limit) {
      return Status::InvalidArgument("one call needs " + FormatBytes(bytes) +
                                     " of tensors, above the limit of " + FormatBytes(limit));
    }
    return Status::Ok();
  };
}

void AddRandomCase(OpSpec* op, const ParamFacts& facts, const SpecLoadOptions& options) {
  struct Plan {
    std::map<std::string, std::pair<int64_t, int64_t>> bounds;
    std::map<std::string, int64_t> multiples;
    std::vector<std::pair<util::Expr, size_t>> tensors;  // extent, element bytes
    std::map<std::string, float> scalars;
    int64_t max_bytes = 0;
  };
  auto plan = std::make_shared<Plan>();
  plan->max_bytes = options.max_random_call_bytes;
  const Shape* first_numeric = nullptr;
  for (const Shape& s : op->shapes) {
    if (s.perf) continue;
    if (first_numeric == nullptr) first_numeric = &s;
    for (const auto& [name, v] : s.sizes) {
      auto [it, fresh] = plan->bounds.emplace(name, std::make_pair(v, v));
      if (!fresh) it->second = {std::min(it->second.first, v), std::max(it->second.second, v)};
    }
  }
  for (const auto& [name, b] : facts.bounds) plan->bounds[name] = b;
  plan->multiples = facts.multiples;
  plan->scalars = first_numeric->scalars;
  for (const Param& p : op->params) {
    if (p.IsTensor()) plan->tensors.push_back({facts.extents.at(p.name), DTypeBytes(p.dtype)});
  }
  op->random_shape = [plan](uint64_t seed) -> std::optional<Shape> {
    std::mt19937_64 engine(seed ^ 0x72616e646f6dULL);
    for (int attempt = 0; attempt < 64; ++attempt) {
      Shape shape;
      shape.label = "random";
      shape.scalars = plan->scalars;
      for (const auto& [name, b] : plan->bounds) {
        // Among the multiples in [min, max] (listed shapes, already multiples, span them).
        const auto m = plan->multiples.find(name);
        const int64_t step = m == plan->multiples.end() ? 1 : m->second;
        const int64_t lo = (b.first + step - 1) / step, hi = b.second / step;
        shape.sizes[name] = step * std::uniform_int_distribution<int64_t>(lo, std::max(lo, hi))(engine);
      }
      int64_t bytes = 0;
      bool fits = true;
      for (const auto& [extent, width] : plan->tensors) {
        auto n = extent.EvaluateInteger(shape.sizes);
        fits = fits && n.ok() && *n >= 1 && *n <= plan->max_bytes;
        if (fits) bytes += *n * static_cast<int64_t>(width);
      }
      if (fits && bytes <= plan->max_bytes) return shape;
    }
    return std::nullopt;
  };
}

}  // namespace cannbot::ops::spec_file
