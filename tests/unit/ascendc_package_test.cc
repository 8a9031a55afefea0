// Reading an operator package (ascendc/package.h): the entry point, the registered tiling
// struct, the OpDef the describer prints, dtype combinations, and the generated build files.
#include <gtest/gtest.h>

#include <filesystem>

#include "builtin_ops.h"
#include "cannbot/ascendc/package.h"
#include "cannbot/util/fs.h"

namespace cannbot::ascendc {
namespace {

namespace fs = std::filesystem;

class PackageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto dir = TempDir::Create("cannbot-package-unit");
    ASSERT_TRUE(dir.ok());
    dir_ = std::make_unique<TempDir>(std::move(dir).value());
    fs::create_directories(dir_->File("op_host"));
    fs::create_directories(dir_->File("op_kernel"));
    Write("op_host/op_tiling.h",
          "#include \"register/tilingdata_base.h\"\nnamespace optiling {\n"
          "BEGIN_TILING_DATA_DEF(MyTiling)\nTILING_DATA_FIELD_DEF(uint32_t, n);\n"
          "END_TILING_DATA_DEF;\nREGISTER_TILING_DATA_CLASS(MyOp, MyTiling)\n}\n");
    Write("op_host/my_op.cpp", "#include \"op_tiling.h\"\n// OP_ADD(MyOp) below\n");
    Write("op_kernel/my_op.cpp",
          "#include \"kernel_operator.h\"\n"
          "// extern \"C\" __global__ __aicore__ void old_entry(GM_ADDR x) {}\n"
          "extern \"C\" __global__ __aicore__ void my_op(GM_ADDR x, GM_ADDR y,\n"
          "                                            GM_ADDR workspace, GM_ADDR tiling) {}\n");
  }

  void Write(const std::string& name, const std::string& text) {
    ASSERT_TRUE(WriteFile(dir_->File(name), text).ok());
  }

  std::unique_ptr<TempDir> dir_;
};

TEST_F(PackageTest, FindsTheEntryItsArityTheHostCodeAndTheTilingStruct) {
  auto p = LoadPackage(dir_->path());
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->entry, "my_op");  // the commented-out entry is not one
  EXPECT_EQ(p->entry_arity, 4);
  EXPECT_EQ(p->kernel_file, "op_kernel/my_op.cpp");
  EXPECT_EQ(p->host_units, std::vector<std::string>{"op_host/my_op.cpp"});
  EXPECT_EQ(p->tiling_headers, std::vector<std::string>{"op_host/op_tiling.h"});
  EXPECT_EQ(p->TilingType(), "optiling::MyTiling");
  EXPECT_EQ(p->files.size(), 3u);
}

// A package may register a struct per tiling key (REGISTER_TILING_DATA_CLASS(MyOp_5, ...)) and
// read it with GET_TILING_DATA_WITH_STRUCT: the kernel sees each without optiling::.
TEST_F(PackageTest, EveryRegisteredTilingStructIsVisibleToTheKernel) {
  Write("op_host/op_tiling_5.h",
        "namespace optiling {\nBEGIN_TILING_DATA_DEF(BroadcastTiling)\n"
        "TILING_DATA_FIELD_DEF(uint32_t, n);\nEND_TILING_DATA_DEF;\n"
        "REGISTER_TILING_DATA_CLASS(MyOp_5, BroadcastTiling)\n}\n");
  auto p = LoadPackage(dir_->path());
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->TilingType(), "optiling::MyTiling");
  EXPECT_EQ(p->tiling_structs, (std::vector<std::string>{"optiling::MyTiling",
                                                         "optiling::BroadcastTiling"}));
  OpDefinition def;
  def.inputs = {{"x", {"float32"}}};
  def.outputs = {{"y", {"float32"}}};
  const PackageBuild build = MakePackageBuild(*p, def, Combinations(def)[0]);
  std::string prelude;
  for (const auto& [name, text] : build.files) {
    if (name == "cannbot_package_kernel.h") prelude = text;
  }
  EXPECT_NE(prelude.find("using optiling::MyTiling;\nusing optiling::BroadcastTiling;"),
            std::string::npos)
      << prelude;
}

// Tiling classes registered in either repository's spelling are listed, in order, for the
// generated host include; a header defining the macro itself is not a registration.
TEST_F(PackageTest, TilingClassRegistrationsAreListedForTheHostInclude) {
  Write("op_host/my_tiling_classes.cpp",
        "REGISTER_TILING_TEMPLATE(\"MyOp\", SmallTiling, 100);\n"
        "REGISTER_OPS_TILING_TEMPLATE(MyOp, optiling::LargeTiling, kLarge + 1);\n"
        "// REGISTER_TILING_TEMPLATE(\"MyOp\", Commented, 5);\n");
  Write("op_host/registry.h",
        "  #define REGISTER_TILING_TEMPLATE(op_type, class_name, priority) nothing\n");
  auto p = LoadPackage(dir_->path());
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  ASSERT_EQ(p->tiling_templates.size(), 2u);
  EXPECT_EQ(p->tiling_templates[0].op_type, "MyOp");
  EXPECT_EQ(p->tiling_templates[0].class_name, "SmallTiling");
  EXPECT_EQ(p->tiling_templates[1].class_name, "optiling::LargeTiling");
  EXPECT_EQ(p->tiling_templates[1].priority, "kLarge + 1");
  std::string host;
  for (const auto& [name, text] : DescriberFiles(*p)) {
    if (name == "cannbot_package_host.inc") host = text;
  }
  EXPECT_NE(host.find("CANNBOT_TILING_TEMPLATE(\"MyOp\", SmallTiling, 100) \\\n"
                      "  CANNBOT_TILING_TEMPLATE(\"MyOp\", optiling::LargeTiling, kLarge + 1)\n"),
            std::string::npos)
      << host;
}

// The newer repositories keep a kernel per SoC: the default file, another that the Ascend950's
// config names (opFile.value), and architecture folders for the host code. The emulated
// SoC's (Ascend910B: the default kernel, op_host/arch22/) are the ones read.
TEST(PackageFromFilesTest, AKernelPerSocReadsTheEmulatedSocsOnly) {
  const PackageFiles files = {
      {"op_host/sig_def.cpp",
       "OpAICoreConfig c; c.ExtendCfgInfo(\"opFile.value\", \"sig_apt\");\n"
       "this->AICore().AddConfig(\"ascend910b\"); this->AICore().AddConfig(\"ascend950\", c);"},
      {"op_host/arch22/sig_tiling.cpp", "IMPL_OP_OPTILING(Sig).Tiling(F);"},
      {"op_host/arch35/sig_tiling_arch35.cpp", "IMPL_OP_OPTILING(Sig).Tiling(G);"},
      {"op_kernel/arch35/sig_f16.h", "extern \"C\" __global__ __aicore__ void h(GM_ADDR x) {}"},
      {"op_kernel/sig.cpp", "extern \"C\" __global__ __aicore__ void sig(GM_ADDR x, GM_ADDR y) {}"},
      {"op_kernel/sig_apt.cpp",
       "extern \"C\" __global__ __aicore__ void sig(GM_ADDR x, GM_ADDR y) {}"}};
  auto p = PackageFromFiles("package", files);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->kernel_file, "op_kernel/sig.cpp");
  EXPECT_EQ(p->host_units, (std::vector<std::string>{"op_host/arch22/sig_tiling.cpp",
                                                     "op_host/sig_def.cpp"}));
}

TEST_F(PackageTest, RefusesAPackageWithTwoEntriesOrNone) {
  Write("op_kernel/second.cpp",
        "extern \"C\" __global__ __aicore__ void other(GM_ADDR x, GM_ADDR y) {}\n");
  auto two = LoadPackage(dir_->path());
  ASSERT_FALSE(two.ok());
  EXPECT_NE(two.status().message().find("several kernel entry points (my_op in "
                                        "op_kernel/my_op.cpp, other in op_kernel/second.cpp)"),
            std::string::npos)
      << two.status().ToString();
  fs::remove(dir_->File("op_kernel/second.cpp"));
  Write("op_kernel/my_op.cpp", "void helper() {}\n");
  auto none = LoadPackage(dir_->path());
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("no kernel entry point in op_kernel/"), std::string::npos);
}

TEST_F(PackageTest, RefusesAPackageWithoutHostCode) {
  fs::remove(dir_->File("op_host/my_op.cpp"));
  auto p = LoadPackage(dir_->path());
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("no .cpp file in op_host/"), std::string::npos);
}

TEST(PackageFromFilesTest, TakesARequestsFilesAndRefusesPathsOutsideThePackage) {
  const PackageFiles good = {
      {"op_kernel/k.cpp", "extern \"C\" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR y) {}"},
      {"op_host/k.cpp", "// OP_ADD"}};
  auto p = PackageFromFiles("package", good);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->entry, "k");
  EXPECT_EQ(p->files.front().first, "op_host/k.cpp");  // sorted
  for (const char* bad : {"../op_host/x.cpp", "/etc/x.cpp", "op_host/../../x.cpp", "other/x.cpp",
                          "op_host/x.txt"}) {
    PackageFiles files = good;
    files.push_back({bad, "int x;"});
    auto refused = PackageFromFiles("package", files);
    ASSERT_FALSE(refused.ok()) << bad;
    EXPECT_NE(refused.status().message().find("is not a source file"), std::string::npos)
        << refused.status().ToString();
  }
  auto no_host = PackageFromFiles("package", {good[0]});
  ASSERT_FALSE(no_host.ok());
  EXPECT_NE(no_host.status().message().find("has no op_host/ directory"), std::string::npos);
}

TEST(OpDefinitionTest, ReadsTheDescriberLineAndExpandsDataTypeLists) {
  const std::string printed =
      "noise\ncannbot-opdef: {\"type\":\"MyOp\",\"inputs\":[{\"name\":\"x\",\"list\":false,"
      "\"dtypes\":[1,0,27]},{\"name\":\"scale\",\"list\":true,\"dtypes\":[0]}],\"outputs\":"
      "[{\"name\":\"y\",\"list\":false,\"dtypes\":[1,0,27]}],\"attrs\":[\"eps\"],\"tiling\":true,"
      "\"socs\":[\"ascend910b\"]}\n";
  auto def = ParseOpDefinition(printed, "pkg");
  ASSERT_TRUE(def.ok()) << def.status().ToString();
  EXPECT_EQ(def->type, "MyOp");
  EXPECT_EQ(def->Combinations(), 3u);
  EXPECT_EQ(def->inputs[1].dtypes, (std::vector<std::string>{"float32", "float32", "float32"}));
  EXPECT_EQ(def->attrs, std::vector<std::string>{"eps"});
  const std::vector<DtypeCombo> combos = Combinations(*def);
  ASSERT_EQ(combos.size(), 3u);
  EXPECT_EQ(combos[0].Describe(), "x=float16 scale=float32 y=float16");
  EXPECT_EQ(combos[0].Uniform(), "");
  EXPECT_EQ(combos[1].Uniform(), "float32");
  EXPECT_EQ(combos[2].dtypes[0].second, "bfloat16");
  // Complex tensors are named (their combinations are skipped, not the whole OpDef refused).
  auto complex = ParseOpDefinition(
      "cannbot-opdef: {\"type\":\"Abs\",\"inputs\":[{\"name\":\"x\",\"dtypes\":[0,16,17]}],"
      "\"outputs\":[{\"name\":\"y\",\"dtypes\":[0,16,17]}]}\n", "pkg");
  ASSERT_TRUE(complex.ok()) << complex.status().ToString();
  EXPECT_EQ(complex->inputs[0].dtypes,
            (std::vector<std::string>{"float32", "complex64", "complex128"}));
}

TEST(OpDefinitionTest, RefusesListsOfDifferentLengthsAndUnknownTypes) {
  auto uneven = ParseOpDefinition(
      "cannbot-opdef: {\"type\":\"T\",\"inputs\":[{\"name\":\"x\",\"dtypes\":[1,0]}],"
      "\"outputs\":[{\"name\":\"y\",\"dtypes\":[1]}]}\n", "pkg");
  ASSERT_FALSE(uneven.ok());
  EXPECT_NE(uneven.status().message().find("lists 1 data types for y but 2"), std::string::npos);
  auto unknown = ParseOpDefinition(
      "cannbot-opdef: {\"type\":\"T\",\"inputs\":[],\"outputs\":[{\"name\":\"y\",\"dtypes\":[99]}]}\n",
      "pkg");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("ge::DataType 99"), std::string::npos);
  EXPECT_FALSE(ParseOpDefinition("nothing printed", "pkg").ok());
}

TEST_F(PackageTest, ChecksTheOpDefAgainstTheOpAndGeneratesTheBuild) {
  auto p = LoadPackage(dir_->path());
  ASSERT_TRUE(p.ok());
  OpDefinition def;
  def.type = "MyOp";
  def.inputs = {{"x", {"float16"}}};
  def.outputs = {{"y", {"float16"}}};
  const ops::OpSpec* swish = cannbot_test::BuiltInOps().Find("swish");
  const ops::OpSpec* add = cannbot_test::BuiltInOps().Find("add");
  ASSERT_NE(swish, nullptr);
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(CheckAgainstOp(*p, def, *swish), "");
  EXPECT_NE(CheckAgainstOp(*p, def, *add).find("declares 1 inputs (x) and 1 outputs (y), but op "
                                               "add has 2 and 1"),
            std::string::npos);
  p->entry_arity = 5;  // 2 tensors: 2, 3 or 4 GM_ADDR parameters
  EXPECT_NE(CheckAgainstOp(*p, def, *swish).find("takes 5 GM_ADDR parameters"), std::string::npos);
  p->entry_arity = 4;

  const PackageBuild build = MakePackageBuild(*p, def, Combinations(def)[0]);
  EXPECT_NE(build.source.find("#include \"op_kernel/my_op.cpp\""), std::string::npos);
  std::map<std::string, std::string> files(build.files.begin(), build.files.end());
  const std::string& kernel = files["cannbot_package_kernel.h"];
  EXPECT_NE(kernel.find("#define DTYPE_X half"), std::string::npos) << kernel;
  EXPECT_NE(kernel.find("#define DTYPE_Y half"), std::string::npos);
  EXPECT_NE(kernel.find("#include \"op_host/op_tiling.h\""), std::string::npos);
  EXPECT_NE(kernel.find("#define CANNBOT_TILING_TYPE optiling::MyTiling"), std::string::npos);
  EXPECT_NE(files["cannbot_package_host.inc"].find("#include \"op_host/my_op.cpp\""),
            std::string::npos);
  const std::string& entry = files["cannbot_package_entry.h"];
  EXPECT_NE(entry.find("extern \"C\" void my_op(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR);"),
            std::string::npos)
      << entry;
  EXPECT_NE(entry.find("CANNBOT_PACKAGE_TAIL(workspace, tiling) , workspace, tiling"),
            std::string::npos);
  EXPECT_EQ(files.count("op_host/my_op.cpp"), 1u);
}

}  // namespace
}  // namespace cannbot::ascendc
