// cannbot_tiling.h: the tiling block an `ascendc` kernel's host function fills, and the
// compile-time device description that function may consult.
//
// This header is plain C/C++ with no emulation in it, so the same kernel file builds against
// cannbot's CPU emulation and against the vendor toolchain on a board (include it next to the
// vendor's kernel_operator.h there). The contract is in docs/kernel-abi.md, "ascendc target".
//
// Ownership: a CannbotTiling is a value owned by whoever launches the kernel (cannbot's
// generated wrapper); the kernel receives `data` as its last GM_ADDR argument and only reads it.
// Thread-safety: plain data.
#ifndef CANNBOT_TILING_H
#define CANNBOT_TILING_H

#include <stdint.h>

// The device the kernel is tiled for. cannbot compiles with -D overrides taken from its device
// profile, so a tiling that reads these adapts to the profile instead of hard-coding 48.
#ifndef CANNBOT_VECTOR_CORES
#define CANNBOT_VECTOR_CORES 48  // vector (AIV) cores of a 910B-class device
#endif
#ifndef CANNBOT_UB_BYTES
#define CANNBOT_UB_BYTES 196608  // Unified Buffer per core: 192 KB
#endif
#ifndef CANNBOT_QUE_BUFFERS_PER_POSITION
#define CANNBOT_QUE_BUFFERS_PER_POSITION 8  // queue buffers on one TPosition (Atlas A2)
#endif
// The cube unit's memories of a 910B-class AI core: L1, L0A, L0B, L0C.
#ifndef CANNBOT_L1_BYTES
#define CANNBOT_L1_BYTES 524288
#endif
#ifndef CANNBOT_L0A_BYTES
#define CANNBOT_L0A_BYTES 65536
#endif
#ifndef CANNBOT_L0B_BYTES
#define CANNBOT_L0B_BYTES 65536
#endif
#ifndef CANNBOT_L0C_BYTES
#define CANNBOT_L0C_BYTES 131072
#endif

// Bytes in the opaque tiling area; the kernel casts it to its own struct.
// 2048: the documented default of an operator's tiling data (max_tiling_data_size).
#define CANNBOT_TILING_DATA_BYTES 2048

struct CannbotTiling {
  // Number of blocks (kernel instances) to launch, 1..65535. Each block runs the kernel once
  // with GetBlockIdx() = 0..block_dim-1; blocks beyond the core count run in later waves.
  uint32_t block_dim;
  // Element type of every tensor in global memory: 32 = float, 16 = half. With 16, the
  // launcher converts the fp32 inputs to half before the kernel runs and the half outputs back
  // to fp32 afterwards.
  uint32_t dtype_bits;
  // Kernel-defined tiling parameters (sizes, tile lengths, scalars such as eps).
  alignas(8) uint8_t data[CANNBOT_TILING_DATA_BYTES];
};

#endif  // CANNBOT_TILING_H
