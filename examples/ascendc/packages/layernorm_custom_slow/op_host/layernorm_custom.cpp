// LayerNormCustom (y = (x - mean) / sqrt(var + epsilon) * gamma + beta over the last axis),
// host side, slow version: one core, one row at a time. Correct but deliberately naive, as a
// baseline for the optimiser. fp16, fp32 and bf16.
#include "layernorm_custom_tiling.h"
#include "register/op_def_registry.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context) {
  const gert::Shape& shape = context->GetInputShape(0)->GetStorageShape();
  const int elementBytes = ge::GetSizeByDataType(context->GetInputDesc(0)->GetDataType());
  if (shape.GetDimNum() == 0 || elementBytes <= 0) return ge::GRAPH_FAILED;
  const uint64_t cols = shape.GetDim(shape.GetDimNum() - 1);
  const uint64_t total = shape.GetShapeSize();
  if (cols == 0 || total == 0 || total > UINT32_MAX || cols * 4 > 32 * 1024) {
    return ge::GRAPH_FAILED;  // a row of each of the four tensors must fit the UB
  }
  const float* eps = context->GetAttrs()->GetFloat(0);
  if (eps == nullptr) return ge::GRAPH_FAILED;
  const uint64_t perBlock = 32 / elementBytes;
  LayerNormCustomTilingData tiling;
  tiling.set_rows(static_cast<uint32_t>(total / cols));
  tiling.set_cols(static_cast<uint32_t>(cols));
  tiling.set_colsAligned(static_cast<uint32_t>((cols + perBlock - 1) / perBlock * perBlock));
  tiling.set_rowsPerTile(1);
  tiling.set_eps(*eps);
  context->SetBlockDim(1);
  tiling.SaveToBuffer(context->GetRawTilingData()->GetData(),
                      context->GetRawTilingData()->GetCapacity());
  context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
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
      this->Input(input).ParamType(REQUIRED).DataType({ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_BF16}).Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
    }
    this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_BF16}).Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
    this->Attr("epsilon").AttrType(OPTIONAL).Float(1e-5f);
    this->SetInferShape(ge::InferShape);
    this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
  }
};

OP_ADD(LayerNormCustom);
}  // namespace ops
