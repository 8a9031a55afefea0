// Catalog: linear ops.
#include "cannbot/ops/registry.h"

namespace cannbot::ops {

void AddLinearOps(std::vector<OpSpec>* ops) { (void)ops; }

}  // namespace cannbot::ops
