// AddTemplate's shape inference: z has the broadcast shape of x and y (here always equal).
#include "log/log.h"
#include "register/op_impl_registry.h"

namespace ops {
static ge::graphStatus InferShapeAddTemplate(gert::InferShapeContext* context) {
  OP_LOGD(context, "InferShapeAddTemplate");
  return Ops::Base::InferShape4Elewise(context);
}
IMPL_OP_INFERSHAPE(AddTemplate).InferShape(InferShapeAddTemplate);
}  // namespace ops
