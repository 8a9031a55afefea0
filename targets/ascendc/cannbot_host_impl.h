// cannbot_host_impl.h: finds a package's IMPL_OP_OPTILING / IMPL_OP_INFERSHAPE / IMPL_OP
// records (cannbot_host_opdef.h) after its host code, wherever their namespace, and hands them
// to the launch as C functions (the OpDef's own SetTiling / SetInferShape come first); and
// makes the table of its REGISTER_TILING_TEMPLATE classes (cannbot_host_tiling_base.h).
//
// The generated host include defines CANNBOT_IMPL_OPTILING, CANNBOT_IMPL_INFERSHAPE and
// CANNBOT_IMPL_OP for the registrations the package's text has, and CANNBOT_TILING_TEMPLATES
// as a list of CANNBOT_TILING_TEMPLATE("Op", Class, priority), then includes this file once.
// Thread-safety: pure functions.
#ifndef CANNBOT_HOST_IMPL_H
#define CANNBOT_HOST_IMPL_H

#include "cannbot_host_api.h"
#include "cannbot_host_tiling_base.h"

namespace optiling {}
namespace ops {}
namespace cannbot_host_impl {
using namespace ::optiling;
using namespace ::ops;
using namespace ::Ops::NN::Optiling;
using namespace ::Ops::Base;
using namespace ::Ops::Math::OpTiling;
inline const ::gert::OpImplRecord* Tiling() {
#if defined(CANNBOT_IMPL_OPTILING)
  return &cannbot_impl_optiling;
#elif defined(CANNBOT_IMPL_OP)
  return &cannbot_impl_op;
#else
  return nullptr;
#endif
}
inline const ::gert::OpImplRecord* InferShape() {
#if defined(CANNBOT_IMPL_INFERSHAPE)
  return &cannbot_impl_infershape;
#elif defined(CANNBOT_IMPL_OP)
  return &cannbot_impl_op;
#else
  return nullptr;
#endif
}
#ifndef CANNBOT_TILING_TEMPLATES
#define CANNBOT_TILING_TEMPLATES
#endif
#define CANNBOT_TILING_TEMPLATE(op_type, class_name, priority) \
  {op_type, static_cast<int32_t>(priority), &::cannbot_host_tiling::TILING_CLASS<class_name>},
// The package's REGISTER_TILING_TEMPLATE classes (a placeholder ends the possibly empty list).
inline const ::cannbot_host_tiling::TemplateRecord kTilingTemplates[] = {
    CANNBOT_TILING_TEMPLATES{"", 0, nullptr}};
#undef CANNBOT_TILING_TEMPLATE
}  // namespace cannbot_host_impl

const ::cannbot_host_tiling::TemplateRecord* ::cannbot_host_tiling::PackageTemplates(
    size_t* count) {
  *count = sizeof(::cannbot_host_impl::kTilingTemplates) /
               sizeof(::cannbot_host_impl::kTilingTemplates[0]) - 1;
  return ::cannbot_host_impl::kTilingTemplates;
}

extern "C" ops::TilingFn cannbot_package_tiling_impl() {
  const ::gert::OpImplRecord* r = ::cannbot_host_impl::Tiling();
  return r == nullptr ? nullptr : r->tiling_;
}
// The registered TilingParse and its compile-info struct (both null when none is registered).
extern "C" void cannbot_package_tiling_parse_impl(::gert::OpImplRecord::TilingParseFn* parse,
                                                  void** compile_info) {
  const ::gert::OpImplRecord* r = ::cannbot_host_impl::Tiling();
  *parse = r == nullptr ? nullptr : r->parse_;
  *compile_info = r == nullptr || r->compile_info_ == nullptr ? nullptr : r->compile_info_();
}
extern "C" ops::InferShapeFn cannbot_package_infershape_impl() {
  const ::gert::OpImplRecord* r = ::cannbot_host_impl::InferShape();
  return r == nullptr ? nullptr : r->infer_shape_;
}

#endif  // CANNBOT_HOST_IMPL_H
