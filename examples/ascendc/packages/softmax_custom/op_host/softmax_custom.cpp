// SoftmaxCustom (softmax over the last axis), host side: rows are split over the vector cores;
// each core streams its rows through double-buffered UB tiles, and the SoftMax high-level API
// computes a tile. Its tiling comes from SoftMaxTilingFunc for the tile's [rows, paddedCols].
#include "softmax_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context) {
  const gert::Shape& shape = context->GetInputShape(0)->GetStorageShape();
  const size_t dims = shape.GetDimNum();
  const int elementBytes = ge::GetSizeByDataType(context->GetInputDesc(0)->GetDataType());
  if (dims == 0 || shape.GetDim(dims - 1) <= 0 || elementBytes <= 0) return ge::GRAPH_FAILED;
  const uint32_t cols = static_cast<uint32_t>(shape.GetDim(dims - 1));
  const uint64_t rows = static_cast<uint64_t>(shape.GetShapeSize()) / cols;
  const uint32_t perBlock = 32 / elementBytes;
  const uint32_t paddedCols = (cols + perBlock - 1) / perBlock * perBlock;

  auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
  uint64_t ubBytes = 0;
  platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubBytes);
  const uint32_t cores = platform.GetCoreNumAiv();

  // Per row: in and out, double-buffered, plus a 32-byte block each for its sum and max.
  const uint64_t rowBytes = 4ull * paddedCols * elementBytes + 2 * 32;
  uint64_t tileRows = ubBytes / 2 / rowBytes;
  if (tileRows == 0) return ge::GRAPH_FAILED;  // a row larger than UB: not handled here
  const uint64_t rowsPerCore = (rows + cores - 1) / cores;
  if (tileRows > rowsPerCore) tileRows = rowsPerCore;
  if (tileRows > 4095) tileRows = 4095;  // DataCopyPad's block count

  SoftmaxCustomTilingData tiling;
  tiling.set_rows(static_cast<uint32_t>(rows));
  tiling.set_cols(cols);
  tiling.set_paddedCols(paddedCols);
  tiling.set_rowsPerCore(static_cast<uint32_t>(rowsPerCore));
  tiling.set_tileRows(static_cast<uint32_t>(tileRows));
  const ge::Shape tileShape(std::vector<int64_t>{static_cast<int64_t>(tileRows), paddedCols});
  const uint32_t workspace = AscendC::GetSoftMaxMinTmpSize(tileShape, elementBytes, false);
  AscendC::SoftMaxTilingFunc(tileShape, elementBytes, workspace, tiling.softmaxTilingData);

  context->SetBlockDim(static_cast<uint32_t>((rows + rowsPerCore - 1) / rowsPerCore));
  tiling.SaveToBuffer(context->GetRawTilingData()->GetData(),
                      context->GetRawTilingData()->GetCapacity());
  context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
  size_t* workspaces = context->GetWorkspaceSizes(1);
  workspaces[0] = 0;
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
class SoftmaxCustom : public OpDef {
 public:
  explicit SoftmaxCustom(const char* name) : OpDef(name) {
    this->Input("x")
        .ParamType(REQUIRED)
        .DataType({ge::DT_FLOAT16, ge::DT_FLOAT})
        .Format({ge::FORMAT_ND, ge::FORMAT_ND});
    this->Output("y")
        .ParamType(REQUIRED)
        .DataType({ge::DT_FLOAT16, ge::DT_FLOAT})
        .Format({ge::FORMAT_ND, ge::FORMAT_ND});
    this->SetInferShape(ge::InferShape);
    this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
  }
};

OP_ADD(SoftmaxCustom);
}  // namespace ops
