// AddCustom's tiling data: what the host tiling function computes and every core reads.
#ifndef ADD_CUSTOM_TILING_H
#define ADD_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(AddCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);  // elements of each tensor
TILING_DATA_FIELD_DEF(uint32_t, blockLength);  // elements per core (the last core: the rest)
TILING_DATA_FIELD_DEF(uint32_t, tileLength);   // elements per UB buffer
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(AddCustom, AddCustomTilingData)
}  // namespace optiling
#endif  // ADD_CUSTOM_TILING_H
