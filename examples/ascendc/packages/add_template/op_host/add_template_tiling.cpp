// AddTemplate's tiling: the tensor is split over the vector cores in chunks of whole 32-byte
// blocks, each chunk streamed through double-buffered UB tiles (3 tensors x 2 buffers in half
// of UB; bf16 also needs two float tiles, so its tiles are halved). The tiling key names the
// kernel instance: the dtype, and whether the tensor ends inside a 32-byte block.
#include "log/log.h"
#include "register/op_impl_registry.h"
#include "tiling/platform/platform_ascendc.h"
#include "util/math_util.h"
#include "../op_kernel/add_template_tiling_data.h"
#include "../op_kernel/add_template_tiling_key.h"

namespace optiling {

constexpr int64_t kBufferNum = 2;
constexpr int64_t kTensors = 3;
constexpr int64_t kBlockBytes = 32;
constexpr int64_t kMinElementsPerCore = 8192;  // below this a core costs more than it brings

// What the compile-time half (TilingParse) reads once: the platform's cores and UB.
struct AddTemplateCompileInfo {
  int64_t coreNum = 0;
  uint64_t ubSize = 0;
};

static ge::graphStatus TilingParseForAddTemplate(gert::TilingParseContext* context) {
  AddTemplateCompileInfo* info = context->GetCompiledInfo<AddTemplateCompileInfo>();
  OP_CHECK_NULL_WITH_CONTEXT(context, info);
  auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
  info->coreNum = platform.GetCoreNumAiv();
  platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, info->ubSize);
  return ge::GRAPH_SUCCESS;
}

static ge::graphStatus AddTemplateTilingFunc(gert::TilingContext* context) {
  const gert::StorageShape* xShape = context->GetInputShape(0);
  OP_CHECK_NULL_WITH_CONTEXT(context, xShape);
  const int64_t total = xShape->GetStorageShape().GetShapeSize();
  OP_CHECK_IF(total <= 0, OP_LOGE(context, "x has %lld elements", static_cast<long long>(total)),
              return ge::GRAPH_FAILED);
  const ge::DataType dtype = context->GetInputDesc(0)->GetDataType();
  uint32_t elementBytes = 0;
  OP_CHECK_IF(!ge::TypeUtils::GetDataTypeLength(dtype, elementBytes) || elementBytes == 0,
              OP_LOGE(context, "x has an unsupported dtype"), return ge::GRAPH_FAILED);

  const AddTemplateCompileInfo* info = context->GetCompileInfo<AddTemplateCompileInfo>();
  OP_CHECK_NULL_WITH_CONTEXT(context, info);
  const uint64_t ubBytes = info->ubSize;
  const int64_t cores = info->coreNum;
  OP_CHECK_IF(cores <= 0 || ubBytes == 0, OP_LOGE(context, "the platform reports no cores or UB"),
              return ge::GRAPH_FAILED);

  const int64_t blockElements = kBlockBytes / elementBytes;
  int64_t tileLength = static_cast<int64_t>(ubBytes) / 2 / (kTensors * kBufferNum) / elementBytes;
  if (dtype == ge::DT_BF16) tileLength /= 2;
  tileLength = Ops::Base::FloorAlign(tileLength, blockElements);
  const int64_t perCore = std::max(Ops::Base::CeilDiv(total, cores), kMinElementsPerCore);
  const int64_t blockLength = Ops::Base::CeilAlign(perCore, blockElements);

  AddTemplateTilingData* tiling = context->GetTilingData<AddTemplateTilingData>();
  OP_CHECK_NULL_WITH_CONTEXT(context, tiling);
  OP_CHECK_IF(memset_s(tiling, sizeof(AddTemplateTilingData), 0, sizeof(AddTemplateTilingData)) != EOK,
              OP_LOGE(context, "cannot clear the tiling data"), return ge::GRAPH_FAILED);
  tiling->totalLength = total;
  tiling->blockLength = blockLength;
  tiling->tileLength = tileLength;
  context->SetBlockDim(static_cast<uint32_t>(Ops::Base::CeilDiv(total, blockLength)));

  const uint32_t tailMode =
      total % blockElements == 0 ? ADD_TEMPLATE_WHOLE_BLOCKS : ADD_TEMPLATE_PARTIAL_TAIL;
  ASCENDC_TPL_SEL_PARAM(context, static_cast<uint32_t>(dtype), tailMode);
  size_t* workspace = context->GetWorkspaceSizes(1);
  OP_CHECK_NULL_WITH_CONTEXT(context, workspace);
  workspace[0] = 0;
  return ge::GRAPH_SUCCESS;
}

IMPL_OP_OPTILING(AddTemplate)
    .Tiling(AddTemplateTilingFunc)
    .TilingParse<AddTemplateCompileInfo>(TilingParseForAddTemplate);

}  // namespace optiling
