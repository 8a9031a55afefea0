// add_custom: z = x + y on half tensors, written as a kernel-launch sample: the host program
// (main.cpp) allocates the tensors, fills the tiling and launches this entry point on
// blockDim cores. Each core adds its equal share of the tensors in double-buffered tiles
// (CopyIn / Compute / CopyOut), so the copy of one tile overlaps the add of the previous one.
// The share and the tile must be whole 32-byte blocks: main.cpp picks sizes that are.
#include "kernel_operator.h"
#include "add_custom_tiling.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

class KernelAdd {
 public:
  __aicore__ inline KernelAdd() {}
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, const AddCustomTilingData& t) {
    blockLength_ = t.totalLength / GetBlockNum();
    tileNum_ = t.tileNum;
    tileLength_ = blockLength_ / tileNum_ / BUFFER_NUM;
    const uint64_t begin = static_cast<uint64_t>(blockLength_) * GetBlockIdx();
    xGm_.SetGlobalBuffer((__gm__ half*)x + begin, blockLength_);
    yGm_.SetGlobalBuffer((__gm__ half*)y + begin, blockLength_);
    zGm_.SetGlobalBuffer((__gm__ half*)z + begin, blockLength_);
    pipe_.InitBuffer(inQueueX_, BUFFER_NUM, tileLength_ * sizeof(half));
    pipe_.InitBuffer(inQueueY_, BUFFER_NUM, tileLength_ * sizeof(half));
    pipe_.InitBuffer(outQueueZ_, BUFFER_NUM, tileLength_ * sizeof(half));
  }

  __aicore__ inline void Process() {
    const int32_t loops = static_cast<int32_t>(tileNum_ * BUFFER_NUM);
    for (int32_t i = 0; i < loops; ++i) {
      CopyIn(i);
      Compute();
      CopyOut(i);
    }
  }

 private:
  __aicore__ inline void CopyIn(int32_t i) {
    LocalTensor<half> x = inQueueX_.AllocTensor<half>();
    LocalTensor<half> y = inQueueY_.AllocTensor<half>();
    DataCopy(x, xGm_[i * tileLength_], tileLength_);
    DataCopy(y, yGm_[i * tileLength_], tileLength_);
    inQueueX_.EnQue(x);
    inQueueY_.EnQue(y);
  }

  __aicore__ inline void Compute() {
    LocalTensor<half> x = inQueueX_.DeQue<half>();
    LocalTensor<half> y = inQueueY_.DeQue<half>();
    LocalTensor<half> z = outQueueZ_.AllocTensor<half>();
    Add(z, x, y, tileLength_);
    outQueueZ_.EnQue<half>(z);
    inQueueX_.FreeTensor(x);
    inQueueY_.FreeTensor(y);
  }

  __aicore__ inline void CopyOut(int32_t i) {
    LocalTensor<half> z = outQueueZ_.DeQue<half>();
    DataCopy(zGm_[i * tileLength_], z, tileLength_);
    outQueueZ_.FreeTensor(z);
  }

  TPipe pipe_;
  TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX_, inQueueY_;
  TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueZ_;
  GlobalTensor<half> xGm_, yGm_, zGm_;
  uint32_t blockLength_ = 0;
  uint32_t tileNum_ = 0;
  uint32_t tileLength_ = 0;
};

extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z,
                                                 AddCustomTilingData tiling) {
  KernelAdd op;
  op.Init(x, y, z, tiling);
  op.Process();
}

#ifndef ASCENDC_CPU_DEBUG
// The board build's launch, called by main.cpp.
void add_custom_do(uint32_t blockDim, void* stream, uint8_t* x, uint8_t* y, uint8_t* z,
                   AddCustomTilingData tiling) {
  add_custom<<<blockDim, nullptr, stream>>>(x, y, z, tiling);
}
#endif
