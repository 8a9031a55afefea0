// OpSpec: everything cannbot knows about one built-in operator, described as data.
//
// An OpSpec is the *contract* between a kernel author and the validator: the exact C
// signature (derived from `params`), the shapes a kernel is checked on, how inputs are drawn,
// how close outputs must be, how much work one call does, and a trusted reference kernel.
// Kernels follow the CPU kernel ABI of docs/kernel-abi.md: contiguous row-major tensors of the
// params' dtypes, then int64_t sizes and float scalar attributes, in the declared order. The
// built-in ops and users' ops alike come from spec files (ops/*.toml, op_spec_file.h,
// docs/op-spec.md) and become this struct.
//
// Ownership: OpSpecs live in the immutable Registry (registry.h) for the whole process.
// Thread-safety: immutable after construction; every member function is const and safe to
// call from any thread.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cannbot/ops/dtype.h"
#include "cannbot/ops/tensor.h"
#include "cannbot/util/status.h"

namespace cannbot::ops {

enum class ParamKind {
  kInput,   // const float*, read-only tensor
  kOutput,  // float*, tensor the kernel must fill completely
  kSize,    // int64_t size or integer attribute (stride, pad)
  kScalar,  // float attribute (eps)
};

// Concrete values for the size and scalar parameters of one call.
struct Shape {
  std::string label;                     // "tiny", "odd", "perf", ...
  std::map<std::string, int64_t> sizes;  // one entry per kSize param
  std::map<std::string, float> scalars;  // one entry per kScalar param
  bool perf = false;                     // the one shape the perf gate times

  // The named size; aborts on a name the op does not declare (a caller's bug: every shape of
  // a loaded spec gives every size).
  int64_t Size(const std::string& name) const;
  float Scalar(const std::string& name) const;
  // Every size and scalar by name, as the reals a FLOP, byte or tolerance expression reads.
  std::map<std::string, double> Values() const;
  // "rows=7 cols=33 eps=1e-05", for reports.
  std::string Describe() const;
};

struct Param {
  std::string name;
  ParamKind kind;
  // Number of elements of a tensor param for a shape; empty for sizes and scalars.
  std::function<int64_t(const Shape&)> elements;
  DType dtype = DType::kF32;  // a tensor's element type
  // A tensor's dimensions for a shape, when its extent is a product (`rows*cols`: one
  // dimension per factor, for APIs that see shapes, such as an Ascend C tiling function);
  // unset: one dimension of `elements`. Read it through Dims().
  std::function<std::vector<int64_t>(const Shape&)> dims = nullptr;
  std::vector<int64_t> Dims(const Shape& shape) const {
    return dims ? dims(shape) : std::vector<int64_t>{elements(shape)};
  }
  // A tensor's element count as its spec wrote it ("rows*cols"); empty for ops built in code.
  std::string extent = "";

  std::string CType() const;  // "const float*", "float*", "int64_t", "float"
  bool IsTensor() const { return kind == ParamKind::kInput || kind == ParamKind::kOutput; }
};

// How the values of one input tensor are drawn. Edge values (huge magnitudes, zeros,
// denormals) are sprinkled in to catch overflow and naive formulas.
struct Distribution {
  // kInteger: whole numbers in [a, b]; kProbabilityRows: uniform (0, 1] values, each row of
  // `row_elements` (the last dimension) scaled to sum to 1.
  enum class Kind { kUniform, kNormal, kInteger, kProbabilityRows };
  Kind kind = Kind::kUniform;
  double a = -1.0;  // uniform, integer: low bound;  normal: mean
  double b = 1.0;   // uniform: high bound (exclusive); integer: high bound; normal: sd
  std::function<int64_t(const Shape&)> row_elements;  // kProbabilityRows only
  std::vector<double> edge_values;
  double edge_fraction = 0.0;  // share of elements replaced by a random edge value

  static Distribution Normal(double mean, double sd) {
    Distribution d;
    d.kind = Kind::kNormal;
    d.a = mean;
    d.b = sd;
    return d;
  }
  static Distribution Uniform(double low, double high) {
    Distribution d;
    d.a = low;
    d.b = high;
    return d;
  }

  std::string Describe() const;
};

// How close an output must be to the reference's:
//  kAbsRel: |got - expected| <= atol + rtol * |expected|, element by element;
//  kCann:   the CANN precision standard: mean relative error (MERE) below `threshold` and
//           every element's relative error below 10 x threshold (fp16 2^-10, bf16 2^-7,
//           fp32 2^-13); elements with |expected| < atol are judged by absolute error <= atol;
//  kExact:  the same value (integer and data-movement ops).
// Non-finite expected values must be matched exactly in every mode.
struct Tolerance {
  enum class Kind { kAbsRel, kCann, kExact };
  double atol = 1e-5;  // first, so Tolerance{atol, rtol} reads naturally
  double rtol = 1e-5;
  Kind kind = Kind::kAbsRel;
  double threshold = 0;  // kCann only

  static Tolerance Cann(DType dtype);
  static Tolerance Exact();
  std::string Describe() const;  // "atol 1e-05, rtol 1e-05", "CANN standard (MERE < ...)"
};

// Whose numbers a kernel must reproduce.
enum class ReferenceKind {
  kBuiltIn,   // cannbot's own C++ reference, trusted, run in the validating process
  kSource,    // a C++ file that came with the op spec: untrusted, sandboxed in its own process
  kBaseline,  // differential mode: the user's current kernel is the reference
};
const char* ReferenceKindName(ReferenceKind kind);  // "built-in", "source", "baseline"

// Compulsory memory traffic of one call, split by direction: reads and writes cost different
// amounts of bandwidth (a write also pays a read-for-ownership unless it streams), so the
// roofline of an op depends on its mix (machine_model.h).
struct Traffic {
  double read = 0;     // bytes
  double written = 0;  // bytes
  double total() const { return read + written; }
};

// Pointers to the tensors of one call, in the order of the op's params: floats for floating
// tensors (whatever their dtype in the kernel's signature); an int32_t or int8_t tensor's own
// elements travel in the same slot (the binder reads them back: builtin_references.cc).
struct TensorArgs {
  std::vector<const float*> inputs;
  std::vector<float*> outputs;
};

using ReferenceFn = std::function<void(const TensorArgs&, const Shape&)>;

struct OpSpec {
  std::string name;      // also the extern "C" symbol a kernel must define
  std::string summary;   // one line: what it computes
  std::string semantics; // precise definition, with formulas and layouts, for people and prompts
  std::vector<Param> params;
  std::vector<Shape> shapes;  // at least: tiny, odd, one realistic, and exactly one perf shape
  std::map<std::string, Distribution> inputs;  // by input param name
  // Shape-specific overrides of `inputs` (e.g. a large-offset case for layernorm), by
  // shape label then input name.
  std::map<std::string, std::map<std::string, Distribution>> input_overrides;
  std::function<Tolerance(const Shape&)> tolerance;
  // Per-dtype tolerances of a spec file; an output of a listed dtype uses its entry.
  std::map<DType, std::function<Tolerance(const Shape&)>> tolerance_by_dtype;
  std::function<double(const Shape&)> flops;  // floating-point operations of one call
  // Bytes of one call when the spec gives them; unset: every tensor read or written once.
  std::function<double(const Shape&)> bytes;
  // A shape drawn within the spec's declared bounds, different for every seed (validation
  // adds it to the listed cases); unset for ops without bounds. nullopt when no valid shape
  // was found in a few tries.
  std::function<std::optional<Shape>(uint64_t seed)> random_shape;
  // Rejects shapes the op cannot take (e.g. a kernel larger than the padded image).
  std::function<Status(const Shape&)> check_shape;
  ReferenceKind reference_kind = ReferenceKind::kBuiltIn;
  // kBuiltIn: trusted, runs in the validating process on float tensors (16-bit tensors are
  // widened to float for it and its outputs rounded back: reference_oracle.cc)
  ReferenceFn reference;
  // kBuiltIn: the reference's C++ text (namespace cannbot_ref); kSource: the user's file,
  // defining extern "C" <name>_reference with the op's signature.
  std::string reference_source;
  std::string reference_file;  // kSource: where it came from, for messages
  std::string origin = "built-in";  // or the spec file's path, or "inline"
  std::string spec_text;  // a spec file's TOML text, so a remote job can carry the op
  // Which recipes and skills apply: "elementwise", "activation", "binary", "reduction",
  // "normalization", "matmul", "convolution" or "other".
  std::string family = "other";
  // A spec with `dtypes` is one op in several element types, each variant an OpSpec of its
  // own (relu, relu_fp16, relu_bf16): `variant_of` is the spec's name in all of them, empty
  // for a spec without `dtypes`. Family() groups by it.
  std::string variant_of;
  // Elementwise ops: the output element as a float C++ expression of the input elements (by
  // param name) and the scalars, in cannbot's vector math (cb_exp, ...; docs/op-spec.md); the
  // vectorised family recipe is instantiated from it. Empty: not given.
  std::string elementwise;
  // Broadcast inputs of an elementwise op: input name -> inner size expression; its element
  // for output element i is input[(i / inner) % extent(input)].
  std::map<std::string, std::string> broadcast;
  // Row reductions over the last axis (one input [outer, len], one output [outer]): how the
  // row's elements combine, "sum", "max" or "min" (empty: not given), and an optional float
  // expression of `acc` (the combined row), the sizes and the scalars for the output element
  // ("acc / cols" for a mean). The generated row-reduce recipe is instantiated from them.
  std::string reduce;
  std::string reduce_finish;
  bool overrides = false;  // a user spec that knowingly replaces the built-in op of its name

  // "void swish(const float* x, float* y, int64_t n)"
  std::string CSignature() const;
  // The contract as `cannbot ops --json` and GET /ops print it: name, summary and signature;
  // with `full`, also the semantics, parameters, shapes (tolerances, work), input
  // distributions and the reference source.
  nlohmann::json ToJson(bool full) const;
  // A translation unit exporting the reference under the op's extern "C" name (kBuiltIn,
  // kSource).
  std::string ReferenceAsKernel() const;
  // The extern "C" symbol a kSource reference defines: "<name>_reference".
  std::string ReferenceSymbol() const { return name + "_reference"; }
  // The tolerance for an output of `dtype` on `shape`.
  Tolerance ToleranceFor(const Shape& shape, DType dtype) const;
  // Compulsory memory traffic of one call: every input read once, every output written once.
  double Bytes(const Shape& shape) const;
  // The same traffic split into reads and writes (a spec's `bytes` expression keeps the
  // tensors' read/write proportions).
  Traffic TrafficOf(const Shape& shape) const;
  const Shape& PerfShape() const;
  const Distribution& InputDistribution(const std::string& shape_label,
                                        const std::string& input) const;
  std::vector<const Param*> ParamsOfKind(ParamKind kind) const;
  // The tensors in launch order: inputs, then outputs.
  std::vector<const Param*> Tensors() const;
  // The op as users name it across dtype variants: variant_of, or the name.
  const std::string& BaseName() const { return variant_of.empty() ? name : variant_of; }
};

// A spec's extent expression as a C++ expression of the kernel's int64_t sizes; its functions
// (ceil_div, min, max) are the ones kExtentFunctionsInC defines, which must precede it.
std::string ExtentInC(const std::string& extent);
extern const char* const kExtentFunctionsInC;

}  // namespace cannbot::ops
