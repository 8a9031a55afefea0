// SwishCustom (y = x / (1 + exp(-x))), kernel side, slow version: one buffer per queue (copies
// and compute never overlap) and an element-by-element scalar loop in float.
#include <cmath>

#include "kernel_operator.h"

using namespace AscendC;

class KernelSwish {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t total, uint32_t tile) {
    total_ = total;
    tile_ = tile;
    xGm_.SetGlobalBuffer((__gm__ DTYPE_X*)x, total_);
    yGm_.SetGlobalBuffer((__gm__ DTYPE_Y*)y, total_);
    pipe_.InitBuffer(inX_, 1, tile_ * sizeof(DTYPE_X));
    pipe_.InitBuffer(outY_, 1, tile_ * sizeof(DTYPE_Y));
  }

  __aicore__ inline void Process() {
    for (uint32_t offset = 0; offset < total_; offset += tile_) {
      const uint32_t n = total_ - offset < tile_ ? total_ - offset : tile_;
      const DataCopyExtParams params(1, n * static_cast<uint32_t>(sizeof(DTYPE_X)), 0, 0, 0);
      LocalTensor<DTYPE_X> x = inX_.AllocTensor<DTYPE_X>();
      DataCopyPad(x, xGm_[offset], params, DataCopyPadExtParams<DTYPE_X>(false, 0, 0, 0.0f));
      inX_.EnQue(x);
      x = inX_.DeQue<DTYPE_X>();
      LocalTensor<DTYPE_Y> y = outY_.AllocTensor<DTYPE_Y>();
      for (uint32_t i = 0; i < n; ++i) {
        const float v = static_cast<float>(x.GetValue(i));
        y.SetValue(i, static_cast<DTYPE_Y>(v / (1.0f + std::exp(-v))));
      }
      outY_.EnQue(y);
      inX_.FreeTensor(x);
      y = outY_.DeQue<DTYPE_Y>();
      DataCopyPad(yGm_[offset], y, params);
      outY_.FreeTensor(y);
    }
  }

 private:
  TPipe pipe_;
  TQue<QuePosition::VECIN, 1> inX_;
  TQue<QuePosition::VECOUT, 1> outY_;
  GlobalTensor<DTYPE_X> xGm_;
  GlobalTensor<DTYPE_Y> yGm_;
  uint32_t total_ = 0, tile_ = 0;
};

extern "C" __global__ __aicore__ void swish_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace,
                                                   GM_ADDR tiling) {
  GET_TILING_DATA(tilingData, tiling);
  KernelSwish op;
  op.Init(x, y, tilingData.totalLength, tilingData.tileLength);
  op.Process();
}
