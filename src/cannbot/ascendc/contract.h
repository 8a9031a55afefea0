// The `ascendc` kernel contract for one op, as text: the entry points a kernel must define and
// the prompt paragraph that explains them to a model.
//
// A kernel for op OP defines, next to `#include "kernel_operator.h"`:
//   extern "C" void OP_tiling(<int64_t sizes...>, <float scalars...>, CannbotTiling* tiling);
//   extern "C" __global__ __aicore__ void OP_kernel(GM_ADDR <tensor>..., GM_ADDR tiling);
// with the op's tensors, sizes and scalars in the cpu contract's order (docs/kernel-abi.md).
//
// Thread-safety: pure functions.
#pragma once

#include <string>

#include "cannbot/ops/op_spec.h"

namespace cannbot::ascendc {

// extern "C" void swish_tiling(int64_t n, CannbotTiling* tiling)
std::string TilingSignature(const ops::OpSpec& op);
// extern "C" __global__ __aicore__ void swish_kernel(GM_ADDR x, GM_ADDR y, GM_ADDR tiling)
std::string KernelSignature(const ops::OpSpec& op);
// "swish_tiling", "swish_kernel": the symbols a built kernel must export.
std::string TilingSymbol(const ops::OpSpec& op);
std::string KernelSymbol(const ops::OpSpec& op);

// The contract paragraph for prompts: both signatures, what the tiling fills, the supported
// Ascend C subset and the rules the emulation enforces. Appended to the op's own description
// when the target is `ascendc`.
std::string DescribeAscendcContract(const ops::OpSpec& op);

}  // namespace cannbot::ascendc
