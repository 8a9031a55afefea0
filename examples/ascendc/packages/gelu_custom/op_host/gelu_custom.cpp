// GeluCustom (GELU, tanh form: the high-level math library's Gelu), host side: the tensor is
// split over the vector cores in 32-byte-aligned chunks; each core streams its chunk through
// double-buffered UB tiles sized from the platform's UB capacity. The math runs in float, so every tile also
// needs two float work buffers: 2 queues x 2 buffers of T plus 2 x float per element.
#include "gelu_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
namespace {
constexpr uint32_t kAlignElements = 32;          // a multiple of 32 bytes for every dtype
constexpr uint32_t kMinElementsPerCore = 8192;  // below this a core costs more than it brings
}  // namespace

static ge::graphStatus TilingFunc(gert::TilingContext* context) {
  const uint64_t total = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
  const int elementBytes = ge::GetSizeByDataType(context->GetInputDesc(0)->GetDataType());
  if (total == 0 || total > UINT32_MAX || elementBytes <= 0) return ge::GRAPH_FAILED;

  auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
  uint64_t ubBytes = 0;
  platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubBytes);
  const uint32_t cores = platform.GetCoreNumAiv();

  // Two thirds of UB: 4 buffers of T (in and out, double-buffered) and 2 float work buffers.
  const uint64_t bytesPerElement = 4ull * elementBytes + 2ull * sizeof(float);
  uint32_t tileLength = static_cast<uint32_t>(ubBytes * 2 / 3 / bytesPerElement);
  tileLength = tileLength / kAlignElements * kAlignElements;

  uint64_t blockLength = (total + cores - 1) / cores;
  if (blockLength < kMinElementsPerCore) blockLength = kMinElementsPerCore;
  blockLength = (blockLength + kAlignElements - 1) / kAlignElements * kAlignElements;

  GeluCustomTilingData tiling;
  tiling.set_totalLength(static_cast<uint32_t>(total));
  tiling.set_blockLength(static_cast<uint32_t>(blockLength));
  tiling.set_tileLength(tileLength);
  context->SetBlockDim(static_cast<uint32_t>((total + blockLength - 1) / blockLength));
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
class GeluCustom : public OpDef {
 public:
  explicit GeluCustom(const char* name) : OpDef(name) {
    this->Input("x")
        .ParamType(REQUIRED)
        .DataType({ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_BF16})
        .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
    this->Output("y")
        .ParamType(REQUIRED)
        .DataType({ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_BF16})
        .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
    this->SetInferShape(ge::InferShape);
    this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
  }
};

OP_ADD(GeluCustom);
}  // namespace ops
