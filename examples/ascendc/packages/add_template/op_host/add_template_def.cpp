// AddTemplate's operator definition: two inputs and an output of the same dtype (fp32, fp16,
// bf16 or int32) and shape. The tiling and shape inference are registered beside it
// (IMPL_OP_OPTILING, IMPL_OP_INFERSHAPE), as the current operator repositories do.
#include "register/op_def_registry.h"

namespace ops {
class AddTemplate : public OpDef {
 public:
  explicit AddTemplate(const char* name) : OpDef(name) {
    for (const char* input : {"x", "y"}) {
      this->Input(input)
          .ParamType(REQUIRED)
          .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16, ge::DT_INT32})
          .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
    }
    this->Output("z")
        .ParamType(REQUIRED)
        .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16, ge::DT_INT32})
        .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
    this->AICore().AddConfig("ascend910b");
  }
};
OP_ADD(AddTemplate);
}  // namespace ops
