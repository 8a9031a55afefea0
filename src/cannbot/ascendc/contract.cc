#include "cannbot/ascendc/contract.h"

namespace cannbot::ascendc {

std::string TilingSymbol(const ops::OpSpec& op) { return op.name + "_tiling"; }
std::string KernelSymbol(const ops::OpSpec& op) { return op.name + "_kernel"; }

std::string TilingSignature(const ops::OpSpec& op) {
  std::string params;
  for (const ops::Param& p : op.params) {
    if (p.kind == ops::ParamKind::kSize) params += "int64_t " + p.name + ", ";
  }
  for (const ops::Param& p : op.params) {
    if (p.kind == ops::ParamKind::kScalar) params += "float " + p.name + ", ";
  }
  return "extern \"C\" void " + TilingSymbol(op) + "(" + params + "CannbotTiling* tiling)";
}

std::string KernelSignature(const ops::OpSpec& op) {
  std::string params;
  for (const ops::Param& p : op.params) {
    if (p.IsTensor()) params += "GM_ADDR " + p.name + ", ";
  }
  return "extern \"C\" __global__ __aicore__ void " + KernelSymbol(op) + "(" + params +
         "GM_ADDR tiling)";
}

std::string DescribeAscendcContract(const ops::OpSpec& op) {
  return "Target ascendc: an Ascend C vector kernel. It is compiled against cannbot's CPU "
         "emulation of Ascend C (`#include \"kernel_operator.h\"`), checked against the same "
         "fp32 reference, and its speed is estimated for a 910B-class NPU from the work it "
         "does (bytes copied, vector repeats, scalar work, cores used, overlap).\n\n"
         "Define exactly these two functions:\n"
         "```cpp\n" +
         TilingSignature(op) + ";  // host side\n" + KernelSignature(op) +
         ";  // one call per block\n"
         "```\n"
         "- The tiling function runs on the host: set `tiling->block_dim` (1..65535 blocks; a "
         "multiple of CANNBOT_VECTOR_CORES, 48 by default, fills the device), "
         "`tiling->dtype_bits` (32: the tensors are float in global memory; 16: half, judged "
         "by the CANN fp16 standard) and your own parameters in `tiling->data` (2048 bytes; "
         "memcpy a struct in). CANNBOT_UB_BYTES (196608) is the Unified Buffer per core.\n"
         "- The kernel receives the tensors as global-memory addresses in parameter order, "
         "then the tiling block; read your struct with "
         "`*reinterpret_cast<__gm__ const MyTiling*>(tiling)`. Every block runs the kernel "
         "once with GetBlockIdx() = 0..block_dim-1 and must cover its share of every output.\n"
         "- Supported: GlobalTensor (SetGlobalBuffer, operator[], GetSize), LocalTensor "
         "(GetValue/SetValue for scalar code, operator[]), TPipe::InitBuffer, "
         "TQue<QuePosition::VECIN/VECOUT, depth> (AllocTensor, EnQue, DeQue, FreeTensor), "
         "TBuf<TPosition::VECCALC> (Get), DataCopy (count form and DataCopyParams), "
         "DataCopyPad (DataCopyExtParams, DataCopyPadExtParams), the count forms of Add, Sub, "
         "Mul, Div, Max, Min, Adds, Muls, Maxs, Mins, LeakyRelu, Axpy, Exp, Ln, Abs, Sqrt, "
         "Rsqrt, Reciprocal, Relu, Duplicate, Cast (half<->float with RoundMode), ReduceSum, "
         "ReduceMax, ReduceMin (count form with a work tensor), WholeReduceSum/Max/Min "
         "(mask-continuous form), GetBlockIdx, GetBlockNum, PipeBarrier<PIPE_ALL>, "
         "SetFlag/WaitFlag<HardEvent::...>. Nothing else (no mask/repeat-parameter forms of "
         "the arithmetic, no cube unit, no workspace).\n"
         "- Enforced rules (a broken rule rejects the kernel with the rule's name): all queues "
         "and buffers fit the UB; DataCopy lengths are whole 32-byte blocks (use DataCopyPad "
         "for tails) and UB operands start 32-byte aligned; copies stay inside their tensor and "
         "never write inputs; global memory is touched only through copies; every AllocTensor "
         "is freed and every EnQue dequeued; EnQue never exceeds the queue depth; vector or "
         "scalar code reads a copied-in tensor only after DeQue (or WaitFlag<MTE2_V>, "
         "PipeBarrier<PIPE_ALL>), and a UB->GM copy reads only dequeued (or synchronised) "
         "data.\n";
}

}  // namespace cannbot::ascendc
