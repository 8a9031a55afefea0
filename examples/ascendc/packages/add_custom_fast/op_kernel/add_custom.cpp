// AddCustom (z = x + y), kernel side, fast version: every core takes its chunk of the tensor
// and runs the three-stage pipeline (CopyIn / Compute / CopyOut) over double-buffered tiles,
// so the copy of one tile overlaps the vector add of the previous one. Compiled once per dtype
// of the OpDef (DTYPE_X is half, float, bfloat16_t or int32_t). The vector unit does not add
// bf16: those tiles are cast to float, added, and cast back (round to nearest even). A tile
// that is not a whole number of 32-byte blocks moves with DataCopyPad.
#include <type_traits>

#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

template <typename T>
class KernelAdd {
 public:
  __aicore__ inline KernelAdd() {}
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t totalLength,
                              uint32_t blockLength, uint32_t tileLength) {
    const uint64_t begin = static_cast<uint64_t>(GetBlockIdx()) * blockLength;
    count_ = begin >= totalLength ? 0 : static_cast<uint32_t>(
        totalLength - begin < blockLength ? totalLength - begin : blockLength);
    tileLength_ = tileLength;
    xGm_.SetGlobalBuffer((__gm__ T*)x + begin, count_);
    yGm_.SetGlobalBuffer((__gm__ T*)y + begin, count_);
    zGm_.SetGlobalBuffer((__gm__ T*)z + begin, count_);
    pipe_.InitBuffer(inQueueX_, BUFFER_NUM, tileLength_ * sizeof(T));
    pipe_.InitBuffer(inQueueY_, BUFFER_NUM, tileLength_ * sizeof(T));
    pipe_.InitBuffer(outQueueZ_, BUFFER_NUM, tileLength_ * sizeof(T));
    if constexpr (kWiden) {
      pipe_.InitBuffer(xFloat_, tileLength_ * sizeof(float));
      pipe_.InitBuffer(yFloat_, tileLength_ * sizeof(float));
    }
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
  static constexpr uint32_t kBlockElements = 32 / sizeof(T);
  static constexpr bool kWiden = std::is_same<T, bfloat16_t>::value;

  __aicore__ inline void CopyIn(uint32_t i, uint32_t n) {
    LocalTensor<T> x = inQueueX_.AllocTensor<T>();
    LocalTensor<T> y = inQueueY_.AllocTensor<T>();
    const uint64_t offset = static_cast<uint64_t>(i) * tileLength_;
    if (n % kBlockElements == 0) {
      DataCopy(x, xGm_[offset], n);
      DataCopy(y, yGm_[offset], n);
    } else {
      const DataCopyExtParams params(1, n * static_cast<uint32_t>(sizeof(T)), 0, 0, 0);
      const DataCopyPadExtParams<T> pad(false, 0, 0, static_cast<T>(0));
      DataCopyPad(x, xGm_[offset], params, pad);
      DataCopyPad(y, yGm_[offset], params, pad);
    }
    inQueueX_.EnQue(x);
    inQueueY_.EnQue(y);
  }

  __aicore__ inline void Compute(uint32_t n) {
    LocalTensor<T> x = inQueueX_.DeQue<T>();
    LocalTensor<T> y = inQueueY_.DeQue<T>();
    LocalTensor<T> z = outQueueZ_.AllocTensor<T>();
    if constexpr (kWiden) {
      LocalTensor<float> xf = xFloat_.Get<float>();
      LocalTensor<float> yf = yFloat_.Get<float>();
      Cast(xf, x, RoundMode::CAST_NONE, n);
      Cast(yf, y, RoundMode::CAST_NONE, n);
      Add(xf, xf, yf, static_cast<int32_t>(n));
      Cast(z, xf, RoundMode::CAST_RINT, n);
    } else {
      Add(z, x, y, static_cast<int32_t>(n));
    }
    outQueueZ_.EnQue<T>(z);
    inQueueX_.FreeTensor(x);
    inQueueY_.FreeTensor(y);
  }

  __aicore__ inline void CopyOut(uint32_t i, uint32_t n) {
    LocalTensor<T> z = outQueueZ_.DeQue<T>();
    const uint64_t offset = static_cast<uint64_t>(i) * tileLength_;
    if (n % kBlockElements == 0) {
      DataCopy(zGm_[offset], z, n);
    } else {
      DataCopyPad(zGm_[offset], z, DataCopyExtParams(1, n * static_cast<uint32_t>(sizeof(T)), 0, 0, 0));
    }
    outQueueZ_.FreeTensor(z);
  }

  TPipe pipe_;
  TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX_, inQueueY_;
  TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueZ_;
  TBuf<QuePosition::VECCALC> xFloat_, yFloat_;  // bf16 only: the tiles widened to float
  GlobalTensor<T> xGm_, yGm_, zGm_;
  uint32_t count_ = 0;
  uint32_t tileLength_ = 0;
};

extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z,
                                                 GM_ADDR workspace, GM_ADDR tiling) {
  GET_TILING_DATA(tilingData, tiling);
  KernelAdd<DTYPE_X> op;
  op.Init(x, y, z, tilingData.totalLength, tilingData.blockLength, tilingData.tileLength);
  op.Process();
}

#ifndef ASCENDC_CPU_DEBUG
// The host-side launch the vendor toolchain builds for a board; cannbot launches the kernel
// itself and never compiles this part.
void add_custom_do(uint32_t blockDim, void* stream, uint8_t* x, uint8_t* y, uint8_t* z,
                   uint8_t* workspace, uint8_t* tiling) {
  add_custom<<<blockDim, nullptr, stream>>>(x, y, z, workspace, tiling);
}
#endif
