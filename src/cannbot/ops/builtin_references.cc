#include "cannbot/ops/builtin_references.h"

#include <array>
#include <map>
#include <tuple>
#include <type_traits>

#include "cannbot/ops/reference/add.h"
#include "cannbot/ops/reference/conv2d.h"
#include "cannbot/ops/reference/conv_bn_relu.h"
#include "cannbot/ops/reference/depthwise_conv2d.h"
#include "cannbot/ops/reference/dwsep_block.h"
#include "cannbot/ops/reference/gelu.h"
#include "cannbot/ops/reference/layernorm.h"
#include "cannbot/ops/reference/layernorm_gelu.h"
#include "cannbot/ops/reference/matmul.h"
#include "cannbot/ops/reference/prelu.h"
#include "cannbot/ops/reference/relu.h"
#include "cannbot/ops/reference/softmax.h"
#include "cannbot/ops/reference/swish.h"

namespace cannbot::ops {
namespace {

// Where the next argument of each C++ type comes from.
struct Cursor {
  const TensorArgs& tensors;
  const Shape& shape;
  const std::vector<std::string>& sizes;    // size params, in order
  const std::vector<std::string>& scalars;  // scalar params, in order
  size_t input = 0, output = 0, size = 0, scalar = 0;
};

template <typename T>
T Next(Cursor& c);
template <>
const float* Next<const float*>(Cursor& c) { return c.tensors.inputs[c.input++]; }
template <>
float* Next<float*>(Cursor& c) { return c.tensors.outputs[c.output++]; }
template <>
int64_t Next<int64_t>(Cursor& c) { return c.shape.Size(c.sizes[c.size++]); }
template <>
float Next<float>(Cursor& c) { return c.shape.Scalar(c.scalars[c.scalar++]); }

template <typename T>
constexpr ParamKind KindOf() {
  if constexpr (std::is_same_v<T, const float*>) return ParamKind::kInput;
  if constexpr (std::is_same_v<T, float*>) return ParamKind::kOutput;
  if constexpr (std::is_same_v<T, int64_t>) return ParamKind::kSize;
  static_assert(std::is_same_v<T, const float*> || std::is_same_v<T, float*> ||
                    std::is_same_v<T, int64_t> || std::is_same_v<T, float>,
                "a reference takes const float*, float*, int64_t and float only");
  return ParamKind::kScalar;
}

using Binder = ReferenceFn (*)(const OpSpec&);

template <typename... Args>
ReferenceFn Bind(void (*fn)(Args...), const OpSpec& op) {
  constexpr std::array<ParamKind, sizeof...(Args)> kinds = {KindOf<Args>()...};
  if (op.params.size() != kinds.size()) return nullptr;
  std::vector<std::string> sizes, scalars;
  for (size_t i = 0; i < kinds.size(); ++i) {
    const Param& p = op.params[i];
    if (p.kind != kinds[i] || (p.IsTensor() && p.dtype != DType::kF32)) return nullptr;
    if (p.kind == ParamKind::kSize) sizes.push_back(p.name);
    if (p.kind == ParamKind::kScalar) scalars.push_back(p.name);
  }
  return [fn, sizes, scalars](const TensorArgs& t, const Shape& s) {
    Cursor c{t, s, sizes, scalars};
    std::tuple<Args...> args{Next<Args>(c)...};  // a braced list evaluates left to right
    std::apply(fn, args);
  };
}

template <auto fn>
ReferenceFn BindTo(const OpSpec& op) { return Bind(fn, op); }

const std::map<std::string, Binder>& Binders() {
  static const std::map<std::string, Binder> binders = {
      {"add", &BindTo<&cannbot_ref::add>},
      {"conv2d", &BindTo<&cannbot_ref::conv2d>},
      {"conv_bn_relu", &BindTo<&cannbot_ref::conv_bn_relu>},
      {"depthwise_conv2d", &BindTo<&cannbot_ref::depthwise_conv2d>},
      {"dwsep_block", &BindTo<&cannbot_ref::dwsep_block>},
      {"gelu", &BindTo<&cannbot_ref::gelu>},
      {"layernorm", &BindTo<&cannbot_ref::layernorm>},
      {"layernorm_gelu", &BindTo<&cannbot_ref::layernorm_gelu>},
      {"matmul", &BindTo<&cannbot_ref::matmul>},
      {"prelu", &BindTo<&cannbot_ref::prelu>},
      {"relu", &BindTo<&cannbot_ref::relu>},
      {"softmax", &BindTo<&cannbot_ref::softmax>},
      {"swish", &BindTo<&cannbot_ref::swish>},
  };
  return binders;
}

}  // namespace

ReferenceFn BuiltInReference(const OpSpec& op) {
  auto it = Binders().find(op.name);
  return it == Binders().end() ? nullptr : it->second(op);
}

}  // namespace cannbot::ops
