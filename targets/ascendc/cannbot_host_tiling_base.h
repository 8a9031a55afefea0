// cannbot_host_tiling_base.h: the tiling class framework of the public CANN operator
// repositories, as their bigger operators use it: a tiling is a class derived from
// TilingBaseClass that answers a fixed sequence of questions (shapes and attributes, platform,
// whether it handles the case at all, the op's tiling, the library APIs' tiling, the
// workspace, the tiling data, the key), and an operator registers several such classes by
// priority (REGISTER_TILING_TEMPLATE); its tiling function asks the registry to run them in
// priority order (lowest number first) until one handles the case.
//
// As in those repositories the class is TilingBaseClass in `optiling` (the toolkit's
// tiling/tiling_base.h), `Ops::NN::Optiling` (ops-nn) and `Ops::Base` (ops-math), and the
// registry is TilingRegistry in `optiling`, `Ops::NN::Optiling` and `Ops::Math::OpTiling`.
//
// Registration runs nothing at load time (the object check refuses load-time code): the
// REGISTER_* macros expand to nothing, the package reader finds them in the host sources and
// the generated host include lists them (CANNBOT_TILING_TEMPLATES), and cannbot_host_impl.h
// turns that list into the table the registry reads (PackageTemplates()).
//
// Written for cannbot from how the framework is documented and used; not vendor code.
// Thread-safety: single-threaded, like the launch that uses it.
#ifndef CANNBOT_HOST_TILING_BASE_H
#define CANNBOT_HOST_TILING_BASE_H

#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <sstream>
#include <string>
#include <vector>

#include "cannbot_host_ops_base.h"

namespace cannbot_host_tiling {

// The AI core facts a tiling class keeps (aicoreParams_).
struct AiCoreParams {
  uint64_t ubSize = 0;
  uint64_t blockDim = 0;
  uint64_t numBlocks = 0;
  uint64_t aicNum = 0;
  uint64_t l1Size = 0;
  uint64_t l0aSize = 0;
  uint64_t l0bSize = 0;
  uint64_t l0cSize = 0;
};

class TilingBaseClass {
 public:
  explicit TilingBaseClass(gert::TilingContext* context) : context_(context) {}
  TilingBaseClass() = default;
  virtual ~TilingBaseClass() = default;

  // GRAPH_SUCCESS: this class tiled the case; GRAPH_PARAM_INVALID: it does not handle it (the
  // registry tries the next); anything else: the tiling failed.
  ge::graphStatus DoTiling() {
    ge::graphStatus status = GetShapeAttrsInfo();
    if (status == ge::GRAPH_SUCCESS) status = GetPlatformInfo();
    if (status != ge::GRAPH_SUCCESS) return status;
    if (!IsCapable()) return ge::GRAPH_PARAM_INVALID;
    for (auto step : {&TilingBaseClass::DoOpTiling, &TilingBaseClass::DoLibApiTiling,
                      &TilingBaseClass::GetWorkspaceSize, &TilingBaseClass::PostTiling}) {
      status = (this->*step)();
      if (status != ge::GRAPH_SUCCESS) return status;
    }
    context_->SetTilingKey(GetTilingKey());
    DumpTilingInfo();
    return ge::GRAPH_SUCCESS;
  }
  virtual void Reset(gert::TilingContext* context) { context_ = context; }

 protected:
  virtual bool IsCapable() = 0;
  virtual ge::graphStatus GetPlatformInfo() = 0;
  virtual ge::graphStatus GetShapeAttrsInfo() = 0;
  virtual ge::graphStatus DoOpTiling() = 0;
  virtual ge::graphStatus DoLibApiTiling() = 0;
  virtual uint64_t GetTilingKey() const = 0;
  virtual ge::graphStatus GetWorkspaceSize() = 0;
  virtual ge::graphStatus PostTiling() = 0;
  virtual void DumpTilingInfo() {}

  // Blocks for `sliceNum` vector slices when every cube core drives aiv/aic vector cores.
  static uint32_t CalcTschBlockDim(uint32_t sliceNum, uint32_t aicCoreNum, uint32_t aivCoreNum) {
    if (aicCoreNum == 0 || aivCoreNum == 0 || aicCoreNum > aivCoreNum) return sliceNum;
    const uint32_t ratio = aivCoreNum / aicCoreNum;
    return (sliceNum + ratio - 1) / ratio;
  }
  template <typename T>
  std::string GetShapeDebugStr(const T& shape) const {
    std::ostringstream out;
    out << "[";
    for (size_t i = 0; i < shape.GetDimNum(); ++i) out << (i ? ", " : "") << shape.GetDim(i);
    out << "]";
    return out.str();
  }
  std::string GetTilingDataDebugStr() const {
    const auto* raw = context_->GetRawTilingData();
    const auto* words = static_cast<const int32_t*>(raw->GetData());
    std::ostringstream out;
    for (size_t i = 0; i < raw->GetDataSize() / sizeof(int32_t); ++i) out << words[i] << ", ";
    return out.str();
  }
  int64_t DefaultTilingInfoDump() { return 0; }

  gert::TilingContext* context_ = nullptr;
  std::unique_ptr<platform_ascendc::PlatformAscendC> ascendcPlatform_;
  uint32_t blockDim_ = 0;
  uint64_t workspaceSize_ = 0;
  uint64_t tilingKey_ = 0;
  AiCoreParams aicoreParams_;
};

using TilingClassCase = std::unique_ptr<TilingBaseClass> (*)(gert::TilingContext*);
template <typename T>
std::unique_ptr<TilingBaseClass> TILING_CLASS(gert::TilingContext* context) {
  return std::unique_ptr<TilingBaseClass>(new (std::nothrow) T(context));
}

// One REGISTER_*TILING_TEMPLATE of the package.
struct TemplateRecord {
  const char* op_type;
  int32_t priority;
  TilingClassCase make;
};
// The package's registrations, defined by cannbot_host_impl.h after its host code.
const TemplateRecord* PackageTemplates(size_t* count);

class TilingRegistry {
 public:
  static TilingRegistry& GetInstance() {
    static TilingRegistry registry;
    return registry;
  }
  // Every class registered for the context's op, lowest priority number first, until one
  // handles the case.
  ge::graphStatus DoTilingImpl(gert::TilingContext* context) {
    return Run(context, Registered(context->GetNodeType()));
  }
  // Only the classes of these priorities, in this order.
  ge::graphStatus DoTilingImpl(gert::TilingContext* context,
                               const std::vector<int32_t>& priorities) {
    std::vector<TemplateRecord> all = Registered(context->GetNodeType()), chosen;
    for (int32_t priority : priorities) {
      for (const TemplateRecord& r : all) {
        if (r.priority == priority) chosen.push_back(r);
      }
    }
    return Run(context, chosen);
  }

 private:
  static std::vector<TemplateRecord> Registered(const char* op_type) {
    size_t count = 0;
    const TemplateRecord* records = PackageTemplates(&count);
    std::vector<TemplateRecord> mine;
    for (size_t i = 0; i < count; ++i) {
      if (op_type == nullptr || std::strcmp(records[i].op_type, op_type) != 0) continue;
      size_t at = 0;  // sorted by priority; the first registration of a priority stays
      while (at < mine.size() && mine[at].priority <= records[i].priority) ++at;
      if (at > 0 && mine[at - 1].priority == records[i].priority) continue;
      mine.insert(mine.begin() + static_cast<std::ptrdiff_t>(at), records[i]);
    }
    return mine;
  }
  static ge::graphStatus Run(gert::TilingContext* context,
                             const std::vector<TemplateRecord>& records) {
    for (const TemplateRecord& r : records) {
      std::unique_ptr<TilingBaseClass> tiling = r.make(context);
      if (tiling == nullptr) continue;
      const ge::graphStatus status = tiling->DoTiling();
      if (status != ge::GRAPH_PARAM_INVALID) return status;
    }
    OP_LOGE(context->GetNodeType(),
            "no registered tiling class handles this case (%zu tried, REGISTER_TILING_TEMPLATE)",
            records.size());
    return ge::GRAPH_FAILED;
  }
};

}  // namespace cannbot_host_tiling

namespace optiling {
using ::cannbot_host_tiling::AiCoreParams;
using ::cannbot_host_tiling::TILING_CLASS;
using ::cannbot_host_tiling::TilingBaseClass;
using ::cannbot_host_tiling::TilingClassCase;
using ::cannbot_host_tiling::TilingRegistry;
}  // namespace optiling
namespace Ops {
namespace NN {
namespace Optiling {
using ::cannbot_host_tiling::AiCoreParams;
using ::cannbot_host_tiling::TILING_CLASS;
using ::cannbot_host_tiling::TilingBaseClass;
using ::cannbot_host_tiling::TilingClassCase;
using ::cannbot_host_tiling::TilingRegistry;
}  // namespace Optiling
}  // namespace NN
namespace Base {
using ::cannbot_host_tiling::AiCoreParams;
using ::cannbot_host_tiling::TilingBaseClass;
}  // namespace Base
namespace Math {
namespace OpTiling {
using ::cannbot_host_tiling::TILING_CLASS;
using ::cannbot_host_tiling::TilingClassCase;
using ::cannbot_host_tiling::TilingRegistry;
}  // namespace OpTiling
}  // namespace Math
}  // namespace Ops

// Registrations: found in the package's text (see above), so nothing here.
#define REGISTER_TILING_TEMPLATE(op_type, class_name, priority) static_assert(true, "")
#define REGISTER_OPS_TILING_TEMPLATE(op_type, class_name, priority) static_assert(true, "")

#endif  // CANNBOT_HOST_TILING_BASE_H
