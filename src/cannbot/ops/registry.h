// Registry: the immutable table of built-in operators (the op *contract*).
//
// Built once on first use from the catalog files (catalog/*.cc) and checked for internal
// consistency (every op has a perf shape, distributions for every input, sizes for every
// size param). Lookups never fail loudly: Find returns nullptr for an unknown name.
//
// Thread-safety: BuiltIn() is initialised thread-safely and is read-only afterwards.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "cannbot/ops/op_spec.h"
#include "cannbot/util/status.h"

namespace cannbot::ops {

class Registry {
 public:
  // Takes the ops and checks them; a bad catalog is a programming error reported by Check().
  explicit Registry(std::vector<OpSpec> ops);

  static const Registry& BuiltIn();

  const OpSpec* Find(std::string_view name) const;
  const std::vector<OpSpec>& ops() const { return ops_; }
  std::vector<std::string> Names() const;

  // OK when every op is complete and self-consistent; else names the first problem.
  Status Check() const;

 private:
  std::vector<OpSpec> ops_;
};

// The embedded text of reference/<op>.h (generated at build time); empty if unknown.
std::string_view EmbeddedReferenceSource(std::string_view op);

// Catalog parts, one per family of ops; each appends its OpSpecs.
void AddElementwiseOps(std::vector<OpSpec>* ops);
void AddNormalizationOps(std::vector<OpSpec>* ops);
void AddLinearOps(std::vector<OpSpec>* ops);
void AddConvolutionOps(std::vector<OpSpec>* ops);

}  // namespace cannbot::ops
