// The ascendc target: Ascend C vector kernels validated on the CPU through cannbot's own
// emulation of the programming model (targets/ascendc/, docs/ascendc.md).
//
// A candidate defines OP_tiling (host) and OP_kernel (device) per docs/kernel-abi.md. cannbot
// builds it with the emulation headers and a generated wrapper that exposes the cpu ABI, plus
// one extra int64 per tensor (its element count), so the sandboxed runner, the numeric layer
// and the hostile-kernel defences work unchanged. Outputs are judged with the CANN precision
// standard for the dtype the kernel chose; the perf layer runs each kernel once on the perf
// shape and compares the cost model's estimates of their time on the device (labelled as
// estimates), after checking the emulation's counters against the compulsory traffic.
//
// Thread-safety: plain values and pure functions; the judge is immutable.
#pragma once

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "cannbot/ascendc/device_profile.h"
#include "cannbot/ops/op_spec.h"
#include "cannbot/validator/compiler.h"
#include "cannbot/validator/kernel_runner.h"
#include "cannbot/validator/output_judge.h"
#include "cannbot/validator/reference_oracle.h"
#include "cannbot/validator/perf_gate.h"

namespace cannbot::validator {

struct AscendcTarget {
  TargetBuild build;
  ops::OpSpec spec;  // the op with one more size per tensor: its element count
};

// Reads the emulation headers from the data directory.
Result<AscendcTarget> MakeAscendcTarget(const ops::OpSpec& op);

// Whether `who` ("the ascendc target", "operator packages") can validate `op` on the
// emulation: every tensor floating point in the spec (fp32, half or bfloat16: the launch takes
// fp32 buffers, LaunchBuffers widens the others exactly, and converts to the dtype it runs),
// or, where `typed_launch` (packages and samples launch each tensor in its own dtype), int8 or
// uint8 (widened exactly too); and a reference it can call (built in or a reference source;
// the baseline, in differential mode, only where `differential`). InvalidArgument saying which
// and why otherwise.
Status CheckEmulatedOp(const ops::OpSpec& op, const std::string& who, bool differential,
                       bool typed_launch = false);

// How a generated wrapper hands the op's tensors to cannbot_ascendc::Launch, which takes fp32
// buffers: an fp32 tensor as it is; a half, bfloat16, int8 or uint8 one (as its spec declares
// it) widened into a local fp32 buffer before the launch (exact) and, for an output, narrowed
// back after it (nearest even; an element the launch left unchanged keeps its own bits).
struct LaunchBuffers {
  std::string preamble;  // global-scope lines before the entry (the spec's bfloat16 name)
  std::string before;    // statements before the launch
  std::string after;   // statements after it
  std::set<std::string> widened;  // the tensors with a local fp32 buffer
  // The expression the launch gets for tensor `name`.
  std::string Buffer(const std::string& name) const {
    return widened.count(name) > 0 ? "cb_" + name + ".data()" : name;
  }
};
// `spec`: the op with its element counts (WithElementCounts).
LaunchBuffers PlanLaunchBuffers(const ops::OpSpec& spec);

// Said after the names a kernel's failed build did not know (TargetBuild::undeclared_names_note).
inline constexpr char kAscendcUndeclaredNote[] =
    "Where these are Ascend C APIs, cannbot's CPU emulation does not have them yet "
    "(docs/ascendc.md lists what it emulates).";

// Every emulation header (device and host API) by the path a kernel or an operator package
// includes it by ("kernel_operator.h", "register/op_def_registry.h").
Result<SourceFiles> AscendcEmulationFiles();

// `op` with one more size per tensor, its element count ("elements_<tensor>"), filled in on
// every shape: what the emulated launch needs beside the op's own arguments.
ops::OpSpec WithElementCounts(const ops::OpSpec& op);

// Judges outputs with the CANN precision standard for the kernel's dtype (read from its stats
// line), and explains crashes by the emulation's rule-violation lines.
class AscendcJudge : public OutputJudge {
 public:
  AscendcJudge() = default;
  // For launches whose dtypes cannbot chose (operator packages: one per tensor of the op,
  // inputs then outputs, by OpDef name): each output is judged in its dtype (integers and
  // bool exactly), a built-in reference is recomputed on the inputs as launched, and a
  // statistics line that claims another dtype than the first output's is a failure.
  explicit AscendcJudge(std::vector<std::string> tensor_dtypes)
      : tensor_dtypes_(std::move(tensor_dtypes)) {}

  std::string Judge(const ops::OpSpec& op, const ops::Shape& shape,
                    const std::vector<ops::Tensor>& inputs, size_t output_index,
                    const ops::Tensor& expected, const ops::Tensor& got,
                    const std::string& printed, Comparison* summary) const override;
  std::string Printing(const std::string& printed) const override;
  std::string ExplainCrash(const std::string& printed) const override;

 private:
  // The launch's dtype for output `output_index` of `op` ("" when cannbot did not choose).
  std::string OutputDtype(const ops::OpSpec& op, size_t output_index) const;

  // How the judged output was launched: its width, whether bf16, and how the launch converted
  // each input (when it converted any).
  struct Launched {
    uint32_t dtype_bits = 32;
    bool bf16 = false;
    bool converted_inputs = false;
    std::function<float(size_t, float)> convert;
  };
  // "" and `*launched`, or why the statistics line contradicts the launch cannbot chose.
  std::string ReadLaunch(const ops::OpSpec& op, size_t output_index, size_t inputs,
                         const std::string& printed, Launched* launched) const;

  std::vector<std::string> tensor_dtypes_;  // empty: the dtype the statistics line reports
};

// The ascendc perf layer: both kernels once on the perf shape, outputs judged, counters
// checked, then the cost model's estimated times compared against min_speedup.
Result<PerfReport> EstimateAscendcPerf(const ops::OpSpec& spec,
                                       const std::string& candidate_object,
                                       const std::string& baseline_object, uint64_t seed,
                                       const ascendc::DeviceProfile& device,
                                       const RunnerConfig& runner, const PerfConfig& config,
                                       const std::string& work_dir,
                                       const ReferenceOracle* reference = nullptr,
                                       const std::vector<std::string>& tensor_dtypes = {});

}  // namespace cannbot::validator
