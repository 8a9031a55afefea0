// Host units included as one translation unit (ascendc/host_units.h): the namespace-scope names
// each defines are found (not locals, members, declarations or preprocessor lines), and only
// names two units define are renamed, per unit.
#include <gtest/gtest.h>

#include "cannbot/ascendc/host_units.h"
#include "cannbot/ascendc/package.h"

namespace cannbot::ascendc {
namespace {

using Names = std::set<std::string>;

TEST(HostUnitsTest, FindsWhatAUnitDefinesAtNamespaceScope) {
  const std::string code = R"(
#include "tiling.h"
#define LOCAL_MACRO 3
namespace optiling {
constexpr uint64_t BLOCK_SIZE = 32;
static const std::vector<int> LIST{1, 2};
const int64_t TABLE[2] = {1, 2};
using Shape4 = std::array<int64_t, 4>;
struct CompileInfo { int cores = 0; };
enum class Mode { kA, kB };
template <class T> T AlignUp(T a, T b) { T local = 1; return (a + b - local) / b * b; }
static ge::graphStatus TilingFunc(gert::TilingContext* context) {
  const uint32_t n = 4;
  auto s = "{;";
  return ge::GRAPH_SUCCESS;
}
ge::graphStatus Declared(gert::TilingContext* context);
ge::graphStatus Foo::Member() { return 0; }
bool operator==(const A& a, const A& b) { return true; }
IMPL_OP_OPTILING(AddCustom).Tiling(TilingFunc);
}  // namespace optiling
namespace {
int Hidden() { return 1; }
}
extern "C" {
int cfunc = 0;
}
extern "C" int Entry() { int inner = 2; return inner; }
)";
  EXPECT_EQ(NamespaceScopeDefinitions(code),
            (Names{"AlignUp", "BLOCK_SIZE", "CompileInfo", "Entry", "Hidden", "LIST", "Mode",
                   "Shape4", "TABLE", "TilingFunc", "cfunc"}));
}

TEST(HostUnitsTest, OnlyNamesTwoUnitsDefineAreRenamedExceptThoseKept) {
  const std::vector<std::string> units = {
      "constexpr int BLOCK_SIZE = 32;\nconstexpr int ONLY_A = 1;\nconstexpr int PRIO = 1;\n",
      "namespace optiling { constexpr int BLOCK_SIZE = 16; constexpr int PRIO = 2; }\n",
      "int UsesIt() { return BLOCK_SIZE; }\n"};
  const auto renamed = NamesToRenamePerUnit(units, {"PRIO"});
  ASSERT_EQ(renamed.size(), 3u);
  EXPECT_EQ(renamed[0], (std::vector<std::string>{"BLOCK_SIZE"}));
  EXPECT_EQ(renamed[1], (std::vector<std::string>{"BLOCK_SIZE"}));
  EXPECT_TRUE(renamed[2].empty());
}

// The host include renames a shared name around each unit that defines it, and only there.
TEST(HostUnitsTest, TheHostIncludeGivesEachUnitItsOwnSharedNames) {
  const PackageFiles files = {
      {"op_host/a_tiling.cpp", "namespace optiling {\nconstexpr int BLOCK_SIZE = 32;\n}\n"},
      {"op_host/b_tiling.cpp", "namespace optiling {\nconstexpr int BLOCK_SIZE = 16;\n}\n"},
      {"op_host/op_def.cpp", "OP_ADD(MyOp);\n"},
      {"op_kernel/my_op.cpp", "extern \"C\" __global__ __aicore__ void my_op(GM_ADDR x) {}\n"}};
  auto p = PackageFromFiles("package", files);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  std::string host;
  for (const auto& [name, text] : DescriberFiles(*p)) {
    if (name == "cannbot_package_host.inc") host = text;
  }
  EXPECT_NE(host.find("#define BLOCK_SIZE BLOCK_SIZE_op_host_unit1\n"
                      "#include \"op_host/a_tiling.cpp\"\n#undef BLOCK_SIZE\n"
                      "#define BLOCK_SIZE BLOCK_SIZE_op_host_unit2\n"
                      "#include \"op_host/b_tiling.cpp\"\n#undef BLOCK_SIZE\n"
                      "#include \"op_host/op_def.cpp\"\n"),
            std::string::npos)
      << host;
}

}  // namespace
}  // namespace cannbot::ascendc
