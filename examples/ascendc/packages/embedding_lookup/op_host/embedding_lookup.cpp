// EmbeddingLookup (y[t, :] = table[ids[t], :]), host side: the operator definition and the
// tiling function. The table is fp32, the ids int32 (their OpDef dtype): the tokens are split
// over the vector cores; a row of any length is moved whole (rows need not be 32-byte blocks).
#include "embedding_lookup_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
namespace {
constexpr uint32_t kMaxDim = 8192;  // a row must fit in half the UB with room to spare
}  // namespace

static ge::graphStatus TilingFunc(gert::TilingContext* context) {
  const gert::Shape& table = context->GetInputShape(0)->GetStorageShape();
  const uint64_t tokens = context->GetInputShape(1)->GetStorageShape().GetShapeSize();
  if (table.GetDimNum() != 2 || tokens == 0 || tokens > UINT32_MAX) return ge::GRAPH_FAILED;
  const uint64_t dim = static_cast<uint64_t>(table.GetDim(1));
  if (dim == 0 || dim > kMaxDim) return ge::GRAPH_FAILED;

  auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
  const uint32_t cores = platform.GetCoreNumAiv();
  const uint64_t perCore = (tokens + cores - 1) / cores;
  const uint32_t blockDim = static_cast<uint32_t>((tokens + perCore - 1) / perCore);

  EmbeddingLookupTilingData tiling;
  tiling.set_tokens(static_cast<uint32_t>(tokens));
  tiling.set_dim(static_cast<uint32_t>(dim));
  tiling.set_perCore(static_cast<uint32_t>(perCore));
  context->SetBlockDim(blockDim);
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
  const gert::Shape* table = context->GetInputShape(0);
  const gert::Shape* ids = context->GetInputShape(1);
  gert::Shape* y = context->GetOutputShape(0);
  y->SetDimNum(2);
  y->SetDim(0, ids->GetShapeSize());
  y->SetDim(1, table->GetDim(1));
  return GRAPH_SUCCESS;
}

static graphStatus InferDataType(gert::InferDataTypeContext* context) {
  context->SetOutputDataType(0, context->GetInputDataType(0));
  return GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class EmbeddingLookup : public OpDef {
 public:
  explicit EmbeddingLookup(const char* name) : OpDef(name) {
    this->Input("table").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
    this->Input("ids").ParamType(REQUIRED).DataType({ge::DT_INT32}).Format({ge::FORMAT_ND});
    this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
    this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
    this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
  }
};

OP_ADD(EmbeddingLookup);
}  // namespace ops
