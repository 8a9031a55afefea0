// ReduceSumAtomic (the sum of each row of x), host side. Rows can be few and long, so the
// columns, not the rows, are split over the vector cores: every core sums its slice of every
// row and adds its partial sums into y with an atomic add. y must hold zeros first: each core
// zeroes its share of it, and a SyncAll keeps every core from adding before all of y is zero.
// The hard SyncAll needs the system workspace, which the tiling asks for.
#include "reduce_sum_atomic_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
namespace {
constexpr uint32_t kFloatsPerBlock = 8;  // one 32-byte block
constexpr uint32_t kMaxTileRows = 4095;  // DataCopyPad's block count

uint32_t CeilDiv(uint64_t a, uint64_t b) { return static_cast<uint32_t>((a + b - 1) / b); }
}  // namespace

static ge::graphStatus TilingFunc(gert::TilingContext* context) {
  const gert::Shape& shape = context->GetInputShape(0)->GetStorageShape();
  const size_t dims = shape.GetDimNum();
  if (dims == 0 || shape.GetDim(dims - 1) <= 0) return ge::GRAPH_FAILED;
  const uint32_t cols = static_cast<uint32_t>(shape.GetDim(dims - 1));
  const uint64_t rows = static_cast<uint64_t>(shape.GetShapeSize()) / cols;

  auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
  uint64_t ubBytes = 0;
  platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubBytes);
  const uint32_t cores = platform.GetCoreNumAiv();
  if (cores == 0 || rows == 0) return ge::GRAPH_FAILED;

  const uint32_t colsPerCore = CeilDiv(CeilDiv(cols, cores), kFloatsPerBlock) * kFloatsPerBlock;
  const uint32_t blockDim = CeilDiv(cols, colsPerCore);
  // Per tile row: the slice in (double-buffered) and its sum out (double-buffered); the rest
  // of the UB holds the ReduceSum work tensor and the zeros.
  const uint64_t rowBytes = 2ull * colsPerCore * sizeof(float) + 2 * sizeof(float);
  uint64_t tileRows = (ubBytes / 2) / rowBytes;
  if (tileRows == 0) return ge::GRAPH_FAILED;
  if (tileRows > rows) tileRows = rows;
  if (tileRows > kMaxTileRows) tileRows = kMaxTileRows;

  ReduceSumAtomicTilingData tiling;
  tiling.set_rows(static_cast<uint32_t>(rows));
  tiling.set_cols(cols);
  tiling.set_colsPerCore(colsPerCore);
  tiling.set_rowsPerCore(CeilDiv(rows, blockDim));
  tiling.set_tileRows(static_cast<uint32_t>(tileRows));
  context->SetBlockDim(blockDim);
  tiling.SaveToBuffer(context->GetRawTilingData()->GetData(),
                      context->GetRawTilingData()->GetCapacity());
  context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
  size_t* workspaces = context->GetWorkspaceSizes(1);
  workspaces[0] = platform.GetLibApiWorkSpaceSize();
  return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ge {
static graphStatus InferShape(gert::InferShapeContext* context) {
  const gert::Shape* x = context->GetInputShape(0);
  gert::Shape* y = context->GetOutputShape(0);
  y->SetDimNum(x->GetDimNum() - 1);
  for (size_t i = 0; i + 1 < x->GetDimNum(); ++i) y->SetDim(i, x->GetDim(i));
  return GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class ReduceSumAtomic : public OpDef {
 public:
  explicit ReduceSumAtomic(const char* name) : OpDef(name) {
    this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
    this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
    this->SetInferShape(ge::InferShape);
    this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
  }
};

OP_ADD(ReduceSumAtomic);
}  // namespace ops
