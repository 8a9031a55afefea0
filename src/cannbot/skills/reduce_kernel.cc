#include "cannbot/skills/reduce_kernel.h"

#include "cannbot/ops/dtype_values.h"
#include "cannbot/skills/elementwise_kernel.h"

namespace cannbot::skills {
namespace {

// The combine as a float function, and the value every partial result starts from (the
// identity, so partials that see no element do not change the fold).
struct Combine {
  const char* body;
  const char* identity;
};

Combine CombineOf(const std::string& reduce) {
  if (reduce == "max") return {"return v > acc ? v : acc;", "-__builtin_inff()"};
  if (reduce == "min") return {"return v < acc ? v : acc;", "__builtin_inff()"};
  return {"return acc + v;", "0.0f"};
}

// static inline float ew_finish(float acc, int64_t rows, ..., float alpha) { return (...); }
std::string FinishFunction(const ops::OpSpec& op, std::string* args) {
  std::string params = "float acc";
  *args = "acc";
  for (const ops::Param& p : op.params) {
    if (p.kind != ops::ParamKind::kSize && p.kind != ops::ParamKind::kScalar) continue;
    params += std::string(", ") + (p.kind == ops::ParamKind::kSize ? "int64_t " : "float ") + p.name;
    *args += ", " + p.name;
  }
  const std::string expression = op.reduce_finish.empty() ? "acc" : op.reduce_finish;
  return "// The output element from the combined row, from the spec: " + expression + "\n"
         "static inline float ew_finish(" + params + ") {\n  return (" + expression + ");\n}\n";
}

}  // namespace

Result<std::string> RowReduceKernel(const ops::OpSpec& op, const std::string& lanes_macro) {
  if (op.reduce.empty()) return Status::InvalidArgument("op " + op.name + " has no `reduce` table");
  const std::vector<const ops::Param*> in = op.ParamsOfKind(ops::ParamKind::kInput);
  const std::vector<const ops::Param*> out = op.ParamsOfKind(ops::ParamKind::kOutput);
  if (in.size() != 1 || out.size() != 1) {
    return Status::InvalidArgument("op " + op.name + " is not a row reduction (one input, one output)");
  }
  const ops::Param& x = *in[0];
  const ops::Param& y = *out[0];
  const Combine combine = CombineOf(op.reduce);
  const std::string lanes = lanes_macro.empty() ? "32" : lanes_macro;
  std::string finish_args;
  std::string code = "// cannbot: the row reduction kernel of op '" + op.name +
                     "', generated from its spec (" + op.reduce + " over the last axis).\n"
                     "#include <cstdint>\n#include <cstring>\n"
                     "#pragma GCC optimize(\"no-trapping-math\")\n";
  code += VectorMathSource();
  code += ops::kExtentFunctionsInC;
  code += GeneratedKernelSupport();
  code += "enum { EW_LANES = " + lanes + " };\n"
          "static_assert(EW_LANES >= 16 && EW_TILE % EW_LANES == 0, \"LANES must divide the tile\");\n"
          "static inline float ew_combine(float acc, float v) { " + std::string(combine.body) + " }\n" +
          FinishFunction(op, &finish_args) +
          // Each lane is its own chain, combined in element order: nothing is reassociated, so
          // the compiler vectorises the lanes loop as written.
          "static inline void ew_accumulate(const float* __restrict__ p, int64_t n,\n"
          "                                 float* __restrict__ partial) {\n"
          "  int64_t j = 0;\n"
          "  for (; j + EW_LANES <= n; j += EW_LANES) {\n"
          "    for (int l = 0; l < EW_LANES; ++l) partial[l] = ew_combine(partial[l], p[j + l]);\n"
          "  }\n"
          "  for (; j < n; ++j) partial[j % EW_LANES] = ew_combine(partial[j % EW_LANES], p[j]);\n"
          "}\n";
  const bool narrow_in = ops::DTypeIsSixteenBitFloat(x.dtype);
  std::string row = "    const " + std::string(narrow_in ? "ew_u16" : "float") + "* row = " +
                    (narrow_in ? "reinterpret_cast<const ew_u16*>(" + x.name + ")" : x.name) +
                    " + r * len;\n";
  if (narrow_in) {
    row += "    float tile[EW_TILE];\n"
           "    for (int64_t t = 0; t < len; t += EW_TILE) {\n"
           "      const int64_t n = len - t < EW_TILE ? len - t : EW_TILE;\n"
           "      ew_widen_" + SixteenBitSuffix(x.dtype) + "(row + t, tile, n);\n"
           "      ew_accumulate(tile, n, partial);\n    }\n";
  } else {
    row += "    ew_accumulate(row, len, partial);\n";
  }
  std::string store = "    " + y.name + "[r] = ew_finish(" + finish_args + ");\n";
  if (ops::DTypeIsSixteenBitFloat(y.dtype)) {
    store = "    reinterpret_cast<ew_u16*>(" + y.name + ")[r] = ew_float_to_" +
            SixteenBitSuffix(y.dtype) + "(ew_finish(" + finish_args + "));\n";
  }
  code += "\nextern \"C\" " + op.CSignature() + " {\n"
          "  const int64_t outer = " + ops::ExtentInC(y.extent) + ";\n"
          "  const int64_t len = outer > 0 ? " + ops::ExtentInC(x.extent) + " / outer : 0;\n"
          "  for (int64_t r = 0; r < outer; ++r) {\n"
          "    float partial[EW_LANES];\n"
          "    for (int l = 0; l < EW_LANES; ++l) partial[l] = " + combine.identity + ";\n" + row +
          "    float acc = partial[0];\n"
          "    for (int l = 1; l < EW_LANES; ++l) acc = ew_combine(acc, partial[l]);\n" + store +
          "  }\n}\n";
  return code;
}

}  // namespace cannbot::skills
