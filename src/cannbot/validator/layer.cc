#include "cannbot/validator/layer.h"

#include <string>

namespace cannbot::validator {
namespace {

constexpr std::pair<Layer, const char*> kLayerNames[] = {
    {Layer::kNone, ""},           {Layer::kCompile, "compile"}, {Layer::kSandbox, "sandbox"},
    {Layer::kNumeric, "numeric"}, {Layer::kPerf, "perf"},
};

}  // namespace

const char* LayerName(Layer layer) {
  for (const auto& [l, name] : kLayerNames) {
    if (l == layer) return name;
  }
  return "";
}

Result<Layer> ParseLayer(std::string_view name, std::string_view field) {
  for (const auto& [layer, n] : kLayerNames) {
    if (name == n) return layer;
  }
  return Status::InvalidArgument("field '" + std::string(field) +
                                 "' must be one of: compile, sandbox, numeric, perf (got \"" +
                                 std::string(name) + "\")");
}

}  // namespace cannbot::validator
