// DequantizeInt8 (y = float(x) * scale, x int8, y float), host side: the operator definition
// and the tiling. The tensor is split over the vector cores in chunks of whole 32-byte blocks
// of int8; each core streams its chunk through double-buffered UB tiles.
#include "dequantize_int8_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
namespace {
constexpr uint32_t kBlockElements = 32;          // int8 elements per 32-byte block
constexpr uint32_t kTileLength = 8192;           // int8 in, half and float on the way: 52 KB
constexpr uint32_t kMinElementsPerCore = 16384;  // below this a core costs more than it brings
}  // namespace

static ge::graphStatus TilingFunc(gert::TilingContext* context) {
  const uint64_t total = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
  const float* scale = context->GetAttrs()->GetAttrPointer<float>(0);
  if (total == 0 || total > UINT32_MAX || scale == nullptr) return ge::GRAPH_FAILED;
  auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
  const uint32_t cores = platform.GetCoreNumAiv();

  uint64_t blockLength = (total + cores - 1) / cores;
  if (blockLength < kMinElementsPerCore) blockLength = kMinElementsPerCore;
  blockLength = (blockLength + kBlockElements - 1) / kBlockElements * kBlockElements;

  DequantizeInt8TilingData tiling;
  tiling.set_totalLength(static_cast<uint32_t>(total));
  tiling.set_blockLength(static_cast<uint32_t>(blockLength));
  tiling.set_tileLength(kTileLength);
  tiling.set_scale(*scale);
  context->SetBlockDim(static_cast<uint32_t>((total + blockLength - 1) / blockLength));
  tiling.SaveToBuffer(context->GetRawTilingData()->GetData(),
                      context->GetRawTilingData()->GetCapacity());
  context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
  context->GetWorkspaceSizes(1)[0] = 0;
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
class DequantizeInt8 : public OpDef {
 public:
  explicit DequantizeInt8(const char* name) : OpDef(name) {
    this->Input("x").ParamType(REQUIRED).DataType({ge::DT_INT8}).Format({ge::FORMAT_ND});
    this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
    this->Attr("scale").AttrType(REQUIRED).Float(1.0f);
    this->SetInferShape(ge::InferShape);
    this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
  }
};
OP_ADD(DequantizeInt8);
}  // namespace ops
