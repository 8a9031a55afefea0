// Catalog: normalization ops.
#include "cannbot/ops/registry.h"

namespace cannbot::ops {

void AddNormalizationOps(std::vector<OpSpec>* ops) { (void)ops; }

}  // namespace cannbot::ops
