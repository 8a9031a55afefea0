// GeluCustom's tiling data: what the host tiling function computes and every core reads.
#ifndef GELU_CUSTOM_TILING_H
#define GELU_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(GeluCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);  // elements of x and y
TILING_DATA_FIELD_DEF(uint32_t, blockLength);  // elements per core (the last core: the rest)
TILING_DATA_FIELD_DEF(uint32_t, tileLength);   // elements per UB buffer
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(GeluCustom, GeluCustomTilingData)
}  // namespace optiling
#endif  // GELU_CUSTOM_TILING_H
