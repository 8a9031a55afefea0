// DequantizeInt8 (y = float(x) * scale), kernel side: every core streams its chunk through
// double-buffered tiles; int8 converts to half and half to float exactly (Cast does not go
// from int8 to float in one step on the device), then one multiplication rounds once.
#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

class KernelDequantize {
 public:
  __aicore__ inline KernelDequantize() {}
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t totalLength, uint32_t blockLength,
                              uint32_t tileLength, float scale) {
    const uint64_t begin = static_cast<uint64_t>(GetBlockIdx()) * blockLength;
    count_ = begin >= totalLength ? 0 : static_cast<uint32_t>(
        totalLength - begin < blockLength ? totalLength - begin : blockLength);
    tileLength_ = tileLength;
    scale_ = scale;
    xGm_.SetGlobalBuffer((__gm__ int8_t*)x + begin, count_);
    yGm_.SetGlobalBuffer((__gm__ float*)y + begin, count_);
    pipe_.InitBuffer(inQueue_, BUFFER_NUM, tileLength_ * sizeof(int8_t));
    pipe_.InitBuffer(outQueue_, BUFFER_NUM, tileLength_ * sizeof(float));
    pipe_.InitBuffer(halfBuf_, tileLength_ * sizeof(half));
  }

  __aicore__ inline void Process() {
    const uint32_t tiles = (count_ + tileLength_ - 1) / tileLength_;
    for (uint32_t i = 0; i < tiles; ++i) {
      const uint32_t n = i + 1 == tiles ? count_ - i * tileLength_ : tileLength_;
      CopyIn(i, n);
      Compute(n);
      CopyOut(i, n);
    }
  }

 private:
  __aicore__ inline void CopyIn(uint32_t i, uint32_t n) {
    LocalTensor<int8_t> x = inQueue_.AllocTensor<int8_t>();
    const DataCopyExtParams params(1, n, 0, 0, 0);
    DataCopyPad(x, xGm_[static_cast<uint64_t>(i) * tileLength_], params,
                DataCopyPadExtParams<int8_t>(false, 0, 0, 0));
    inQueue_.EnQue(x);
  }

  __aicore__ inline void Compute(uint32_t n) {
    LocalTensor<int8_t> x = inQueue_.DeQue<int8_t>();
    LocalTensor<float> y = outQueue_.AllocTensor<float>();
    LocalTensor<half> h = halfBuf_.Get<half>();
    Cast(h, x, RoundMode::CAST_NONE, n);
    Cast(y, h, RoundMode::CAST_NONE, n);
    Muls(y, y, scale_, static_cast<int32_t>(n));
    outQueue_.EnQue<float>(y);
    inQueue_.FreeTensor(x);
  }

  __aicore__ inline void CopyOut(uint32_t i, uint32_t n) {
    LocalTensor<float> y = outQueue_.DeQue<float>();
    DataCopyPad(yGm_[static_cast<uint64_t>(i) * tileLength_], y,
                DataCopyExtParams(1, n * static_cast<uint32_t>(sizeof(float)), 0, 0, 0));
    outQueue_.FreeTensor(y);
  }

  TPipe pipe_;
  TQue<QuePosition::VECIN, BUFFER_NUM> inQueue_;
  TQue<QuePosition::VECOUT, BUFFER_NUM> outQueue_;
  TBuf<QuePosition::VECCALC> halfBuf_;
  GlobalTensor<int8_t> xGm_;
  GlobalTensor<float> yGm_;
  uint32_t count_ = 0;
  uint32_t tileLength_ = 0;
  float scale_ = 1.0f;
};

extern "C" __global__ __aicore__ void dequantize_int8(GM_ADDR x, GM_ADDR y, GM_ADDR workspace,
                                                      GM_ADDR tiling) {
  GET_TILING_DATA(tilingData, tiling);
  KernelDequantize op;
  op.Init(x, y, tilingData.totalLength, tilingData.blockLength, tilingData.tileLength,
          tilingData.scale);
  op.Process();
}
