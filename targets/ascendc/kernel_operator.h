// kernel_operator.h: cannbot's CPU emulation of the Ascend C programming subset (vector, and
// the cube unit's low-level matrix path).
//
// An `ascendc` kernel includes this header exactly as it includes the vendor's on a board. It
// provides the kernel qualifiers and GM_ADDR, half (_Float16), GlobalTensor, LocalTensor,
// TPipe, TQue, TBuf, DataCopy/DataCopyPad, the count and mask/repeat forms of the vector
// instructions, Cast, Compare/Select, the reductions a softmax or layernorm needs,
// GetBlockIdx/GetBlockNum, PipeBarrier and SetFlag/WaitFlag, SyncAll between blocks and the
// atomic modes of copies out, and the matrix path (L1/L0
// positions, LoadData, Mmad, Fixpipe). It enforces the hardware's rules (memory budgets, copy
// alignment, queue depth and pairing, no element access to global memory, pipe hand-offs) and
// counts the work the cost model needs. Anything outside the subset fails to compile; the supported list and every rule
// are in docs/ascendc.md.
//
// The emulation is ours, written from the public Ascend C documentation; it is not vendor code.
// Thread-safety: single-threaded by design (blocks run one after another).
#ifndef CANNBOT_KERNEL_OPERATOR_H
#define CANNBOT_KERNEL_OPERATOR_H

#include <cstdint>

#define CANNBOT_ASCENDC_EMULATION 1
// The device compiler's architecture macro: cannbot emulates an Atlas A2 (910B-class) vector
// core, architecture 220, so kernels take their A2 branches (`#if __CCE_AICORE__ == 220`).
#ifndef __CCE_AICORE__
#define __CCE_AICORE__ 220
#endif
// Branch hints the device toolchain defines (`if (likely(n > 0))`).
#ifndef likely
#define likely(x) __builtin_expect(!!(x), 1)
#endif
#ifndef unlikely
#define unlikely(x) __builtin_expect(!!(x), 0)
#endif

// Kernel qualifiers: meaningful to the vendor compiler, empty on the CPU.
#define __global__
#define __aicore__
#define __gm__
#define __ubuf__
#define GM_ADDR __gm__ uint8_t*
#define __vector__
#define __cube__
// The core a kernel declares it runs on: AIC_ONLY makes the block a cube core for the
// ASCEND_IS_AIC/ASCEND_IS_AIV tests below; every other type runs as a vector core.
enum CannbotKernelType : int {
  KERNEL_TYPE_AIV_ONLY, KERNEL_TYPE_AIC_ONLY, KERNEL_TYPE_MIX_AIV_1_0, KERNEL_TYPE_MIX_AIC_1_0,
  KERNEL_TYPE_MIX_AIC_1_1, KERNEL_TYPE_MIX_AIC_1_2, KERNEL_TYPE_MIX_VECTOR_CORE
};
#define KERNEL_TASK_TYPE_DEFAULT(type) \
  { ::cannbot_ascendc::R().set_cube_core((type) == KERNEL_TYPE_AIC_ONLY); }
#define KERNEL_TASK_TYPE(key, type)                                         \
  {                                                                         \
    if (::cannbot_ascendc::R().tiling_key() == static_cast<uint64_t>(key)) \
      ::cannbot_ascendc::R().set_cube_core((type) == KERNEL_TYPE_AIC_ONLY); \
  }

using half = _Float16;
using float16_t = _Float16;  // the vendor headers' other name for half
using float32_t = float;

// bfloat16_t: the storage type of bf16 tensors. On the device most vector instructions do not
// take it; kernels Cast to float, compute, and Cast back (with a RoundMode), and so must they
// here: vector math on bfloat16_t fails to compile with a message saying so. Conversions:
// float -> bf16 rounds to nearest even (NaN stays NaN), bf16 -> float is exact.
struct bfloat16_t {
  uint16_t bits;
  bfloat16_t() = default;
  bfloat16_t(float value) {  // NOLINT: implicit, as the device type converts
    uint32_t u;
    __builtin_memcpy(&u, &value, 4);
    bits = (u & 0x7fffffffu) > 0x7f800000u
               ? static_cast<uint16_t>((u >> 16) | 0x40u)
               : static_cast<uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
  }
  operator float() const {
    const uint32_t u = static_cast<uint32_t>(bits) << 16;
    float value;
    __builtin_memcpy(&value, &u, 4);
    return value;
  }
};
// The device compiler's own name for the bf16 type (kernels test `std::is_same_v<T, __bf16>`).
// GCC 13 and later have a built-in __bf16 of their own (and define __BFLT16_MAX__), distinct
// from this struct; Debian 12's GCC 12 has none.
#ifndef __BFLT16_MAX__
using __bf16 = bfloat16_t;
#endif

#include "cannbot_ascendc_copy.h"
#include "cannbot_ascendc_runtime.h"
#include "cannbot_ascendc_tensor.h"
#include "cannbot_ascendc_queue.h"
#include "cannbot_ascendc_blocks.h"
#include "cannbot_ascendc_vector.h"
#include "cannbot_ascendc_cast.h"
#include "cannbot_ascendc_cube.h"
#include "cannbot_ascendc_reduce.h"
#include "cannbot_ascendc_repeat.h"
#include "cannbot_ascendc_math.h"
#include "cannbot_ascendc_math_unary.h"
#include "cannbot_ascendc_math_binary.h"
#include "cannbot_ascendc_nn.h"
#include "cannbot_ascendc_bitwise.h"
#include "cannbot_ascendc_reduce_by_type.h"
#include "cannbot_ascendc_debug.h"
#include "cannbot_ascendc_reg.h"
#include "cannbot_ascendc_reg_moves.h"
#include "cannbot_ascendc_reg_mask_moves.h"
#include "cannbot_ascendc_reg_discrete.h"
#include "cannbot_ascendc_reg_gather_mask.h"
#include "cannbot_ascendc_reg_compute.h"
#include "cannbot_ascendc_reg_bits.h"
#include "cannbot_tiling.h"

// The tiling an operator package's kernel reads (docs/ascendc.md, "Operator packages"): the
// struct its op_host declared with BEGIN_TILING_DATA_DEF, copied out of the tiling block.
// CANNBOT_TILING_TYPE is defined by the package's generated header.
namespace cannbot_ascendc {
template <typename T>
inline void LoadTiling(T* out, const void* tiling) {
  if (tiling == nullptr) Violation("tiling", "GET_TILING_DATA on a launch without a tiling block");
  std::memcpy(static_cast<void*>(out), tiling, sizeof(T));
}
}  // namespace cannbot_ascendc
#define GET_TILING_DATA(var, tiling) \
  CANNBOT_TILING_TYPE var;           \
  ::cannbot_ascendc::LoadTiling(&var, tiling)
// REGISTER_TILING_DEFAULT(T): the struct GET_TILING_DATA reads in this kernel (the newer
// repositories' plain tiling structs); the package's generated header points
// CANNBOT_TILING_TYPE here when no REGISTER_TILING_DATA_CLASS names one.
#define REGISTER_TILING_DEFAULT(type) using cannbot_registered_tiling = type
#define REGISTER_TILING_FOR_TILINGKEY(condition, type) static_assert(true, "")
#define CANNBOT_REGISTERED_TILING cannbot_registered_tiling
#define GET_TILING_DATA_WITH_STRUCT(type, var, tiling) \
  type var;                                            \
  ::cannbot_ascendc::LoadTiling(&var, tiling)
#define TILING_KEY_IS(key) (::cannbot_ascendc::R().TilingKeyIs(static_cast<uint64_t>(key)))
// ASSERT: the device build compiles it to nothing, argument included, so published kernels
// rely on that (`x = n ASSERT(n != 0);`, a name only the CPU-debug build declares); cannbot's
// emulation does the same. ascendc_assert is the documented check that stays in NPU builds:
// a false condition stops the launch as the "assert" rule, naming the condition.
#define ASSERT(...)
// ASCENDC_ASSERT(cond, behavior): the CPU-debug build's check (the NPU build drops it): a false
// condition runs `behavior` (usually a KERNEL_LOG) and stops the launch as the "assert" rule.
#define ASCENDC_ASSERT(cond, behavior)                                                    \
  do {                                                                                    \
    if (!(cond)) {                                                                        \
      behavior;                                                                           \
      ::cannbot_ascendc::Violation("assert", "ASCENDC_ASSERT(%s) failed", #cond);         \
    }                                                                                     \
  } while (0)
// KERNEL_LOG(KERNEL_ERROR, format, ...): a log line, printed as AscendC::printf prints.
#define KERNEL_LOG(level, format, ...) ::AscendC::printf("[" #level "] " format "\n", ##__VA_ARGS__)
#define ascendc_assert(cond, ...)                                                        \
  do {                                                                                   \
    if (!(cond)) ::cannbot_ascendc::Violation("assert", "ascendc_assert(%s) failed", #cond); \
  } while (0)

namespace AscendC {
// Which core a kernel's code runs on. cannbot's blocks are vector cores (AIV) unless the kernel
// declares KERNEL_TYPE_AIC_ONLY: a vector kernel's `if ASCEND_IS_AIC { return; }` guard lets
// them through; the matrix path runs inside the block that calls it either way.
enum CoreType : int32_t { AIC = 1, AIV = 2, MIX = 3 };
// The default strides of the mask/repeat forms: one block apart, repeats 8 blocks apart.
constexpr uint8_t DEFAULT_BLK_STRIDE = 1;
constexpr uint8_t DEFAULT_REPEAT_STRIDE = 8;
// The user part of the workspace: cannbot's launch has no system workspace in front of it.
inline GM_ADDR GetUserWorkspace(GM_ADDR workspace) { return workspace; }
inline GM_ADDR GetSysWorkSpacePtr() { return nullptr; }
inline void SetSysWorkspace(GM_ADDR) {}
constexpr uint32_t ONE_BLK_SIZE = 32;
constexpr uint32_t ONE_REPEAT_BYTE_SIZE = 256;
constexpr uint32_t DEFAULT_BLK_NUM = 8;
constexpr uint32_t TOTAL_UB_SIZE = CANNBOT_UB_BYTES;
}  // namespace AscendC
// block_idx and block_num: the device's built-in variables, which newer kernels read directly
// (`x + block_idx * blockLength`); each reads the running block's index, or the launch's block
// dim, when used, as GetBlockIdx/GetBlockNum do.
struct CannbotBlockIdx {
  operator int64_t() const { return AscendC::GetBlockIdx(); }  // NOLINT: reads as a number
};
struct CannbotBlockNum {
  operator int64_t() const { return AscendC::GetBlockNum(); }  // NOLINT: reads as a number
};
inline constexpr CannbotBlockIdx block_idx{};
inline constexpr CannbotBlockNum block_num{};
namespace tik2 = AscendC;  // the name older samples use
#define g_coreType (::cannbot_ascendc::R().cube_core() ? AscendC::AIC : AscendC::AIV)
#define ASCEND_IS_AIV (g_coreType == AscendC::AIV)
#define ASCEND_IS_AIC (g_coreType == AscendC::AIC)

#endif  // CANNBOT_KERNEL_OPERATOR_H
