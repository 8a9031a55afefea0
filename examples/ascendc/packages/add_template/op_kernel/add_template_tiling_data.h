// AddTemplate's tiling data: a plain struct the host fills in place
// (context->GetTilingData<AddTemplateTilingData>()) and the kernel reads back
// (GET_TILING_DATA_WITH_STRUCT). Shared by op_host and op_kernel.
#ifndef ADD_TEMPLATE_TILING_DATA_H
#define ADD_TEMPLATE_TILING_DATA_H

#include <cstdint>

struct AddTemplateTilingData {
  int64_t totalLength = 0;  // elements of every tensor
  int64_t blockLength = 0;  // elements per core (a whole number of 32-byte blocks)
  int64_t tileLength = 0;   // elements per UB tile (a whole number of 32-byte blocks)
};

#endif  // ADD_TEMPLATE_TILING_DATA_H
