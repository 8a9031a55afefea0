// Registry: a table of operators (the op *contract*), as a value: the composition roots (the
// CLI's main, the daemon's Service) build one with BuiltIns() and pass it down; nothing reads
// a global. A request or a config that brings its own ops adds them to its copy.
//
// BuiltIns() builds the table from cannbot's own spec files (ops/*.toml, embedded at build
// time; docs/op-spec.md) and checks it for internal consistency (every op has a perf shape,
// distributions for every input, sizes for every size param). A new built-in op is a spec
// file and its reference header. Lookups never fail loudly: Find returns nullptr for an
// unknown name.
//
// Thread-safety: a value; const methods may be called from any thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "cannbot/ops/op_spec.h"
#include "cannbot/util/status.h"

namespace cannbot::ops {

class Registry {
 public:
  // Takes the ops and checks them; a bad op is reported by Check().
  explicit Registry(std::vector<OpSpec> ops);

  // The built-in ops, checked; a broken built-in spec is a programming error (abort).
  static Registry BuiltIns();

  // Adds a user's op (op_spec_file.h), checked. An op with the name of one already present
  // is refused unless the new one says `overrides = true`, which replaces it.
  Status Add(OpSpec op);
  // OK when `op` may join (Add's rule): no op has its name, it says overrides = true, or it
  // is the same file reached twice; else InvalidArgument naming where the other comes from.
  Status CheckNewOp(const OpSpec& op) const;

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

// The built-in ops' spec files (ops/*.toml in the repository, embedded at build time).
struct EmbeddedSpec {
  std::string_view path;  // "ops/relu.toml"
  std::string_view text;
};
const std::vector<EmbeddedSpec>& EmbeddedOpSpecs();


}  // namespace cannbot::ops
