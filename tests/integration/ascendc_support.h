// Helpers for the ascendc integration tests: build an Ascend C kernel against cannbot's
// emulation with a cpu-ABI wrapper generated from the op's registry entry (the shape the
// validator's generated wrapper takes), run it in a child on the registry's inputs, and judge
// the result with the CANN precision standard and the cost model.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "cannbot/ascendc/cost_model.h"
#include "cannbot/ascendc/precision.h"
#include "cannbot/ascendc/stats.h"
#include "cannbot/ops/registry.h"
#include "cannbot/util/fs.h"
#include "cannbot/util/subprocess.h"
#include "cannbot/validator/inputs.h"
#include "integration/test_support.h"

namespace cannbot::ascendc::testing {

// main() reads the inputs from argv[1], writes the outputs to argv[2]; then come the element
// count of every tensor, the sizes and the scalars, in param order.
inline std::string WrapperFor(const ops::OpSpec& op) {
  std::string tiling_params, kernel_params, fn_params, tiling_args, in_list, out_list, elems,
      kernel_args, main_body;
  int tensors = 0, inputs = 0, outputs = 0, sizes = 0, scalars = 0;
  for (const ops::Param& p : op.params) {
    const std::string sep = fn_params.empty() ? "" : ", ";
    const std::string name = "p" + std::to_string(tensors + sizes + scalars);
    switch (p.kind) {
      case ops::ParamKind::kInput:
      case ops::ParamKind::kOutput: {
        const bool in = p.kind == ops::ParamKind::kInput;
        fn_params += sep + (in ? "const float* " : "float* ") + name;
        (in ? in_list : out_list) += std::string((in ? inputs : outputs) ? ", " : "") + name;
        kernel_args +=
            std::string(kernel_args.empty() ? "" : ", ") +
            (in ? "in[" + std::to_string(inputs) + "]" : "out[" + std::to_string(outputs) + "]");
        kernel_params += "GM_ADDR, ";
        elems += std::string(tensors ? ", " : "") + "g_elements[" + std::to_string(tensors) + "]";
        ++(in ? inputs : outputs);
        ++tensors;
        break;
      }
      case ops::ParamKind::kSize:
        fn_params += sep + "int64_t " + name;
        tiling_params += "int64_t, ";
        tiling_args += name + ", ";
        ++sizes;
        break;
      case ops::ParamKind::kScalar:
        fn_params += sep + "float " + name;
        tiling_params += "float, ";
        tiling_args += name + ", ";
        ++scalars;
        break;
    }
  }
  std::string call_args;
  int arg = 3 + tensors, index = 0;
  for (const ops::Param& p : op.params) {
    std::string value;
    if (p.IsTensor()) {
      value = "t[" + std::to_string(index) + "].data()";
      ++index;
    } else if (p.kind == ops::ParamKind::kSize) {
      value = "std::atoll(argv[" + std::to_string(arg++) + "])";
    } else {
      value = "std::strtof(argv[" + std::to_string(arg++) + "], nullptr)";
    }
    call_args += std::string(call_args.empty() ? "" : ", ") + value;
  }
  const std::string n = std::to_string(tensors), ni = std::to_string(inputs);
  return "#include \"cannbot_launch.h\"\n#include <cstdio>\n#include <cstdlib>\n#include <vector>\n"
         "extern \"C\" void " +
         op.name + "_tiling(" + tiling_params +
         "CannbotTiling*);\n"
         "extern \"C\" void " +
         op.name + "_kernel(" + kernel_params +
         "GM_ADDR);\n"
         "static int64_t g_elements[" +
         n +
         "];\n"
         "extern \"C\" void " +
         op.name + "(" + fn_params +
         ") {\n"
         "  CannbotTiling tiling{};\n"
         "  " +
         op.name + "_tiling(" + tiling_args +
         "&tiling);\n"
         "  cannbot_ascendc::Launch(tiling, {" +
         in_list + "}, {" + out_list + "}, {" + elems +
         "},\n"
         "      [&](GM_ADDR* in, GM_ADDR* out, GM_ADDR t) { " +
         op.name + "_kernel(" + kernel_args +
         ", t); });\n"
         "}\n"
         "int main(int argc, char** argv) {\n"
         "  (void)argc;\n"
         "  std::vector<std::vector<float>> t(" +
         n +
         ");\n"
         "  for (int i = 0; i < " +
         n +
         "; ++i) {\n"
         "    g_elements[i] = std::atoll(argv[3 + i]);\n"
         "    t[i].assign(static_cast<size_t>(g_elements[i]), 0.0f);\n"
         "  }\n"
         "  FILE* f = std::fopen(argv[1], \"rb\");\n"
         "  for (int i = 0; i < " +
         ni +
         "; ++i) {\n"
         "    if (std::fread(t[i].data(), 4, t[i].size(), f) != t[i].size()) return 3;\n"
         "  }\n"
         "  for (int i = " +
         ni + "; i < " + n +
         "; ++i) {\n"
         "    if (std::fread(t[i].data(), 4, t[i].size(), f) != t[i].size()) return 3;\n"
         "  }\n"
         "  std::fclose(f);\n"
         "  " +
         op.name + "(" + call_args +
         ");\n"
         "  f = std::fopen(argv[2], \"wb\");\n"
         "  for (int i = " +
         ni + "; i < " + n +
         "; ++i) std::fwrite(t[i].data(), 4, t[i].size(), f);\n"
         "  std::fclose(f);\n"
         "  return 0;\n"
         "}\n";
}

// g++ -std=c++17 -O2 -I targets/ascendc kernel wrapper -o binary; returns the compiler log on
// failure as the status message.
inline Status CompileKernel(const std::string& kernel_path, const std::string& wrapper_path,
                            const std::string& binary, const std::vector<std::string>& extra = {}) {
  SpawnOptions options;
  options.argv = {"g++",   "-std=c++17", "-O2",
                  "-Wall", "-Wextra",    "-I" + cannbot::testing::SourcePath("targets/ascendc")};
  for (const std::string& flag : extra) options.argv.push_back(flag);
  options.argv.insert(options.argv.end(), {kernel_path, wrapper_path, "-o", binary});
  auto run = RunCommand(options, std::chrono::milliseconds(120000));
  if (!run.ok()) return run.status();
  if (!run->exit.Success()) return Status::InvalidArgument(run->output);
  return Status::Ok();
}

// The emulation's API checked from inside a kernel: a program whose CHECK(cond) prints the
// failing line and counts it (kCheckPrelude, prepended to its source), built against the
// emulation and its host headers, run once per mode.
inline constexpr const char* kCheckPrelude = R"(#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>
static int failures = 0;
#define CHECK(c)                                          \
  do {                                                    \
    if (!(c)) {                                           \
      std::printf("FAIL line %d: %s\n", __LINE__, #c);    \
      ++failures;                                         \
    }                                                     \
  } while (0)
)";

// Writes kCheckPrelude + `source` as `name`.cpp in `dir` and builds the binary `name`.
inline Status BuildCheckProgram(const TempDir& dir, const std::string& name,
                                const std::string& source) {
  CANNBOT_RETURN_IF_ERROR(WriteFile(dir.File(name + ".cpp"), kCheckPrelude + source));
  CANNBOT_RETURN_IF_ERROR(WriteFile(dir.File("empty.cpp"), "\n"));
  return CompileKernel(dir.File(name + ".cpp"), dir.File("empty.cpp"), dir.File(name),
                       {"-I" + cannbot::testing::SourcePath("targets/ascendc/host")});
}

// Runs a built program with `args`; an empty result when it could not be started.
inline CommandResult RunCheckProgram(const TempDir& dir, const std::string& name,
                                     const std::vector<std::string>& args = {}) {
  SpawnOptions options;
  options.argv = {dir.File(name)};
  options.argv.insert(options.argv.end(), args.begin(), args.end());
  auto run = RunCommand(options, std::chrono::milliseconds(20000));
  EXPECT_TRUE(run.ok()) << run.status().ToString();
  return run.ok() ? *run : CommandResult{};
}

struct KernelRun {
  CommandResult result;
  std::vector<std::vector<float>> outputs;  // empty unless the child exited cleanly
};

// Runs `binary` (built from WrapperFor(op)) on one shape with the given inputs; outputs start
// as NaN poison.
inline KernelRun RunKernel(const std::string& binary, const TempDir& dir, const ops::OpSpec& op,
                           const ops::Shape& shape, const std::vector<std::vector<float>>& inputs) {
  KernelRun run;
  std::string in_bytes;
  std::vector<std::string> argv = {binary, dir.File("in.bin"), dir.File("out.bin")};
  std::vector<int64_t> out_elems;
  size_t input = 0;
  for (const ops::Param& p : op.params) {
    if (!p.IsTensor()) continue;
    const int64_t n = p.elements(shape);
    argv.push_back(std::to_string(n));
    if (p.kind == ops::ParamKind::kInput) {
      in_bytes.append(reinterpret_cast<const char*>(inputs[input++].data()),
                      static_cast<size_t>(n) * 4);
    } else {
      out_elems.push_back(n);
      std::vector<float> poison(static_cast<size_t>(n), std::nanf(""));
      in_bytes.append(reinterpret_cast<const char*>(poison.data()), poison.size() * 4);
    }
  }
  for (const ops::Param& p : op.params) {
    if (p.kind == ops::ParamKind::kSize) argv.push_back(std::to_string(shape.Size(p.name)));
    if (p.kind == ops::ParamKind::kScalar) {
      char text[64];
      std::snprintf(text, sizeof(text), "%.9g", static_cast<double>(shape.Scalar(p.name)));
      argv.push_back(text);
    }
  }
  EXPECT_TRUE(WriteFile(dir.File("in.bin"), in_bytes).ok());
  SpawnOptions options;
  options.argv = argv;
  auto result = RunCommand(options, std::chrono::milliseconds(240000));
  EXPECT_TRUE(result.ok());
  if (!result.ok()) return run;
  run.result = *result;
  if (!run.result.exit.Success()) return run;
  auto bytes = ReadFile(dir.File("out.bin"), 1u << 30);
  EXPECT_TRUE(bytes.ok());
  if (!bytes.ok()) return run;
  size_t offset = 0;
  for (int64_t n : out_elems) {
    std::vector<float> out(static_cast<size_t>(n));
    std::memcpy(out.data(), bytes->data() + offset, out.size() * 4);
    offset += out.size() * 4;
    run.outputs.push_back(std::move(out));
  }
  return run;
}

// The reference outputs for inputs as a kernel of `dtype_bits` sees them.
inline std::vector<std::vector<float>> Reference(const ops::OpSpec& op, const ops::Shape& shape,
                                                 std::vector<std::vector<float>> inputs,
                                                 uint32_t dtype_bits) {
  if (dtype_bits == 16) {
    for (auto& t : inputs) QuantizeToHalf(t.data(), static_cast<int64_t>(t.size()));
  }
  std::vector<std::vector<float>> outputs;
  ops::TensorArgs args;
  for (const auto& t : inputs) args.inputs.push_back(t.data());
  for (const ops::Param& p : op.params) {
    if (p.kind == ops::ParamKind::kOutput) {
      outputs.emplace_back(static_cast<size_t>(p.elements(shape)), 0.0f);
    }
  }
  for (auto& o : outputs) args.outputs.push_back(o.data());
  op.reference(args, shape);
  return outputs;
}

}  // namespace cannbot::ascendc::testing
