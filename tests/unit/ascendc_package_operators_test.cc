// A package that defines several operators (ascendc/package_operators.h): the one named runs,
// with its own host unit, kernel entry and tiling registrations; naming none, or one the
// package lacks, is refused with the operators it has.
#include <gtest/gtest.h>

#include "cannbot/ascendc/package.h"
#include "cannbot/ascendc/package_operators.h"

namespace cannbot::ascendc {
namespace {

TEST(KernelEntryNameTest, SnakeCasesTheOpDefTypeAsCannDoes) {
  EXPECT_EQ(KernelEntryName("AddCustom"), "add_custom");
  EXPECT_EQ(KernelEntryName("AddCustomUnalign"), "add_custom_unalign");
  EXPECT_EQ(KernelEntryName("LayerNormV4"), "layer_norm_v4");
  EXPECT_EQ(KernelEntryName("Conv2DBackpropInput"), "conv2d_backprop_input");
  EXPECT_EQ(KernelEntryName("MSELoss"), "mse_loss");
  EXPECT_EQ(KernelEntryName("add_custom"), "add_custom");
}

// A custom operator project with two operators, each with its own tiling struct, and a helper
// unit without an OP_ADD (kept for either).
PackageFiles TwoOperators() {
  const auto host = [](const std::string& type, const std::string& tiling) {
    return "#include \"" + tiling + ".h\"\nnamespace optiling {\nstatic int TilingFunc() "
           "{ return 0; }\n}\nnamespace ops {\nclass " + type + " {};\nOP_ADD(" + type + ");\n}\n";
  };
  const auto tiling = [](const std::string& type, const std::string& name) {
    return "namespace optiling {\nBEGIN_TILING_DATA_DEF(" + name + ")\nEND_TILING_DATA_DEF;\n"
           "REGISTER_TILING_DATA_CLASS(" + type + ", " + name + ")\n}\n";
  };
  const auto kernel = [](const std::string& entry) {
    return "extern \"C\" __global__ __aicore__ void " + entry +
           "(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling) {}\n";
  };
  return {{"op_host/add_custom.cpp", host("AddCustom", "add_tiling")},
          {"op_host/add_tiling.h", tiling("AddCustom", "AddTiling")},
          {"op_host/helpers.cpp", "// OP_ADD(NotThisOne): a comment\nint Helper() { return 1; }\n"},
          {"op_host/scale_custom.cpp", host("ScaleCustom", "scale_tiling")},
          {"op_host/scale_tiling.h", tiling("ScaleCustom_2", "ScaleTiling")},
          {"op_kernel/add_custom.cpp", kernel("add_custom")},
          {"op_kernel/scale_custom.cpp", kernel("scale_custom")}};
}

TEST(PackageOperatorsTest, TheNamedOperatorRunsWithItsOwnHostUnitEntryAndTiling) {
  for (const char* name : {"ScaleCustom", "scale_custom"}) {
    auto p = PackageFromFiles("project", TwoOperators(), name);
    ASSERT_TRUE(p.ok()) << p.status().ToString();
    EXPECT_EQ(p->chosen_operator, "ScaleCustom");
    EXPECT_EQ(p->entry, "scale_custom");
    EXPECT_EQ(p->kernel_file, "op_kernel/scale_custom.cpp");
    EXPECT_EQ(p->host_units,
              (std::vector<std::string>{"op_host/helpers.cpp", "op_host/scale_custom.cpp"}));
    EXPECT_EQ(p->tiling_structs, (std::vector<std::string>{"optiling::ScaleTiling"}));
  }
  auto add = PackageFromFiles("project", TwoOperators(), "AddCustom");
  ASSERT_TRUE(add.ok()) << add.status().ToString();
  EXPECT_EQ(add->entry, "add_custom");
  EXPECT_EQ(add->tiling_structs, (std::vector<std::string>{"optiling::AddTiling"}));
  // Read again with what it chose, an answer's files give the same operator.
  auto again = PackageFromFiles("answer", add->files, add->chosen_operator);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->entry, "add_custom");
}

TEST(PackageOperatorsTest, NamingNoneOrAnotherIsRefusedWithTheOperatorsThereAre) {
  auto none = PackageFromFiles("project", TwoOperators());
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find(
                "defines several operators: AddCustom (kernel add_custom, "
                "op_host/add_custom.cpp), ScaleCustom (kernel scale_custom, "
                "op_host/scale_custom.cpp); cannbot runs one: name it with --operator"),
            std::string::npos)
      << none.status().message();
  auto other = PackageFromFiles("project", TwoOperators(), "MulCustom");
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.status().message().find("defines no operator MulCustom; it defines AddCustom"),
            std::string::npos)
      << other.status().message();
  // The named operator's kernel entry must be there.
  PackageFiles files = TwoOperators();
  files.pop_back();  // op_kernel/scale_custom.cpp
  auto no_entry = PackageFromFiles("project", files, "ScaleCustom");
  ASSERT_FALSE(no_entry.ok());
  EXPECT_NE(no_entry.status().message().find(
                "has no kernel entry scale_custom in op_kernel/ for its operator ScaleCustom"),
            std::string::npos)
      << no_entry.status().message();
}

TEST(PackageOperatorsTest, APackageOfOneOperatorNeedsNoName) {
  PackageFiles files = TwoOperators();
  files.erase(files.begin() + 3);  // op_host/scale_custom.cpp
  auto p = PackageFromFiles("package", files);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->chosen_operator, "");
  EXPECT_EQ(p->entry, "add_custom");  // the entry its one OpDef names, of the two
  EXPECT_TRUE(PackageFromFiles("package", files, "AddCustom").ok());
}

}  // namespace
}  // namespace cannbot::ascendc
