// SoftmaxCustom's tiling data: the row split over cores and UB tiles, and the tiling of the
// SoftMax high-level API for one tile, filled on the host by SoftMaxTilingFunc.
#ifndef SOFTMAX_CUSTOM_TILING_H
#define SOFTMAX_CUSTOM_TILING_H
#include "register/tilingdata_base.h"
#include "tiling/tiling_api.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(SoftmaxCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, rows);         // rows of x (every dimension but the last)
TILING_DATA_FIELD_DEF(uint32_t, cols);         // elements per row
TILING_DATA_FIELD_DEF(uint32_t, paddedCols);   // a row in UB: whole 32-byte blocks
TILING_DATA_FIELD_DEF(uint32_t, rowsPerCore);  // the last core takes the rest
TILING_DATA_FIELD_DEF(uint32_t, tileRows);     // rows per UB tile
TILING_DATA_FIELD_DEF_STRUCT(SoftMaxTiling, softmaxTilingData);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(SoftmaxCustom, SoftmaxCustomTilingData)
}  // namespace optiling
#endif  // SOFTMAX_CUSTOM_TILING_H
