// cannbot_tiling_types.h: the tiling structs of the Ascend C high-level APIs (SoftMaxTiling,
// LayerNormTiling, RmsNormTiling), seen alike by an operator package's host code (through
// tiling/tiling_api.h, where the tiling functions fill them and TILING_DATA_FIELD_DEF_STRUCT
// embeds them in the package's tiling data) and by its kernel (through kernel_operator.h, where
// SoftMax, LayerNorm and RmsNorm read them).
//
// They live in namespace cannbot_tiling, so a kernel that declares its own `LayerNormTiling`
// (as cannbot's own examples do) keeps the name; tiling/tiling_api.h makes them the global and
// optiling:: names a package's tiling header uses, as CANN's kernel_tiling header does.
//
// They are plain structs of uint32_t fields named as the public documentation names them; the
// values are cannbot's (docs/ascendc.md, "High-level APIs"): the kernel side reads only the
// shape fields, so a tiling made by cannbot's tiling functions and one a kernel fills by hand
// with the same shape compute the same result.
//
// Written from the public Ascend C documentation; not vendor code. Thread-safety: plain data.
#ifndef CANNBOT_TILING_TYPES_H
#define CANNBOT_TILING_TYPES_H

#include <cstdint>

namespace cannbot_tiling {

struct SoftMaxTiling {
  uint32_t srcM = 0;  // rows: the product of every dimension but the last
  uint32_t srcK = 0;  // elements per row (the last dimension, 32-byte aligned)
  uint32_t srcSize = 0;
  uint32_t outMaxM = 0;  // sum and max: one 32-byte block per row
  uint32_t outMaxK = 0;
  uint32_t outMaxSize = 0;
  uint32_t splitM = 0;
  uint32_t splitK = 0;
  uint32_t splitSize = 0;
  uint32_t reduceM = 0;
  uint32_t reduceK = 0;
  uint32_t reduceSize = 0;
  uint32_t rangeM = 0;
  uint32_t tailM = 0;
  uint32_t tailSplitSize = 0;
  uint32_t tailReduceSize = 0;
};

struct LayerNormTiling {
  uint32_t bLength = 0;  // input [B, S, H], normalised over H
  uint32_t sLength = 0;
  uint32_t hLength = 0;          // H as laid out (32-byte aligned)
  uint32_t originalHLength = 0;  // H as the data has it (<= hLength)
  uint32_t inputXSize = 0;
  uint32_t meanVarSize = 0;
  uint32_t numberOfTmpBuf = 0;
  uint32_t tmpBufSize = 0;
  uint32_t oneTmpSize = 0;
  uint32_t loopRound = 0;
  uint32_t inputRoundSize = 0;
  uint32_t inputTailSize = 0;
  uint32_t inputTailPos = 0;
  uint32_t meanVarRoundSize = 0;
  uint32_t meanVarTailSize = 0;
  uint32_t meanVarTailPos = 0;
  uint32_t bshCurLength = 0;
  uint32_t bsCurLength = 0;
  float lastDimValueBack = 0.0f;  // 1 / originalHLength
};

struct RmsNormTiling {
  uint32_t bLength = 0;  // input [B, S, H], normalised over H
  uint32_t sLength = 0;
  uint32_t hLength = 0;
  uint32_t originalHLength = 0;
  float reciprocalOfHLength = 0.0f;
  uint32_t mainBshLength = 0;
  uint32_t mainBsLength = 0;
  uint32_t mainBsLengthAlign = 0;
  uint32_t loopRound = 0;
  uint32_t inputTailPos = 0;
  uint32_t tailBshLength = 0;
  uint32_t tailBsLength = 0;
};

}  // namespace cannbot_tiling

#endif  // CANNBOT_TILING_TYPES_H
