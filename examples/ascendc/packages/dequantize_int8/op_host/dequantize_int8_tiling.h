// DequantizeInt8's tiling data: the element count, each core's share and UB tile (both whole
// 32-byte blocks of int8), and the scale from the OpDef's attribute.
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(DequantizeInt8TilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, blockLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
TILING_DATA_FIELD_DEF(float, scale);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(DequantizeInt8, DequantizeInt8TilingData)
}  // namespace optiling
