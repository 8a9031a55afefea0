// Operator packages on the ascendc target (engine/package_validation.h): the example packages
// run as written for every dtype of their OpDef, and broken packages, made from the example by
// one edit each, are refused or rejected with a reason that names the cause.
#include <gtest/gtest.h>

#include <filesystem>

#include "builtin_ops.h"
#include "cannbot/engine/package_suggest.h"
#include "cannbot/engine/package_validation.h"
#include "cannbot/llm/http_client.h"
#include "cannbot/ops/op_spec_file.h"
#include "cannbot/util/data_dir.h"
#include "cannbot/util/fs.h"
#include "cannbot/util/subprocess.h"
#include "integration/fake_llm_server.h"
#include "integration/package_support.h"
#include "integration/test_support.h"

namespace cannbot::engine {
namespace {

namespace fs = std::filesystem;
using testing::SourcePath;

const char* const kFast = "examples/ascendc/packages/add_custom_fast";
const char* const kSlow = "examples/ascendc/packages/add_custom_slow";

class AscendcPackageTest : public testing::BuiltInValidatorTest {
 protected:
  void SetUp() override {
    BuiltInValidatorTest::SetUp();
    if (HasFatalFailure()) return;
    auto dir = TempDir::Create("cannbot-package-test");
    ASSERT_TRUE(dir.ok());
    dir_ = std::make_unique<TempDir>(std::move(dir).value());
  }

  Result<PackageReport> Run(const std::string& package, const std::string& baseline = "") {
    PackageRequest request;
    request.op = "add";
    CANNBOT_ASSIGN_OR_RETURN(request.candidate, ascendc::LoadPackage(package));
    if (!baseline.empty()) {
      CANNBOT_ASSIGN_OR_RETURN(request.baseline, ascendc::LoadPackage(baseline));
    }
    request.seed = 5;
    return ValidatePackage(*validator_, cannbot_test::BuiltInOps(), request);
  }

  // A copy of the fast example with fp32 only (one combination: one build per test) and
  // `edits` applied to `file`: {old text, new text}, each old text present.
  std::string Variant(const std::string& name, const std::string& file,
                      const std::vector<std::pair<std::string, std::string>>& edits,
                      const char* base = kFast) {
    const std::string dir = dir_->File(name);
    fs::copy(SourcePath(base), dir, fs::copy_options::recursive);
    const std::string host = dir + "/op_host/add_custom.cpp";
    auto text = ReadFile(host);
    EXPECT_TRUE(text.ok());
    std::string h = *text;
    const std::string dtypes = "{ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_BF16, ge::DT_INT32}";
    const std::string formats = "{ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND}";
    for (size_t at; (at = h.find(dtypes)) != std::string::npos;) {
      h.replace(at, dtypes.size(), "{ge::DT_FLOAT}");
    }
    for (size_t at; (at = h.find(formats)) != std::string::npos;) {
      h.replace(at, formats.size(), "{ge::FORMAT_ND}");
    }
    EXPECT_TRUE(WriteFile(host, h).ok());
    const std::string path = dir + "/" + file;
    auto source = ReadFile(path);
    EXPECT_TRUE(source.ok()) << path;
    std::string s = *source;
    for (const auto& [from, to] : edits) {
      const size_t at = s.find(from);
      EXPECT_NE(at, std::string::npos) << from;
      if (at != std::string::npos) s.replace(at, from.size(), to);
    }
    EXPECT_TRUE(WriteFile(path, s).ok());
    return dir;
  }

  // `package` judged by `op`, one of the test ops with reference sources (package_ops/).
  Result<PackageReport> RunWithPackageOps(const std::string& op, const ascendc::Package& package) {
    ops::Registry registry = cannbot_test::BuiltInOps();
    CANNBOT_RETURN_IF_ERROR(ops::AddOpsDirs({testing::Fixture("package_ops")}, &registry));
    validator::Validator validator(testing::TestConfig(), store_.get(), registry);
    PackageRequest request;
    request.seed = 5;
    request.op = op;
    request.candidate = package;
    return ValidatePackage(validator, registry, request);
  }

  // The one combination's failure reason (compile or numeric layer).
  static std::string Failure(const PackageReport& report) {
    EXPECT_EQ(report.runs.size(), 1u);
    if (report.runs.empty() || !report.runs[0].check) return "";
    const validator::KernelCheck& c = *report.runs[0].check;
    EXPECT_FALSE(c.ok);
    return c.reason;
  }

  std::unique_ptr<TempDir> dir_;
};

class ExamplePackageTest : public AscendcPackageTest,
                           public ::testing::WithParamInterface<std::pair<const char*, const char*>> {};

// Each example package, fast against slow, in fp16, fp32 and bf16 (the fast kernels widen
// 16-bit tiles to float where the vector unit or the standard needs it), each judged by the
// CANN standard of its dtype; add in int32 too, judged exactly.
TEST_P(ExamplePackageTest, TheFastPackageBeatsTheSlowOneInEveryDtypeOfItsOpDef) {
  const auto [op, name] = GetParam();
  const std::string dir = std::string("examples/ascendc/packages/") + name;
  PackageRequest request;
  request.op = op;
  auto fast = ascendc::LoadPackage(SourcePath(dir + "_fast"));
  auto slow = ascendc::LoadPackage(SourcePath(dir + "_slow"));
  ASSERT_TRUE(fast.ok() && slow.ok()) << fast.status().ToString() << slow.status().ToString();
  request.candidate = *fast;
  request.baseline = *slow;
  request.seed = 5;
  auto report = ValidatePackage(*validator_, cannbot_test::BuiltInOps(), request);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  std::vector<std::string> want = {"float16", "float32", "bfloat16"};
  if (std::string(op) == "add") want.push_back("int32");
  ASSERT_EQ(report->runs.size(), want.size());
  std::vector<std::string> dtypes;
  for (const PackageRun& run : report->runs) {
    dtypes.push_back(run.combo.dtypes.front().second);
    ASSERT_TRUE(run.verdict.has_value()) << run.skipped;
    EXPECT_TRUE(run.verdict->accepted) << run.verdict->RenderText();
    ASSERT_TRUE(run.verdict->perf.has_value());
    EXPECT_TRUE(run.verdict->perf->estimated);
    EXPECT_GT(run.verdict->perf->speedup, 10.0) << run.verdict->RenderText();
  }
  EXPECT_EQ(dtypes, want);
  EXPECT_TRUE(report->ok());
  EXPECT_NE(report->RenderText().find("every combination that ran passed"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Examples, ExamplePackageTest,
                         ::testing::Values(std::pair{"add", "add_custom"},
                                           std::pair{"swish", "swish_custom"},
                                           std::pair{"layernorm", "layernorm_custom"}),
                         [](const auto& info) { return std::string(info.param.first); });

// Packages built on the high-level library, correct in every dtype of their OpDef on every
// shape of their op: softmax_custom (its host tiling calls SoftMaxTilingFunc and embeds
// SoftMaxTiling in its tiling data; its kernel pads rows to 32-byte blocks and calls SoftMax;
// 1 to 4099 columns) and gelu_custom (the math library's Gelu, tanh form).
class HighLevelApiPackageTest
    : public AscendcPackageTest,
      public ::testing::WithParamInterface<std::tuple<const char*, const char*, size_t>> {};

TEST_P(HighLevelApiPackageTest, IsCorrectInEachDtype) {
  const auto [op, name, dtypes] = GetParam();
  PackageRequest request;
  request.op = op;
  auto package = ascendc::LoadPackage(SourcePath(std::string("examples/ascendc/packages/") + name));
  ASSERT_TRUE(package.ok()) << package.status().ToString();
  request.candidate = *package;
  request.seed = 5;
  auto report = ValidatePackage(*validator_, cannbot_test::BuiltInOps(), request);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  ASSERT_EQ(report->runs.size(), dtypes);
  for (const PackageRun& run : report->runs) {
    ASSERT_TRUE(run.check.has_value()) << run.skipped;
    EXPECT_TRUE(run.check->ok) << run.check->reason;
  }
  EXPECT_TRUE(report->ok()) << report->RenderText();
}

INSTANTIATE_TEST_SUITE_P(Examples, HighLevelApiPackageTest,
                         ::testing::Values(std::tuple{"softmax", "softmax_custom", size_t{2}},
                                           std::tuple{"gelu_tanh", "gelu_custom", size_t{3}}),
                         [](const auto& info) { return std::string(std::get<0>(info.param)); });

// A package judged by the op its author specified (a spec with a reference source, as with
// --ops-dir): the add package is right for vector_add in fp16, fp32, bf16 and int32 (the
// reference is fed the inputs as each launch converts them) and wrong for vector_sub, whose sandboxed
// reference says so.
TEST_F(AscendcPackageTest, AUserSpecWithAReferenceSourceJudgesAPackage) {
  auto every_dtype = ascendc::LoadPackage(SourcePath(kFast));
  ASSERT_TRUE(every_dtype.ok()) << every_dtype.status().ToString();
  auto right = RunWithPackageOps("vector_add", *every_dtype);
  ASSERT_TRUE(right.ok()) << right.status().ToString();
  EXPECT_EQ(right->runs.size(), 4u);
  EXPECT_TRUE(right->ok()) << right->RenderText();
  auto package = ascendc::LoadPackage(Variant("fp32", "op_kernel/add_custom.cpp", {}));
  ASSERT_TRUE(package.ok()) << package.status().ToString();
  auto wrong = RunWithPackageOps("vector_sub", *package);
  ASSERT_TRUE(wrong.ok()) << wrong.status().ToString();
  EXPECT_FALSE(wrong->ok());
  EXPECT_NE(Failure(*wrong).find("CANN precision standard"), std::string::npos)
      << wrong->RenderText();
}

// A spec that declares its tensors half says what the op is: of the package's four dtype
// combinations only float16 runs (the others are skipped, naming the tensor), its half buffers
// widened for the launch and narrowed back, and a wrong half branch is seen.
TEST_F(AscendcPackageTest, ASpecThatDeclaresHalfRunsTheHalfCombinationOnly) {
  auto every_dtype = ascendc::LoadPackage(SourcePath(kFast));
  ASSERT_TRUE(every_dtype.ok()) << every_dtype.status().ToString();
  auto report = RunWithPackageOps("vector_add_half", *every_dtype);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  ASSERT_EQ(report->runs.size(), 4u);
  for (const PackageRun& run : report->runs) {
    if (run.combo.Uniform() == "float16") {
      EXPECT_TRUE(run.skipped.empty()) << run.skipped;
      EXPECT_TRUE(run.ok()) << report->RenderText();
    } else {
      EXPECT_NE(run.skipped.find("spec declares x as half"), std::string::npos) << run.skipped;
    }
  }
  EXPECT_TRUE(report->ok()) << report->RenderText();

  const std::string dir = dir_->File("half_sub");
  fs::copy(SourcePath(kFast), dir, fs::copy_options::recursive);
  const std::string kernel = dir + "/op_kernel/add_custom.cpp";
  auto text = ReadFile(kernel);
  ASSERT_TRUE(text.ok());
  std::string edited = *text;
  const std::string add = "Add(z, x, y, static_cast<int32_t>(n));";
  const size_t at = edited.find(add);
  ASSERT_NE(at, std::string::npos);
  edited.replace(at, add.size(), "Sub(z, x, y, static_cast<int32_t>(n));");
  ASSERT_TRUE(WriteFile(kernel, edited).ok());
  auto sub = ascendc::LoadPackage(dir);
  ASSERT_TRUE(sub.ok()) << sub.status().ToString();
  auto wrong = RunWithPackageOps("vector_add_half", *sub);
  ASSERT_TRUE(wrong.ok()) << wrong.status().ToString();
  EXPECT_FALSE(wrong->ok());
  EXPECT_NE(wrong->RenderText().find("CANN precision standard for fp16"), std::string::npos)
      << wrong->RenderText();
}

// A package whose OpDef declares an int32 input (embedding's ids) gets that tensor as int32:
// its tiling reads the table's shape, its kernel reads the ids with the scalar unit and moves
// each picked row with DataCopyPad, on every shape of the op (rows of 1 and 19 floats too).
TEST_F(AscendcPackageTest, AnInt32TensorOfItsOpDefReachesThePackageKernelAsInt32) {
  auto package = ascendc::LoadPackage(SourcePath("examples/ascendc/packages/embedding_lookup"));
  ASSERT_TRUE(package.ok()) << package.status().ToString();
  PackageRequest request;
  request.op = "embedding";
  request.candidate = *package;
  request.seed = 5;
  auto report = ValidatePackage(*validator_, cannbot_test::BuiltInOps(), request);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  ASSERT_EQ(report->runs.size(), 1u);
  EXPECT_EQ(report->runs[0].combo.Describe(), "table=float32 ids=int32 y=float32");
  ASSERT_TRUE(report->runs[0].check.has_value()) << report->runs[0].skipped;
  EXPECT_TRUE(report->runs[0].check->ok) << report->runs[0].check->reason;

  // Every token looking up its core's first id: wrong rows.
  const std::string dir = dir_->File("first_id_only");
  fs::copy(SourcePath("examples/ascendc/packages/embedding_lookup"), dir,
           fs::copy_options::recursive);
  const std::string kernel = dir + "/op_kernel/embedding_lookup.cpp";
  auto text = ReadFile(kernel);
  ASSERT_TRUE(text.ok());
  std::string edited = *text;
  const std::string read = "idGm.GetValue(i)";
  const size_t at = edited.find(read);
  ASSERT_NE(at, std::string::npos);
  edited.replace(at, read.size(), "idGm.GetValue(0)");
  ASSERT_TRUE(WriteFile(kernel, edited).ok());
  auto wrong = ascendc::LoadPackage(dir);
  ASSERT_TRUE(wrong.ok()) << wrong.status().ToString();
  request.candidate = *wrong;
  auto rejected = ValidatePackage(*validator_, cannbot_test::BuiltInOps(), request);
  ASSERT_TRUE(rejected.ok()) << rejected.status().ToString();
  EXPECT_FALSE(rejected->ok()) << rejected->RenderText();
}

// An OpDef attribute none of the op's values fills runs with its default, and the report says
// so instead of letting a wrong number pass as the package's fault.
TEST_F(AscendcPackageTest, AnAttributeTheOpCannotFillIsNamedInTheReport) {
  auto report = Run(Variant("attr", "op_host/add_custom.cpp",
                            {{"this->SetInferShape",
                              "this->Attr(\"negative_slope\").AttrType(OPTIONAL).Float(0.01);\n"
                              "    this->SetInferShape"}}));
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_TRUE(report->ok()) << report->RenderText();  // add ignores it: still correct
  ASSERT_EQ(report->notes.size(), 1u);
  EXPECT_NE(report->notes[0].find("attribute negative_slope of the OpDef: op add has no size or "
                                  "scalar of that name"),
            std::string::npos)
      << report->notes[0];
  EXPECT_NE(report->RenderText().find("note: attribute negative_slope"), std::string::npos);
}

TEST_F(AscendcPackageTest, ATilingKeyTheKernelHandlesRunsAndOneItDoesNotIsNamed) {
  const std::string branch = "GET_TILING_DATA(tilingData, tiling);\n  if (!TILING_KEY_IS(1) && !TILING_KEY_IS(2)) return;";
  const std::string handled = Variant("key2", "op_host/add_custom.cpp",
                                      {{"context->SetBlockDim(blockDim);",
                                        "context->SetBlockDim(blockDim);\n  context->SetTilingKey(2);"}});
  {
    const std::string kernel = handled + "/op_kernel/add_custom.cpp";
    std::string text = *ReadFile(kernel);
    text.replace(text.find("GET_TILING_DATA(tilingData, tiling);"), 36, branch);
    ASSERT_TRUE(WriteFile(kernel, text).ok());
  }
  auto good = Run(handled);
  ASSERT_TRUE(good.ok()) << good.status().ToString();
  EXPECT_TRUE(good->ok()) << good->RenderText();

  const std::string unhandled = dir_->File("key3");
  fs::copy(handled, unhandled, fs::copy_options::recursive);
  const std::string host = unhandled + "/op_host/add_custom.cpp";
  std::string text = *ReadFile(host);
  text.replace(text.find("SetTilingKey(2)"), 15, "SetTilingKey(3)");
  ASSERT_TRUE(WriteFile(host, text).ok());
  auto bad = Run(unhandled);
  ASSERT_TRUE(bad.ok()) << bad.status().ToString();
  EXPECT_NE(Failure(*bad).find("the tiling chose key 3 but the kernel handles only 1, 2"),
            std::string::npos)
      << bad->RenderText();
}

// A kernel that calls Ascend C APIs the emulation lacks hears their names and lines, once
// each, and that they are missing from the emulation, not a wall of template errors.
TEST_F(AscendcPackageTest, AnApiTheEmulationLacksIsNamedWithItsLine) {
  const std::string kernel_call = "Add(z, x, y, static_cast<int32_t>(n));";
  auto report = Run(Variant("unemulated", "op_kernel/add_custom.cpp",
                            {{kernel_call, kernel_call + "\n      SimpleSoftMax<T>(z, x, y, n);\n"
                                                         "      SimpleSoftMax<T>(z, x, y, n);\n"
                                                         "      DumpAccChkPoint(z, 1, 0, n);"}}));
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  const std::string reason = Failure(*report);
  EXPECT_NE(reason.find("not declared: SimpleSoftMax (op_kernel/add_custom.cpp:"),
            std::string::npos)
      << reason;
  EXPECT_NE(reason.find(", DumpAccChkPoint (op_kernel/add_custom.cpp:"), std::string::npos)
      << reason;
  EXPECT_EQ(reason.find("SimpleSoftMax", reason.find("SimpleSoftMax") + 1), std::string::npos)
      << reason;
  EXPECT_NE(reason.find("cannbot's CPU emulation does not have them yet"), std::string::npos)
      << reason;
}

struct BrokenTiling {
  const char* name;
  const char* from;
  const char* to;
  const char* reason;
};

class BrokenTilingTest : public AscendcPackageTest,
                         public ::testing::WithParamInterface<BrokenTiling> {};

TEST_P(BrokenTilingTest, IsRejectedWithTheCause) {
  const BrokenTiling& b = GetParam();
  auto report = Run(Variant(b.name, "op_host/add_custom.cpp", {{b.from, b.to}}));
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_FALSE(report->ok());
  EXPECT_NE(Failure(*report).find(b.reason), std::string::npos) << report->RenderText();
}

INSTANTIATE_TEST_SUITE_P(
    Packages, BrokenTilingTest,
    ::testing::Values(
        BrokenTiling{"fails", "  return ge::GRAPH_SUCCESS;\n}\n}  // namespace optiling",
                     "  return ge::GRAPH_FAILED;\n}\n}  // namespace optiling",
                     "the tiling function of AddCustom returned"},
        BrokenTiling{"block_dim_zero", "context->SetBlockDim(blockDim);",
                     "context->SetBlockDim(0);", "block dim of 0"},
        BrokenTiling{"overflow", "  size_t* workspace",
                     "  std::memset(context->GetRawTilingData()->GetData(), 1,\n"
                     "              context->GetRawTilingData()->GetCapacity() + 8);\n"
                     "  size_t* workspace",
                     "wrote past the 2048-byte tiling buffer"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST_F(AscendcPackageTest, APackageThatCannotBeReadIsRefusedNamingTheCause) {
  struct Case {
    std::string dir;
    std::string reason;
  };
  const std::string no_kernel = Variant("no_kernel", "op_host/add_custom.cpp", {});
  fs::remove_all(no_kernel + "/op_kernel");
  const std::vector<Case> cases = {
      {no_kernel, "has no op_kernel/ directory"},
      {Variant("no_op_add", "op_host/add_custom.cpp", {{"OP_ADD(AddCustom);", ""}}),
       "defines no operator: no OP_ADD"},
      {Variant("one_input", "op_host/add_custom.cpp",
               {{"this->Input(\"y\")", "this->Output(\"w\")"}}),
       "declares 1 inputs (x) and 2 outputs (w, z), but op add has 2 and 1"},
      {Variant("int_param", "op_kernel/add_custom.cpp",
               {{"GM_ADDR workspace, GM_ADDR tiling) {", "int workspace, GM_ADDR tiling) {"}}),
       "has a parameter that is not GM_ADDR (\"int workspace\")"},
      {Variant("unknown_header", "op_host/add_custom.cpp",
               {{"#include \"register/op_def_registry.h\"",
                 "#include \"register/op_def_registry.h\"\n#include \"lib/matmul_intf.h\""}}),
       "lib/matmul_intf.h"},
  };
  for (const Case& c : cases) {
    auto report = Run(c.dir);
    ASSERT_FALSE(report.ok()) << c.dir;
    EXPECT_NE(report.status().message().find(c.reason), std::string::npos)
        << report.status().ToString();
  }
}

// Host files that each define the same namespace-scope names (a constant, a static
// InferShape), legal as separate translation units, build together: each keeps its own.
TEST_F(AscendcPackageTest, HostFilesDefiningTheSameNamesEachKeepTheirOwn) {
  const std::string dir = Variant("shared_names", "op_host/add_custom.cpp", {});
  ASSERT_TRUE(WriteFile(dir + "/op_host/add_custom_infershape.cpp",
                        "#include \"register/op_def_registry.h\"\n"
                        "namespace optiling { namespace { constexpr uint32_t kBufferNum = 0; } }\n"
                        "namespace ge {\nstatic graphStatus InferShape(gert::InferShapeContext*) "
                        "{ return GRAPH_FAILED; }\n}\n")
                  .ok());
  auto report = Run(dir);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_TRUE(report->ok()) << report->RenderText();
}

// Debug printing is how real operators are written: the tiling function's printf (std:: too)
// and the kernel's AscendC::printf and DumpTensor are tagged and shown, never held against the
// package (an untagged line would be "the kernel printed ...", a failure).
TEST_F(AscendcPackageTest, PrintingInTheTilingAndTheKernelIsTolerated) {
  const std::string dir =
      Variant("printing", "op_host/add_custom.cpp",
              {{"  context->SetBlockDim(blockDim);",
                "  printf(\"blockDim = %u\\n\", static_cast<unsigned>(blockDim));\n"
                "  std::printf(\"tiling done\\n\");\n  std::cout << \"key \" << 1 << std::endl;\n"
                "  context->SetBlockDim(blockDim);"}});
  const std::string kernel = dir + "/op_kernel/add_custom.cpp";
  std::string text = *ReadFile(kernel);
  const std::string process = "  __aicore__ inline void Process() {\n";
  ASSERT_NE(text.find(process), std::string::npos);
  text.replace(text.find(process), process.size(),
               process + "    AscendC::printf(\"block %d of %d\\n\", static_cast<int>(GetBlockIdx()), "
                         "static_cast<int>(GetBlockNum()));\n");
  ASSERT_TRUE(WriteFile(kernel, text).ok());
  auto report = Run(dir);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_TRUE(report->ok()) << report->RenderText();
  // The command a user runs, with the static source check on: the generated host include that
  // tags the printing uses no name the check reserves.
  SpawnOptions cli;
  cli.argv = {std::string(CANNBOT_BUILD_DIR) + "/cannbot", "validate", "--target", "ascendc",
              "--op", "add", "--package", dir, "--seed", "3",
              "--db=" + std::string(CANNBOT_BUILD_DIR) + "/tests/integration-store.db"};
  auto run = RunCommand(cli, std::chrono::seconds(120));
  ASSERT_TRUE(run.ok());
  EXPECT_TRUE(run->exit.Success()) << run->output;
}

// suggest --package: the model (a scripted OpenAI-compatible server) answers the slow package
// with the fast one's kernel and tiling; the answer is validated against the package as it is
// and comes back as a diff. An answer without files and one that breaks the numbers are named.
TEST_F(AscendcPackageTest, SuggestionsForAPackageAreValidatedAgainstIt) {
  const std::string slow = Variant("slow", "op_host/add_custom.cpp", {}, kSlow);
  const std::string fast = Variant("fast", "op_host/add_custom.cpp", {});
  auto answer_file = [&](const std::string& path) {
    return "File: " + path + "\n```cpp\n" + *ReadFile(fast + "/" + path) + "```\n";
  };
  std::string broken = *ReadFile(fast + "/op_kernel/add_custom.cpp");
  broken.replace(broken.find("Add(z, x, y,"), 12, "Sub(z, x, y,");
  testing::FakeLlmServer server;
  server.Push(testing::Chat(
      {"I doubled the buffers.\n\n" + answer_file("op_host/add_custom.cpp") +
           answer_file("op_kernel/add_custom.cpp"),
       "Here is a faster kernel:\n```cpp\nint x;\n```\n",
       "File: op_kernel/add_custom.cpp\n```cpp\n" + broken + "```\n"}));
  PackageSuggestRequest request;
  request.op = "add";
  auto package = ascendc::LoadPackage(slow);
  ASSERT_TRUE(package.ok()) << package.status().ToString();
  request.package = *package;
  request.samples = 3;
  request.rounds = 0;
  request.seed = 5;
  auto result = SuggestWith(server, request);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  ASSERT_EQ(result->attempts.size(), 3u);
  ASSERT_TRUE(result->found()) << result->check.RenderText();
  const PackageAttempt& best = result->attempts[static_cast<size_t>(result->best)];
  EXPECT_GT(best.speedup, 10.0) << best.reason;
  EXPECT_EQ(best.changes.size(), 2u);
  EXPECT_NE(result->diff.find("+++ b/op_kernel/add_custom.cpp"), std::string::npos) << result->diff;
  EXPECT_NE(result->attempts[1].reason.find("no `File: <path>` line"), std::string::npos)
      << result->attempts[1].reason;
  EXPECT_FALSE(result->attempts[2].accepted);
  EXPECT_NE(result->attempts[2].reason.find("x=float32 y=float32 z=float32"), std::string::npos)
      << result->attempts[2].reason;
  // The prompt carried the package's files, its combinations and the Ascend C skill.
  ASSERT_FALSE(server.requests().empty());
  const std::string prompt = server.requests().front();
  EXPECT_NE(prompt.find("File: op_kernel/add_custom.cpp"), std::string::npos);
  EXPECT_NE(prompt.find("x=float32 y=float32 z=float32"), std::string::npos);
  EXPECT_NE(prompt.find("What good Ascend C kernels do"), std::string::npos);
}

TEST(ExtractPackageFilesTest, ReadsEveryFileHeaderBeforeAFence) {
  const ascendc::PackageFiles files = ExtractPackageFiles(
      "Prose.\n**File:** `op_kernel/a.cpp`\n```cpp\nint a;\n```\n// File: op_host/b.h\n"
      "~~~\n```\nint b;\n```\n```cpp\nnot a file\n```\n");
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].first, "op_kernel/a.cpp");
  EXPECT_EQ(files[0].second, "int a;\n");
  EXPECT_EQ(files[1].first, "op_host/b.h");
}

}  // namespace
}  // namespace cannbot::engine
