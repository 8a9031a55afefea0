// LayerNormCustom's tiling data: what the host tiling function computes and every core reads.
#ifndef LAYERNORM_CUSTOM_TILING_H
#define LAYERNORM_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(LayerNormCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, rows);         // rows of x and y (every dimension but the last)
TILING_DATA_FIELD_DEF(uint32_t, cols);         // the normalised (last) dimension
TILING_DATA_FIELD_DEF(uint32_t, colsAligned);  // cols rounded up to whole 32-byte blocks of T
TILING_DATA_FIELD_DEF(uint32_t, rowsPerTile);  // rows per UB buffer
TILING_DATA_FIELD_DEF(float, eps);             // added to the variance inside the square root
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(LayerNormCustom, LayerNormCustomTilingData)
}  // namespace optiling
#endif  // LAYERNORM_CUSTOM_TILING_H
