// Package: an Ascend C operator package as its author keeps it, in the layout of the public
// CANN operator repositories, and what cannbot generates to build it on the CPU emulation:
//
//   DIR/op_host/*.cpp, *.h   the OpDef (OP_ADD), the tiling function, the tiling-data header
//   DIR/op_kernel/*.cpp, *.h the kernel: extern "C" __global__ __aicore__ void op(GM_ADDR ...),
//                            or a template entry (template <uint32_t schMode> __global__ ...)
//   DIR/op_host/op_api/, aclnn_*.cpp, *_l0.cpp   the aclnn interface: not read
//
// The package is read as written; nothing in it is edited. What cannbot learns by reading
// (the kernel's entry point and arity, the registered tiling struct) is found here; what it
// learns by running the package's own host code (the OpDef: tensors, dtypes, attributes) comes
// back as OpDefinition, parsed from the describer program this file also generates (run
// confined by validator/ascendc_package.h). docs/ascendc.md, "Operator packages".
//
// Thread-safety: plain values and pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cannbot/ascendc/template_entry.h"
#include "cannbot/ops/op_spec.h"
#include "cannbot/util/status.h"

namespace cannbot::ascendc {

using PackageFiles = std::vector<std::pair<std::string, std::string>>;  // relative path, text

struct Package {
  std::string dir;            // as given, for messages
  // The OpDef type run, when the package defines several operators (package_operators.h);
  // "" when it defines one. Read again with it (PackageFromFiles) to get the same operator.
  std::string chosen_operator;
  PackageFiles files;         // every op_host/ and op_kernel/ source and header
  std::string kernel_file;    // "op_kernel/add_custom.cpp": the file defining the entry
  std::string entry;          // "add_custom"
  int entry_arity = 0;        // its GM_ADDR parameters
  // A templated entry's parameters (tiling template programming; template_entry.h), and the
  // op_kernel header with its ASCENDC_TPL_ARGS_DECL. Empty for an extern "C" entry.
  std::vector<TemplateParam> entry_template;
  std::string template_header;
  std::vector<std::string> host_units;      // "op_host/add_custom.cpp", ... (not aclnn)
  // The registrations outside the OpDef the host code makes: "OPTILING", "INFERSHAPE", "OP"
  // (IMPL_OP_OPTILING, IMPL_OP_INFERSHAPE, IMPL_OP).
  std::vector<std::string> impl_registrations;
  std::vector<std::string> tiling_headers;  // op_host headers with BEGIN_TILING_DATA_DEF
  // Every REGISTER_TILING_DATA_CLASS struct ("optiling::TilingData"; one per tiling key where
  // a package registers several, for GET_TILING_DATA_WITH_STRUCT), the default first.
  std::vector<std::string> tiling_structs;
  // The tiling classes the host code registers (REGISTER_TILING_TEMPLATE("Op", Class, 100),
  // REGISTER_OPS_TILING_TEMPLATE(Op, Class, 100)), in the order written.
  struct TilingTemplate {
    std::string op_type;
    std::string class_name;
    std::string priority;  // as written: a number or a constant's name
  };
  std::vector<TilingTemplate> tiling_templates;
  // The default struct, GET_TILING_DATA's; "" when none is registered.
  std::string TilingType() const { return tiling_structs.empty() ? "" : tiling_structs.front(); }

  std::string Describe() const;  // "package DIR (kernel add_custom in op_kernel/add_custom.cpp)"
};

// Whether a file of a package's tree is one cannbot reads (.cpp .cc .h .hpp .inc .asc).
bool IsPackageSourceName(const std::string& name);
// What cannbot reads of a package or sample directory: at most this many source files under
// each of its source folders, each at most this large.
inline constexpr size_t kMaxFiles = 200;
inline constexpr size_t kMaxFileBytes = 1u << 20;

// Reads every source file under DIR/<sub> (recursively, sorted) into `files`, as text.
Status ReadSourceTree(const std::string& dir, const std::string& sub, PackageFiles* files);
// `text` with comments blanked (newlines kept), so a commented-out entry point is not one.
std::string WithoutComments(const std::string& text);

// Reads DIR. Errors (InvalidArgument, each naming the file and the cause): no op_host/ or
// op_kernel/, no host .cpp, no or several kernel entry points, an entry with parameters other
// than GM_ADDR, files too large or not text, several operators and none named.
// `operator_name`: the operator to run when the package defines several (an OpDef type or its
// kernel entry; package_operators.h); "" for a package of one.
Result<Package> LoadPackage(const std::string& dir, const std::string& operator_name = "");
// The same from files a request carried (`label` names the package in messages): each path
// must be plain, relative and under op_host/ or op_kernel/, with a source extension.
Result<Package> PackageFromFiles(const std::string& label, PackageFiles files,
                                 const std::string& operator_name = "");

// One tensor of the OpDef: its dtype per supported combination (column i of every tensor
// together is combination i, as the OpDef lists them).
struct OpDefTensor {
  std::string name;
  std::vector<std::string> dtypes;  // "float32", "float16", "bfloat16", "int32", ...
};

struct OpDefinition {
  std::string type;  // "AddCustom"
  std::vector<OpDefTensor> inputs, outputs;
  std::vector<std::string> attrs;  // names, in order
  bool has_tiling = false;
  std::vector<std::string> socs;   // AddConfig
  size_t Combinations() const;     // columns of the dtype lists
};

// The describer program's files beside the package's own: `describe.cpp` (a main() that
// prints the OpDef as one JSON line; emulated host API: targets/ascendc/cannbot_host_api.h)
// and the generated `cannbot_package_host.inc` that brings in the host code.
PackageFiles DescriberFiles(const Package& package);
// Parses the describer's output. Errors name the package's problem (no OP_ADD, lists of
// different lengths, an unknown dtype number).
Result<OpDefinition> ParseOpDefinition(const std::string& printed, const std::string& package);

// One dtype combination: every tensor's dtype, inputs then outputs.
struct DtypeCombo {
  size_t index = 0;
  std::vector<std::pair<std::string, std::string>> dtypes;  // tensor name, dtype
  std::string Describe() const;  // "x=float16 y=float16 z=float16"
  // The one dtype every tensor has ("" when they differ).
  std::string Uniform() const;
};
std::vector<DtypeCombo> Combinations(const OpDefinition& def);

// The problem with running `op` through this package, "" when none: tensor counts that differ
// from the op's, an entry point whose arity fits neither.
std::string CheckAgainstOp(const Package& package, const OpDefinition& def,
                           const ops::OpSpec& op);

// What one combination's build needs besides the emulation: the main source (it includes the
// kernel file as written) and the package's files plus two generated ones:
//   cannbot_package_kernel.h  DTYPE_<NAME> macros, the tiling struct for GET_TILING_DATA
//   cannbot_package_host.inc  the host code and the entry's declaration, for the wrapper
struct PackageBuild {
  std::string source;
  PackageFiles files;
};
// `taken`: the C symbol cannbot's wrapper defines (the op's name); a kernel entry of the same
// name (a package's `softmax` for op softmax), or named like a C library function (`exp`,
// `sqrt`, `abs`), is renamed in the kernel's translation unit.
PackageBuild MakePackageBuild(const Package& package, const OpDefinition& def,
                              const DtypeCombo& combo, const std::string& taken = "");

// The C type a dtype name has in kernel code ("half", "float", "bfloat16_t", "int32_t").
std::string KernelCType(const std::string& dtype);

}  // namespace cannbot::ascendc
