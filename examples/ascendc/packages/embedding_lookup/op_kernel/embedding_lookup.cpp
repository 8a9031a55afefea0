// EmbeddingLookup, device side: each core reads its tokens' int32 ids from global memory with
// the scalar unit and moves each picked table row through UB to its place in y. DataCopyPad
// moves a row of any length (a row of 19 floats is not a whole 32-byte block).
#include "kernel_operator.h"

extern "C" __global__ __aicore__ void embedding_lookup(GM_ADDR table, GM_ADDR ids, GM_ADDR y,
                                                       GM_ADDR workspace, GM_ADDR tiling) {
  GET_TILING_DATA(t, tiling);
  const uint32_t first = t.perCore * AscendC::GetBlockIdx();
  if (first >= t.tokens) return;
  const uint32_t count = t.tokens - first < t.perCore ? t.tokens - first : t.perCore;

  AscendC::GlobalTensor<float> tableGm, yGm;
  AscendC::GlobalTensor<int32_t> idGm;
  tableGm.SetGlobalBuffer((__gm__ float*)table);
  idGm.SetGlobalBuffer((__gm__ int32_t*)ids + first, count);
  yGm.SetGlobalBuffer((__gm__ float*)y + static_cast<uint64_t>(first) * t.dim,
                      static_cast<uint64_t>(count) * t.dim);

  AscendC::TPipe pipe;
  AscendC::TBuf<AscendC::TPosition::VECCALC> rowBuf;
  pipe.InitBuffer(rowBuf, (t.dim * sizeof(float) + 31) / 32 * 32);
  AscendC::LocalTensor<float> row = rowBuf.Get<float>();
  const AscendC::DataCopyExtParams rowCopy{1, static_cast<uint32_t>(t.dim * sizeof(float)), 0, 0,
                                           0};
  const AscendC::DataCopyPadExtParams<float> noPad{false, 0, 0, 0.0f};
  for (uint32_t i = 0; i < count; ++i) {
    const int32_t id = idGm.GetValue(i);
    AscendC::DataCopyPad(row, tableGm[static_cast<uint64_t>(id) * t.dim], rowCopy, noPad);
    AscendC::PipeBarrier<PIPE_ALL>();
    AscendC::DataCopyPad(yGm[static_cast<uint64_t>(i) * t.dim], row, rowCopy);
    AscendC::PipeBarrier<PIPE_ALL>();
  }
}
