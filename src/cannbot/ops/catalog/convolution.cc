// Catalog: convolution ops.
#include "cannbot/ops/registry.h"

namespace cannbot::ops {

void AddConvolutionOps(std::vector<OpSpec>* ops) { (void)ops; }

}  // namespace cannbot::ops
