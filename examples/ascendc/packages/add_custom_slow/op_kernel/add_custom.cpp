// AddCustom (z = x + y), kernel side, slow version: one buffer per queue (copies and compute
// never overlap) and an element-by-element scalar loop instead of a vector instruction.
#include "kernel_operator.h"

using namespace AscendC;

class KernelAdd {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t total, uint32_t tile) {
    total_ = total;
    tile_ = tile;
    xGm_.SetGlobalBuffer((__gm__ DTYPE_X*)x, total_);
    yGm_.SetGlobalBuffer((__gm__ DTYPE_Y*)y, total_);
    zGm_.SetGlobalBuffer((__gm__ DTYPE_Z*)z, total_);
    pipe_.InitBuffer(inX_, 1, tile_ * sizeof(DTYPE_X));
    pipe_.InitBuffer(inY_, 1, tile_ * sizeof(DTYPE_Y));
    pipe_.InitBuffer(outZ_, 1, tile_ * sizeof(DTYPE_Z));
  }

  __aicore__ inline void Process() {
    for (uint32_t offset = 0; offset < total_; offset += tile_) {
      const uint32_t n = total_ - offset < tile_ ? total_ - offset : tile_;
      LocalTensor<DTYPE_X> x = inX_.AllocTensor<DTYPE_X>();
      LocalTensor<DTYPE_Y> y = inY_.AllocTensor<DTYPE_Y>();
      const DataCopyExtParams params(1, n * static_cast<uint32_t>(sizeof(DTYPE_X)), 0, 0, 0);
      DataCopyPad(x, xGm_[offset], params, DataCopyPadExtParams<DTYPE_X>(false, 0, 0, 0));
      DataCopyPad(y, yGm_[offset], params, DataCopyPadExtParams<DTYPE_Y>(false, 0, 0, 0));
      inX_.EnQue(x);
      inY_.EnQue(y);
      x = inX_.DeQue<DTYPE_X>();
      y = inY_.DeQue<DTYPE_Y>();
      LocalTensor<DTYPE_Z> z = outZ_.AllocTensor<DTYPE_Z>();
      for (uint32_t i = 0; i < n; ++i) z.SetValue(i, x.GetValue(i) + y.GetValue(i));
      outZ_.EnQue(z);
      inX_.FreeTensor(x);
      inY_.FreeTensor(y);
      z = outZ_.DeQue<DTYPE_Z>();
      DataCopyPad(zGm_[offset], z, params);
      outZ_.FreeTensor(z);
    }
  }

 private:
  TPipe pipe_;
  TQue<QuePosition::VECIN, 1> inX_, inY_;
  TQue<QuePosition::VECOUT, 1> outZ_;
  GlobalTensor<DTYPE_X> xGm_;
  GlobalTensor<DTYPE_Y> yGm_;
  GlobalTensor<DTYPE_Z> zGm_;
  uint32_t total_ = 0, tile_ = 0;
};

extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z,
                                                 GM_ADDR workspace, GM_ADDR tiling) {
  GET_TILING_DATA(tilingData, tiling);
  KernelAdd op;
  op.Init(x, y, z, tilingData.totalLength, tilingData.tileLength);
  op.Process();
}
