// ReduceSumAtomic's tiling data: the column split over cores, each core's share of the output
// to zero, and the rows per UB tile.
#ifndef REDUCE_SUM_ATOMIC_TILING_H
#define REDUCE_SUM_ATOMIC_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(ReduceSumAtomicTilingData)
TILING_DATA_FIELD_DEF(uint32_t, rows);         // rows of x (every dimension but the last)
TILING_DATA_FIELD_DEF(uint32_t, cols);         // elements per row
TILING_DATA_FIELD_DEF(uint32_t, colsPerCore);  // whole 32-byte blocks; the last core takes less
TILING_DATA_FIELD_DEF(uint32_t, rowsPerCore);  // each core's share of y to zero
TILING_DATA_FIELD_DEF(uint32_t, tileRows);     // rows per UB tile
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(ReduceSumAtomic, ReduceSumAtomicTilingData)
}  // namespace optiling
#endif  // REDUCE_SUM_ATOMIC_TILING_H
