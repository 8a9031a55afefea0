// kernel_operator.h: cannbot's CPU emulation of the Ascend C vector programming subset.
//
// An `ascendc` kernel includes this header exactly as it includes the vendor's on a board. It
// provides the kernel qualifiers and GM_ADDR, half (_Float16), GlobalTensor, LocalTensor,
// TPipe, TQue, TBuf, DataCopy/DataCopyPad, the count forms of the vector instructions, Cast,
// the reductions a softmax or layernorm needs, GetBlockIdx/GetBlockNum, PipeBarrier and
// SetFlag/WaitFlag. It enforces the hardware's rules (UB budget, copy alignment, queue depth and
// pairing, no element access to global memory, pipe hand-offs) and counts the work the cost
// model needs. Anything outside the subset fails to compile; the supported list and every rule
// are in docs/ascendc.md.
//
// The emulation is ours, written from the public Ascend C documentation; it is not vendor code.
// Thread-safety: single-threaded by design (blocks run one after another).
#ifndef CANNBOT_KERNEL_OPERATOR_H
#define CANNBOT_KERNEL_OPERATOR_H

#include <cstdint>

#define CANNBOT_ASCENDC_EMULATION 1

// Kernel qualifiers: meaningful to the vendor compiler, empty on the CPU.
#define __global__
#define __aicore__
#define __gm__
#define __ubuf__
#define GM_ADDR __gm__ uint8_t*
#define __vector__
#define __cube__
#define KERNEL_TASK_TYPE_DEFAULT(type)
#define KERNEL_TASK_TYPE(key, type)

using half = _Float16;

#include "cannbot_ascendc_copy.h"
#include "cannbot_ascendc_runtime.h"
#include "cannbot_ascendc_tensor.h"
#include "cannbot_ascendc_vector.h"
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
#define GET_TILING_DATA_WITH_STRUCT(type, var, tiling) \
  type var;                                            \
  ::cannbot_ascendc::LoadTiling(&var, tiling)
#define TILING_KEY_IS(key) (::cannbot_ascendc::R().TilingKeyIs(static_cast<uint64_t>(key)))
#define ASSERT(cond)                                                                   \
  do {                                                                                 \
    if (!(cond)) ::cannbot_ascendc::Violation("assert", "ASSERT(%s) failed", #cond);   \
  } while (0)

namespace AscendC {
// The user part of the workspace: cannbot's launch has no system workspace in front of it.
inline GM_ADDR GetUserWorkspace(GM_ADDR workspace) { return workspace; }
inline GM_ADDR GetSysWorkSpacePtr() { return nullptr; }
inline void SetSysWorkspace(GM_ADDR) {}
constexpr uint32_t ONE_BLK_SIZE = 32;
constexpr uint32_t ONE_REPEAT_BYTE_SIZE = 256;
constexpr uint32_t DEFAULT_BLK_NUM = 8;
constexpr uint32_t TOTAL_UB_SIZE = CANNBOT_UB_BYTES;
}  // namespace AscendC

#endif  // CANNBOT_KERNEL_OPERATOR_H
