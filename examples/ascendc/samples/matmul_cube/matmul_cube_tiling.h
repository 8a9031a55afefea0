// The tiling the host passes to matmul_cube by value: the matrix sizes, and the tile of C
// (baseM x baseN) one core computes at a time, K taken baseK at a time.
#ifndef MATMUL_CUBE_TILING_H
#define MATMUL_CUBE_TILING_H
#include <cstdint>

struct MatmulCubeTiling {
  uint32_t m, n, k;
  uint32_t baseM, baseN, baseK;
};

#endif  // MATMUL_CUBE_TILING_H
