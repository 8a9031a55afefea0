// The params and shapes of an op spec file (op_spec_file.h): reading [[params]] and
// [[shapes]] (spec_params.cc), what the parser learned about the params, the op's shape
// check, and the random case drawn for every validation (spec_shapes.cc). Internal to the
// ops module.
//
// Thread-safety: the functions they return are immutable and may be called from any thread.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "cannbot/ops/op_spec.h"
#include "cannbot/ops/op_spec_file.h"
#include "cannbot/ops/spec_reader.h"
#include "cannbot/util/expr.h"
#include "cannbot/util/status.h"

namespace cannbot::ops::spec_file {

// What the parser learns about the params beyond the OpSpec itself.
struct ParamFacts {
  std::map<std::string, util::Expr> extents;             // tensor -> its element count
  std::map<std::string, std::pair<int64_t, int64_t>> bounds;  // size -> [min, max] given
  // size -> what every value must be a multiple of (a kernel's alignment or pairing rule:
  // `multiple_of = 2` for a last dimension of pairs); listed shapes are checked, random ones
  // drawn among the multiples.
  std::map<std::string, int64_t> multiples;
  std::map<std::string, float> scalar_defaults;
  std::map<std::string, std::pair<double, double>> scalar_bounds;  // [min, max], inclusive
  // The dtype `dtype = "T"` stands for in this variant of a spec with `dtypes` (unset: none).
  std::optional<DType> type_parameter;
};

// Whether `name` is a C identifier of at most 64 characters (an op or a param name).
bool IsIdentifier(const std::string& name);

// Reads [[params]] into op->params and `facts`: names, kinds, dtypes, extents over the size
// params, bounds and defaults; the op needs an output. Errors go to `r`.
void ReadParams(SpecReader& r, const toml::table& root, OpSpec* op, ParamFacts* facts);

// Reads [[shapes]] into op->shapes (each checked by the op's shape check, set here), exactly
// one of them the perf shape. Errors go to `r`.
void ReadShapes(SpecReader& r, const toml::table& root, OpSpec* op, const ParamFacts& facts,
                const SpecLoadOptions& options);

// The op's shape check (OpSpec::check_shape): every size given, every scalar within its
// range, every tensor non-empty, the call within the memory limit. Errors name the field.
std::function<Status(const Shape&)> MakeShapeCheck(const OpSpec& op, const ParamFacts& facts,
                                                   const SpecLoadOptions& options);

// Sets op->random_shape: sizes drawn within their bounds (declared, else spanned by the listed
// numeric shapes), retried until every tensor is non-empty and the call below
// options.max_random_call_bytes.
void AddRandomCase(OpSpec* op, const ParamFacts& facts, const SpecLoadOptions& options);

}  // namespace cannbot::ops::spec_file
