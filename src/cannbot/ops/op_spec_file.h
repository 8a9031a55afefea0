// OpSpecFile: an operator described by its author in a TOML file (docs/op-spec.md), read into
// the same OpSpec the built-in ops are, so a user's fp16 RMSNorm or broadcast add goes through
// exactly the validator, prompts and recipes a built-in op does.
//
// Everything in a file is checked before any kernel runs: syntax, unknown keys, dtypes,
// extent and work expressions (they may name only the op's sizes), shapes (every size given,
// every tensor non-empty, the total within the memory limit), distributions, edge values and
// tolerances. Errors are InvalidArgument "FILE:LINE: field 'F': what is wrong". The reference
// source a spec names is read here but compiled and probed by the validator (untrusted code).
//
// Thread-safety: free functions with no shared state.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cannbot/ops/op_spec.h"
#include "cannbot/ops/registry.h"
#include "cannbot/util/status.h"

namespace cannbot::ops {

struct SpecLoadOptions {
  // The most tensor bytes one call of any listed shape may need (inputs and outputs); the
  // perf gate keeps a few such sets, so a spec above it is refused with the figure.
  int64_t max_call_bytes = int64_t{256} << 20;  // 256 MiB (config: op_memory_limit_mb)
  // Random cases (drawn within the sizes' bounds) stay below this many bytes per call.
  int64_t max_random_call_bytes = int64_t{64} << 20;  // 64 MiB
  // Set only for cannbot's own specs: resolves `reference = "builtin"` to the trusted C++
  // reference of that name (null: users' specs may not claim one).
  std::function<ReferenceFn(const OpSpec& op)> builtin_reference;
};

// Returns the text of the reference source a spec names (`name` as written in the spec).
using ReferenceLoader = std::function<Result<std::string>(const std::string& name)>;

// Parses one spec into its ops: one, or one per dtype of its `dtypes` list (OpSpec::variant_of).
// `path` names it in errors and in OpSpec::origin.
Result<std::vector<OpSpec>> ParseOpSpecVariants(const std::string& text, const std::string& path,
                                                const ReferenceLoader& load_reference,
                                                const SpecLoadOptions& options = {});
// The spec's first (or only) op.
Result<OpSpec> ParseOpSpec(const std::string& text, const std::string& path,
                           const ReferenceLoader& load_reference,
                           const SpecLoadOptions& options = {});
// A spec sent with a request (POST /optimize, a JobSpec): its reference source, if it names
// one, is `reference_text`. origin = "inline".
// `variant` picks one of its ops by name (a dtype variant); empty: the first.
Result<OpSpec> ParseInlineOpSpec(const std::string& text, const std::string& reference_text,
                                 const SpecLoadOptions& options = {},
                                 const std::string& variant = "");
// Reads a spec file; its reference path is relative to the file's directory.
Result<std::vector<OpSpec>> LoadOpSpecFileVariants(const std::string& path,
                                                   const SpecLoadOptions& options = {});
// The file's first (or only) op.
Result<OpSpec> LoadOpSpecFile(const std::string& path, const SpecLoadOptions& options = {});
// The ops of every *.toml file directly in `dir` (every variant), by file name.
Result<std::vector<OpSpec>> LoadOpSpecDir(const std::string& dir,
                                          const SpecLoadOptions& options = {});
// Adds every spec of every directory to `registry` (Registry::Add's rules).
Status AddOpsDirs(const std::vector<std::string>& dirs, Registry* registry,
                  const SpecLoadOptions& options = {});

}  // namespace cannbot::ops
