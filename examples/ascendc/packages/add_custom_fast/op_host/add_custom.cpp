// AddCustom (z = x + y), host side: the operator definition and the tiling function.
//
// Fast version: the tensor is split over the vector cores in chunks that start on a 32-byte
// boundary, and each core streams its chunk through double-buffered UB tiles sized from the
// platform's UB capacity (3 tensors x 2 buffers, with room to spare). fp16, fp32, bf16 and int32.
#include "add_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
namespace {
constexpr uint32_t kBufferNum = 2;
constexpr uint32_t kTensors = 3;
constexpr uint32_t kAlignElements = 32;          // a multiple of 32 bytes for fp16 and fp32
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

  // Half of UB for the pipeline's buffers, in whole 32-element units; bf16 tiles also need two
  // float buffers to be added in (the vector unit does not add bf16), so they are halved.
  const bool widen = context->GetInputDesc(0)->GetDataType() == ge::DT_BF16;
  uint32_t tileLength = static_cast<uint32_t>(ubBytes / 2 / (kTensors * kBufferNum) / elementBytes);
  if (widen) tileLength /= 2;
  tileLength = tileLength / kAlignElements * kAlignElements;

  uint64_t blockLength = (total + cores - 1) / cores;
  if (blockLength < kMinElementsPerCore) blockLength = kMinElementsPerCore;
  blockLength = (blockLength + kAlignElements - 1) / kAlignElements * kAlignElements;
  const uint32_t blockDim = static_cast<uint32_t>((total + blockLength - 1) / blockLength);

  AddCustomTilingData tiling;
  tiling.set_totalLength(static_cast<uint32_t>(total));
  tiling.set_blockLength(static_cast<uint32_t>(blockLength));
  tiling.set_tileLength(tileLength);
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
  *context->GetOutputShape(0) = *context->GetInputShape(0);
  return GRAPH_SUCCESS;
}

static graphStatus InferDataType(gert::InferDataTypeContext* context) {
  context->SetOutputDataType(0, context->GetInputDataType(0));
  return GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class AddCustom : public OpDef {
 public:
  explicit AddCustom(const char* name) : OpDef(name) {
    this->Input("x")
        .ParamType(REQUIRED)
        .DataType({ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_BF16, ge::DT_INT32})
        .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
    this->Input("y")
        .ParamType(REQUIRED)
        .DataType({ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_BF16, ge::DT_INT32})
        .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
    this->Output("z")
        .ParamType(REQUIRED)
        .DataType({ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_BF16, ge::DT_INT32})
        .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
    this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
    this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
  }
};

OP_ADD(AddCustom);
}  // namespace ops
