// LayerNormCustom (y = (x - mean) / sqrt(var + epsilon) * gamma + beta over the last axis),
// host side, fast version: whole rows are spread over the vector cores, and each core streams
// its rows through double-buffered UB tiles of as many rows as fit beside the float work rows
// (the statistics and the normalisation run in float for every dtype). fp16, fp32 and bf16.
#include "layernorm_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
namespace {
constexpr uint32_t kBufferNum = 2;
constexpr uint32_t kMaxBlockCount = 4095;  // rows one DataCopyPad moves at most
constexpr uint32_t kStatBytes = 2 * 64 * sizeof(float);
}  // namespace

static ge::graphStatus TilingFunc(gert::TilingContext* context) {
  const gert::Shape& shape = context->GetInputShape(0)->GetStorageShape();
  const int elementBytes = ge::GetSizeByDataType(context->GetInputDesc(0)->GetDataType());
  if (shape.GetDimNum() == 0 || elementBytes <= 0) return ge::GRAPH_FAILED;
  const uint64_t cols = shape.GetDim(shape.GetDimNum() - 1);
  const uint64_t total = shape.GetShapeSize();
  if (cols == 0 || total == 0 || total > UINT32_MAX) return ge::GRAPH_FAILED;
  const uint64_t rows = total / cols;
  const float* eps = context->GetAttrs()->GetFloat(0);
  if (eps == nullptr) return ge::GRAPH_FAILED;

  auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
  uint64_t ubBytes = 0;
  platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubBytes);
  const uint64_t cores = platform.GetCoreNumAiv();

  const uint64_t perBlock = 32 / elementBytes;
  const uint64_t colsAligned = (cols + perBlock - 1) / perBlock * perBlock;
  // Fixed: gamma and beta (T staging and float), a centred row and its square in float.
  const uint64_t floatRow = colsAligned * sizeof(float);
  const uint64_t fixed = 2 * colsAligned * elementBytes + 4 * floatRow + kStatBytes;
  const uint64_t tileRow = 2 * kBufferNum * colsAligned * elementBytes;  // x in, y out
  const uint64_t budget = ubBytes * 7 / 8;
  if (fixed + tileRow > budget) return ge::GRAPH_FAILED;  // a row must fit the UB
  uint64_t rowsPerTile = (budget - fixed) / tileRow;
  const uint64_t blocks = rows < cores ? rows : cores;
  const uint64_t rowsPerBlock = (rows + blocks - 1) / blocks;
  if (rowsPerTile > rowsPerBlock) rowsPerTile = rowsPerBlock;
  if (rowsPerTile > kMaxBlockCount) rowsPerTile = kMaxBlockCount;

  LayerNormCustomTilingData tiling;
  tiling.set_rows(static_cast<uint32_t>(rows));
  tiling.set_cols(static_cast<uint32_t>(cols));
  tiling.set_colsAligned(static_cast<uint32_t>(colsAligned));
  tiling.set_rowsPerTile(static_cast<uint32_t>(rowsPerTile));
  tiling.set_eps(*eps);
  context->SetBlockDim(static_cast<uint32_t>(blocks));
  tiling.SaveToBuffer(context->GetRawTilingData()->GetData(),
                      context->GetRawTilingData()->GetCapacity());
  context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
  size_t* workspace = context->GetWorkspaceSizes(1);
  workspace[0] = 0;
  return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ge {
static graphStatus InferShape(gert::InferShapeContext* context) {
  *context->GetOutputShape(0) = *context->GetInputShape(0);
  return GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class LayerNormCustom : public OpDef {
 public:
  explicit LayerNormCustom(const char* name) : OpDef(name) {
    for (const char* input : {"x", "gamma", "beta"}) {
      this->Input(input)
          .ParamType(REQUIRED)
          .DataType({ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_BF16})
          .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
    }
    this->Output("y")
        .ParamType(REQUIRED)
        .DataType({ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_BF16})
        .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
    this->Attr("epsilon").AttrType(OPTIONAL).Float(1e-5f);
    this->SetInferShape(ge::InferShape);
    this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
  }
};

OP_ADD(LayerNormCustom);
}  // namespace ops
