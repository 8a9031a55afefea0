// The tiling the host passes to add_custom by value: how many elements in all, and into how
// many tiles each core splits its share.
#ifndef ADD_CUSTOM_TILING_H
#define ADD_CUSTOM_TILING_H
#include <cstdint>

struct AddCustomTilingData {
  uint32_t totalLength;
  uint32_t tileNum;
};

#endif  // ADD_CUSTOM_TILING_H
