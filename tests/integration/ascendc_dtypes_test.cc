// Operator packages whose OpDef declares integer dtypes, or tensors of different dtypes in one
// combination: each tensor is launched in its own dtype (the launch converts the validator's
// fp32 values, and the reference computes on the converted values), integer outputs are
// compared exactly, and the emulated integer vector math and integer Casts compute as listed
// in docs/ascendc.md.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "builtin_ops.h"
#include "cannbot/ascendc/package.h"
#include "cannbot/engine/package_validation.h"
#include "cannbot/util/fs.h"
#include "integration/package_support.h"
#include "integration/test_support.h"

namespace cannbot::engine {
namespace {

// op add (c = a + b) as a package whose inputs are integers and whose output is float: the
// kernel widens each input tile to half (exact for int8 and int16 of this range), then to
// float, and adds in float. One core, tiles of 2048 elements.
const char* const kMixedTiling = R"(#include "register/tilingdata_base.h"
namespace optiling {
BEGIN_TILING_DATA_DEF(MixedAddTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(MixedAdd, MixedAddTilingData)
}  // namespace optiling
)";

const char* const kMixedHost = R"(#include "mixed_add_tiling.h"
#include "register/op_def_registry.h"
namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context) {
  MixedAddTilingData tiling;
  tiling.set_totalLength(context->GetInputShape(0)->GetStorageShape().GetShapeSize());
  context->SetBlockDim(1);
  tiling.SaveToBuffer(context->GetRawTilingData()->GetData(),
                      context->GetRawTilingData()->GetCapacity());
  context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
  return ge::GRAPH_SUCCESS;
}
}  // namespace optiling
namespace ops {
class MixedAdd : public OpDef {
 public:
  explicit MixedAdd(const char* name) : OpDef(name) {
    this->Input("x").ParamType(REQUIRED).DataType({ge::DT_INT16, ge::DT_INT8})
        .Format({ge::FORMAT_ND, ge::FORMAT_ND});
    this->Input("y").ParamType(REQUIRED).DataType({ge::DT_INT16, ge::DT_INT8})
        .Format({ge::FORMAT_ND, ge::FORMAT_ND});
    this->Output("z").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT})
        .Format({ge::FORMAT_ND, ge::FORMAT_ND});
    this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
  }
};
OP_ADD(MixedAdd);
}  // namespace ops
)";

const char* const kMixedKernel = R"(#include "kernel_operator.h"
using namespace AscendC;
constexpr uint32_t kTile = 2048;

template <typename TIn>
class MixedAddKernel {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t total) {
    total_ = total;
    xGm_.SetGlobalBuffer((__gm__ TIn*)x, total);
    yGm_.SetGlobalBuffer((__gm__ TIn*)y, total);
    zGm_.SetGlobalBuffer((__gm__ float*)z, total);
    pipe_.InitBuffer(inX_, 1, kTile * sizeof(TIn));
    pipe_.InitBuffer(inY_, 1, kTile * sizeof(TIn));
    pipe_.InitBuffer(outZ_, 1, kTile * sizeof(float));
    pipe_.InitBuffer(halves_, 2 * kTile * sizeof(half));
    pipe_.InitBuffer(floats_, kTile * sizeof(float));
  }
  __aicore__ inline void Process() {
    for (uint32_t at = 0; at < total_; at += kTile) {
      const uint32_t n = total_ - at < kTile ? total_ - at : kTile;
      LocalTensor<TIn> x = inX_.AllocTensor<TIn>();
      LocalTensor<TIn> y = inY_.AllocTensor<TIn>();
      const DataCopyExtParams in(1, n * static_cast<uint32_t>(sizeof(TIn)), 0, 0, 0);
      DataCopyPad(x, xGm_[at], in, DataCopyPadExtParams<TIn>(false, 0, 0, 0));
      DataCopyPad(y, yGm_[at], in, DataCopyPadExtParams<TIn>(false, 0, 0, 0));
      inX_.EnQue(x);
      inY_.EnQue(y);
      x = inX_.DeQue<TIn>();
      y = inY_.DeQue<TIn>();
      LocalTensor<half> hx = halves_.Get<half>();
      LocalTensor<half> hy = hx[kTile];
      Cast(hx, x, RoundMode::CAST_NONE, n);
      Cast(hy, y, RoundMode::CAST_NONE, n);
      LocalTensor<float> fy = floats_.Get<float>();
      LocalTensor<float> z = outZ_.AllocTensor<float>();
      Cast(z, hx, RoundMode::CAST_NONE, n);
      Cast(fy, hy, RoundMode::CAST_NONE, n);
      Add(z, z, fy, static_cast<int32_t>(n));
      inX_.FreeTensor(x);
      inY_.FreeTensor(y);
      outZ_.EnQue(z);
      z = outZ_.DeQue<float>();
      DataCopyPad(zGm_[at], z, DataCopyExtParams(1, n * 4, 0, 0, 0));
      outZ_.FreeTensor(z);
    }
  }

 private:
  TPipe pipe_;
  TQue<QuePosition::VECIN, 1> inX_, inY_;
  TQue<QuePosition::VECOUT, 1> outZ_;
  TBuf<QuePosition::VECCALC> halves_, floats_;
  GlobalTensor<TIn> xGm_, yGm_;
  GlobalTensor<float> zGm_;
  uint32_t total_ = 0;
};

extern "C" __global__ __aicore__ void mixed_add(GM_ADDR x, GM_ADDR y, GM_ADDR z,
                                                GM_ADDR workspace, GM_ADDR tiling) {
  GET_TILING_DATA(t, tiling);
  MixedAddKernel<DTYPE_X> op;
  op.Init(x, y, z, t.totalLength);
  op.Process();
}
)";

class PackageDtypesTest : public testing::BuiltInValidatorTest {
 protected:

  Result<PackageReport> Check(ascendc::Package package) {
    PackageRequest request;
    request.op = "add";
    request.candidate = std::move(package);
    request.seed = 11;
    return ValidatePackage(*validator_, cannbot_test::BuiltInOps(), request);
  }

  // The add example with its OpDef's dtype lists replaced by int32 and int16, and `edits`
  // applied.
  static Result<ascendc::Package> IntegerAdd(testing::TextEdits edits) {
    edits.insert(edits.begin(),
                 {{"{ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_BF16, ge::DT_INT32}",
                   "{ge::DT_INT32, ge::DT_INT16}"},
                  {"{ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND}",
                   "{ge::FORMAT_ND, ge::FORMAT_ND}"}});
    return ascendc::PackageFromFiles("integer add",
                                     testing::EditedExamplePackage("add_custom_fast", edits));
  }

};

TEST_F(PackageDtypesTest, IntegerCombinationsRunAndAreComparedExactly) {
  auto package = IntegerAdd({});
  ASSERT_TRUE(package.ok()) << package.status().ToString();
  auto report = Check(*package);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  ASSERT_EQ(report->runs.size(), 2u);
  for (const PackageRun& run : report->runs) {
    EXPECT_EQ(run.skipped, "") << run.combo.Describe();
    ASSERT_TRUE(run.check.has_value()) << run.combo.Describe();
    EXPECT_TRUE(run.check->ok) << run.combo.Describe() << ": " << run.check->reason;
  }
  EXPECT_EQ(report->runs[0].combo.Describe(), "x=int32 y=int32 z=int32");
  EXPECT_EQ(report->runs[1].combo.Describe(), "x=int16 y=int16 z=int16");
  EXPECT_TRUE(report->ok()) << report->RenderText();

  // Off by one in every element: no float tolerance hides it.
  const std::string add = "Add(z, x, y, static_cast<int32_t>(n));";
  auto off = IntegerAdd({{add, add + "\n      Adds(z, z, static_cast<T>(1), static_cast<int32_t>(n));"}});
  ASSERT_TRUE(off.ok()) << off.status().ToString();
  auto wrong = Check(*off);
  ASSERT_TRUE(wrong.ok()) << wrong.status().ToString();
  ASSERT_EQ(wrong->runs.size(), 2u);
  EXPECT_FALSE(wrong->ok());
  for (const PackageRun& run : wrong->runs) {
    ASSERT_TRUE(run.check.has_value()) << run.combo.Describe();
    EXPECT_FALSE(run.check->ok);
    EXPECT_NE(run.check->reason.find("compared exactly"), std::string::npos) << run.check->reason;
  }
}

TEST_F(PackageDtypesTest, TensorsOfDifferentDtypesInOneCombinationAreEachLaunchedInTheirOwn) {
  auto package = ascendc::PackageFromFiles(
      "mixed add", {{"op_host/mixed_add.cpp", kMixedHost},
                    {"op_host/mixed_add_tiling.h", kMixedTiling},
                    {"op_kernel/mixed_add.cpp", kMixedKernel}});
  ASSERT_TRUE(package.ok()) << package.status().ToString();
  auto report = Check(*package);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  ASSERT_EQ(report->runs.size(), 2u);
  EXPECT_EQ(report->runs[0].combo.Describe(), "x=int16 y=int16 z=float32");
  EXPECT_EQ(report->runs[1].combo.Describe(), "x=int8 y=int8 z=float32");
  for (const PackageRun& run : report->runs) {
    EXPECT_EQ(run.skipped, "") << run.combo.Describe();
    ASSERT_TRUE(run.check.has_value()) << run.combo.Describe();
    EXPECT_TRUE(run.check->ok) << run.combo.Describe() << ": " << run.check->reason;
  }
}

// A spec that declares an int8 input (the built-in dequantize_int8: y = float(x) * scale, one
// rounding) judges a package whose OpDef has it: the int8 values reach the kernel and the
// reference unchanged. A kernel that multiplies in half (two roundings) fails the standard.
TEST_F(PackageDtypesTest, ASpecWithAnInt8InputJudgesThePackageInItsOwnDtype) {
  auto run = [&](testing::TextEdits edits) -> Result<PackageReport> {
    CANNBOT_ASSIGN_OR_RETURN(
        ascendc::Package package,
        ascendc::PackageFromFiles("dequantize",
                                  testing::EditedExamplePackage("dequantize_int8", edits)));
    PackageRequest request;
    request.op = "dequantize_int8";
    request.candidate = std::move(package);
    request.seed = 11;
    return ValidatePackage(*validator_, cannbot_test::BuiltInOps(), request);
  };
  auto report = run({});
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  ASSERT_EQ(report->runs.size(), 1u);
  EXPECT_EQ(report->runs[0].combo.Describe(), "x=int8 y=float32");
  EXPECT_TRUE(report->ok()) << report->RenderText();

  auto in_half = run({{"    Cast(y, h, RoundMode::CAST_NONE, n);\n"
                       "    Muls(y, y, scale_, static_cast<int32_t>(n));",
                       "    Muls(h, h, static_cast<half>(scale_), static_cast<int32_t>(n));\n"
                       "    Cast(y, h, RoundMode::CAST_NONE, n);"}});
  ASSERT_TRUE(in_half.ok()) << in_half.status().ToString();
  EXPECT_FALSE(in_half->ok());
  ASSERT_EQ(in_half->runs.size(), 1u);
  ASSERT_TRUE(in_half->runs[0].check.has_value());
  EXPECT_NE(in_half->runs[0].check->reason.find("CANN precision standard for fp32"),
            std::string::npos)
      << in_half->runs[0].check->reason;
}

}  // namespace
}  // namespace cannbot::engine
