// Tiling template programming: the template-argument encoding the emulation compiles on both
// sides (targets/ascendc/host/ascendc/host_api/tiling/template_argument.h, evaluated here at
// compile time), the template header of a kernel entry (ascendc/template_entry.h), and how a
// package with a template entry is read (ascendc/package.h).
#include <gtest/gtest.h>

#include <set>

#include "cannbot/ascendc/package.h"
#include "cannbot/ascendc/template_entry.h"
#include "../../targets/ascendc/host/ascendc/host_api/tiling/template_argument.h"

namespace {

// A declaration with each kind of parameter, as an operator's tiling_key.h writes one.
ASCENDC_TPL_ARGS_DECL(Probe,
    ASCENDC_TPL_DATATYPE_DECL(D_T_X, C_DT_FLOAT, C_DT_FLOAT16, ASCENDC_TPL_INPUT(0)),
    ASCENDC_TPL_UINT_DECL(TILE_NUM, ASCENDC_TPL_8_BW, ASCENDC_TPL_UI_MIX, 2, 0, 2, 3, 5, 10, 12),
    ASCENDC_TPL_BOOL_DECL(IS_SPLIT, 0, 1), );
ASCENDC_TPL_SEL(
    ASCENDC_TPL_ARGS_SEL(ASCENDC_TPL_KERNEL_TYPE_SEL(ASCENDC_TPL_AIV_ONLY),
                         ASCENDC_TPL_DATATYPE_SEL(D_T_X, C_DT_FLOAT16),
                         ASCENDC_TPL_UINT_SEL(TILE_NUM, ASCENDC_TPL_UI_LIST, 1, 12),
                         ASCENDC_TPL_BOOL_SEL(IS_SPLIT, 0, 1)),
    ASCENDC_TPL_ARGS_SEL(ASCENDC_TPL_DATATYPE_SEL(D_T_X, C_DT_FLOAT),
                         ASCENDC_TPL_UINT_SEL(TILE_NUM, ASCENDC_TPL_UI_RANGE, 1, 4, 5)), );

// Mixed mode: two ranges, then listed values; the tensor tag is not a value.
static_assert(cannbot_tpl_declared.count == 3);
static_assert(cannbot_tpl_declared.params[0].count == 2);
static_assert(cannbot_tpl_declared.params[1].count == 8);  // 0 1 2 3 4 5 10 12
static_assert(cannbot_tpl_declared.params[1].values[6] == 10);
// Selection 1: 1 dtype x 2 tile counts x 2 bools; selection 2: 1 x {4, 5} x every bool (2).
static_assert(::cannbot_tpl::ComboCount(cannbot_tpl_declared, cannbot_tpl_selected) == 8);

TEST(TemplateArgumentTest, EncodesEachValuesPositionInItsDeclaredWidthLowestFirst) {
  // D_T_X = float16 is position 1 (8 bits), TILE_NUM = 12 position 7 (8 bits), IS_SPLIT 1.
  EXPECT_EQ(GET_TPL_TILING_KEY(C_DT_FLOAT16, 12, 1), 1u | (7u << 8) | (1u << 16));
  EXPECT_EQ(GET_TPL_TILING_KEY(C_DT_FLOAT, 0, 0), 0u);
  // A value the declaration does not list, or a missing one, is no key.
  EXPECT_EQ(GET_TPL_TILING_KEY(C_DT_BF16, 0, 0), ::cannbot_tpl::kBadKey);
  EXPECT_EQ(GET_TPL_TILING_KEY(C_DT_FLOAT, 7, 0), ::cannbot_tpl::kBadKey);
  EXPECT_EQ(GET_TPL_TILING_KEY(C_DT_FLOAT, 0), ::cannbot_tpl::kBadKey);
}

TEST(TemplateArgumentTest, EnumeratesEverySelectedCombinationWithTheKeyTheHostEncodes) {
  std::set<uint64_t> keys;
  for (size_t i = 0; i < 8; ++i) {
    const ::cannbot_tpl::Combo c = ::cannbot_tpl::ComboAt(cannbot_tpl_declared, cannbot_tpl_selected, i);
    const uint64_t key = ::cannbot_tpl::KeyOf(cannbot_tpl_declared, c);
    EXPECT_EQ(key, GET_TPL_TILING_KEY(c.v[0], c.v[1], c.v[2])) << i;
    keys.insert(key);
    if (c.v[0] == C_DT_FLOAT16) {
      EXPECT_TRUE(c.v[1] == 1 || c.v[1] == 12) << c.v[1];
    } else {
      EXPECT_EQ(c.v[0], static_cast<uint64_t>(C_DT_FLOAT));
      EXPECT_TRUE(c.v[1] == 4 || c.v[1] == 5) << c.v[1];
    }
  }
  EXPECT_EQ(keys.size(), 8u);  // no two combinations share a key
}

}  // namespace

namespace cannbot::ascendc {
namespace {

TEST(TemplateEntryTest, ReadsValueAndTypeParameters) {
  auto params = ParseTemplateParams(" typename D_T_X, uint32_t schMode, bool IS_SPLIT = false ");
  ASSERT_TRUE(params.ok()) << params.status().ToString();
  ASSERT_EQ(params->size(), 3u);
  EXPECT_TRUE((*params)[0].IsType());
  EXPECT_EQ((*params)[0].name, "D_T_X");
  EXPECT_EQ((*params)[1].type, "uint32_t");
  EXPECT_EQ((*params)[1].name, "schMode");
  EXPECT_EQ((*params)[2].type, "bool");
  for (const char* bad : {"typename... Ts", "template <typename> class C", "uint32_t"}) {
    EXPECT_FALSE(ParseTemplateParams(bad).ok()) << bad;
  }
  EXPECT_EQ(TemplateParamText("template <typename T, int N = sizeof(T)> void f", 9),
            "typename T, int N = sizeof(T)");
}

TEST(TemplateEntryTest, APackageWithATemplateEntryIsReadWithItsDeclarationAndRegistrations) {
  const std::string entry =
      "template <uint32_t schMode>\n__global__ __aicore__ void my_op(GM_ADDR x, GM_ADDR y, "
      "GM_ADDR workspace, GM_ADDR tiling) {}\n";
  PackageFiles files = {
      {"op_host/my_op_tiling.cpp", "IMPL_OP_OPTILING(MyOp).Tiling(F);\n"},
      {"op_host/my_op_infershape.cpp", "IMPL_OP_INFERSHAPE(MyOp).InferShape(G);\n"},
      {"op_host/op_api/aclnn_my_op.cpp", "int unused;\n"},
      {"op_kernel/my_op_tiling_key.h", "ASCENDC_TPL_ARGS_DECL(MyOp, ASCENDC_TPL_UINT_DECL(schMode, "
                                       "1, ASCENDC_TPL_UI_LIST, 0, 1));\n"},
      {"op_kernel/helpers.h",
       "template <typename T> __aicore__ void Helper(GM_ADDR x) {}\n"},  // not an entry
      {"op_kernel/my_op.cpp", entry}};
  auto p = PackageFromFiles("pkg", files);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->entry, "my_op");
  EXPECT_EQ(p->entry_arity, 4);
  ASSERT_EQ(p->entry_template.size(), 1u);
  EXPECT_EQ(p->entry_template[0].name, "schMode");
  EXPECT_EQ(p->template_header, "op_kernel/my_op_tiling_key.h");
  EXPECT_EQ(p->impl_registrations, (std::vector<std::string>{"INFERSHAPE", "OPTILING"}));
  // op_api/ is the aclnn interface, not host code cannbot builds.
  EXPECT_EQ(p->host_units, (std::vector<std::string>{"op_host/my_op_infershape.cpp",
                                                     "op_host/my_op_tiling.cpp"}));

  files.erase(files.begin() + 3);  // the declaration
  auto undeclared = PackageFromFiles("pkg", files);
  ASSERT_FALSE(undeclared.ok());
  EXPECT_NE(undeclared.status().message().find("no op_kernel header declares its parameters "
                                               "(ASCENDC_TPL_ARGS_DECL)"),
            std::string::npos)
      << undeclared.status().ToString();
}

TEST(TemplateEntryTest, TheLauncherIsMacrosNamingEveryParameter) {
  const std::string source = TemplateLauncherSource(
      "my_op", {{"", "D_T_X"}, {"uint32_t", "schMode"}}, 3, "my_op_tpl_launch");
  EXPECT_NE(source.find("#define CANNBOT_TPL_INSTANCE(c) my_op<CANNBOT_TPL_TYPE(c, D_T_X), "
                        "CANNBOT_TPL_VALUE(c, uint32_t, schMode)>"),
            std::string::npos)
      << source;
  EXPECT_NE(source.find("#define CANNBOT_TPL_PARAMS GM_ADDR a0, GM_ADDR a1, GM_ADDR a2"),
            std::string::npos);
  EXPECT_NE(source.find("#define CANNBOT_TPL_NAMES \"D_T_X\", \"schMode\""), std::string::npos);
  EXPECT_NE(source.find("#include \"cannbot_tpl_dispatch.h\""), std::string::npos);
}

}  // namespace
}  // namespace cannbot::ascendc
