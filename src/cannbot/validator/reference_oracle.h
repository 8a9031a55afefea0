// ReferenceOracle: where the numbers a kernel must reproduce come from.
//
// Three kinds, one per ops::ReferenceKind:
//  - the built-in C++ reference of a built-in op, trusted, called in this process;
//  - a reference source that came with a user's op spec, and the user's own kernel in
//    differential mode: both untrusted, so each call runs in a fresh cannbot-runner process
//    of its own (never the candidate's), sandboxed exactly like a candidate, and everything
//    it wrote is read back and checked here (guards, unchanged inputs, every output written).
//
// A reference that misbehaves is the op's fault, not the candidate's: its errors are
// InvalidArgument naming the reference and the case, and the validation stops there.
//
// Ownership: an oracle borrows the OpSpec it was made for. Thread-safety: Outputs() is const
// and keeps no state between calls (a sandboxed call starts its own process), so it may be
// called from several threads.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cannbot/ops/op_spec.h"
#include "cannbot/util/status.h"
#include "cannbot/validator/kernel_runner.h"

namespace cannbot::validator {

class ReferenceOracle {
 public:
  virtual ~ReferenceOracle() = default;
  // The reference's outputs for `inputs` on `shape`, in the op's output order.
  virtual Result<std::vector<ops::Tensor>> Outputs(
      const ops::Shape& shape, const std::vector<ops::Tensor>& inputs) const = 0;
  // For reports: "the built-in reference", "reference rms_norm_ref.cpp (sandboxed)", ...
  virtual std::string Describe() const = 0;
};

// The op's built-in reference (ops::OpSpec::reference), in this process.
std::unique_ptr<ReferenceOracle> InProcessReference(const ops::OpSpec& op);

// Where a sandboxed reference's calls run.
struct SandboxedReferenceConfig {
  std::string shared_object;  // the compiled reference (or baseline kernel)
  std::string symbol;         // its extern "C" entry point
  std::string label;          // for reports and errors
  RunnerConfig runner;
  std::string work_dir;       // for the runner's output file
  std::chrono::milliseconds call_timeout{10000};
};
std::unique_ptr<ReferenceOracle> SandboxedReference(const ops::OpSpec& op,
                                                    SandboxedReferenceConfig config);

// `inner` fed its float inputs through `rounding(input index, value)` first (what a launch
// does to them before the kernel sees them); Describe() says so.
std::unique_ptr<ReferenceOracle> RoundedInputsReference(std::unique_ptr<ReferenceOracle> inner,
                                                        std::function<float(size_t, float)> rounding,
                                                        std::string how);

// Runs `oracle` twice on the op's first numeric case and compares the bits: a reference that
// crashes or answers differently is refused before any candidate runs.
Status ProbeReference(const ops::OpSpec& op, const ReferenceOracle& oracle, uint64_t seed);

}  // namespace cannbot::validator
