// SoftmaxCustom, kernel side: each core takes its rows, tile by tile: rows are copied in at a
// 32-byte pitch (DataCopyPad), the SoftMax high-level API normalises the tile's data columns,
// and the rows are copied back without their padding. Double-buffered in and out queues.
#include "kernel_operator.h"

using namespace AscendC;

namespace {
constexpr int32_t kBufferNum = 2;

template <typename T>
class KernelSoftmax {
 public:
  __aicore__ inline KernelSoftmax() {}
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const SoftmaxCustomTilingData& tiling) {
    tiling_ = tiling;
    const uint32_t first = GetBlockIdx() * tiling.rowsPerCore;
    myRows_ = tiling.rows - first < tiling.rowsPerCore ? tiling.rows - first : tiling.rowsPerCore;
    const uint64_t offset = static_cast<uint64_t>(first) * tiling.cols;
    xGm_.SetGlobalBuffer((__gm__ T*)x + offset, static_cast<uint64_t>(myRows_) * tiling.cols);
    yGm_.SetGlobalBuffer((__gm__ T*)y + offset, static_cast<uint64_t>(myRows_) * tiling.cols);
    const uint32_t tileBytes = tiling.tileRows * tiling.paddedCols * sizeof(T);
    pipe_.InitBuffer(inQueue_, kBufferNum, tileBytes);
    pipe_.InitBuffer(outQueue_, kBufferNum, tileBytes);
    pipe_.InitBuffer(stats_, 2 * tiling.tileRows * 32);
  }
  __aicore__ inline void Process() {
    for (uint32_t start = 0; start < myRows_; start += tiling_.tileRows) {
      const uint32_t n = myRows_ - start < tiling_.tileRows ? myRows_ - start : tiling_.tileRows;
      CopyIn(start, n);
      Compute(n);
      CopyOut(start, n);
    }
  }

 private:
  __aicore__ inline DataCopyExtParams Rows(uint32_t n) const {
    return DataCopyExtParams(static_cast<uint16_t>(n), tiling_.cols * sizeof(T), 0, 0, 0);
  }
  __aicore__ inline void CopyIn(uint32_t start, uint32_t n) {
    LocalTensor<T> x = inQueue_.AllocTensor<T>();
    DataCopyPad(x, xGm_[static_cast<uint64_t>(start) * tiling_.cols], Rows(n),
                DataCopyPadExtParams<T>(false, 0, 0, 0));
    inQueue_.EnQue(x);
  }
  __aicore__ inline void Compute(uint32_t n) {
    LocalTensor<T> x = inQueue_.DeQue<T>();
    LocalTensor<T> y = outQueue_.AllocTensor<T>();
    const uint32_t statElems = tiling_.tileRows * 32 / sizeof(T);
    LocalTensor<T> sum = stats_.GetWithOffset<T>(statElems, 0);
    LocalTensor<T> max = stats_.GetWithOffset<T>(statElems, tiling_.tileRows * 32);
    const SoftMaxShapeInfo shape{n, tiling_.paddedCols, n, tiling_.cols};
    SoftMax<T>(y, sum, max, x, tiling_.softmaxTilingData, shape);
    outQueue_.EnQue(y);
    inQueue_.FreeTensor(x);
  }
  __aicore__ inline void CopyOut(uint32_t start, uint32_t n) {
    LocalTensor<T> y = outQueue_.DeQue<T>();
    DataCopyPad(yGm_[static_cast<uint64_t>(start) * tiling_.cols], y, Rows(n));
    outQueue_.FreeTensor(y);
  }

  TPipe pipe_;
  TQue<QuePosition::VECIN, kBufferNum> inQueue_;
  TQue<QuePosition::VECOUT, kBufferNum> outQueue_;
  TBuf<QuePosition::VECCALC> stats_;
  GlobalTensor<T> xGm_, yGm_;
  SoftmaxCustomTilingData tiling_;
  uint32_t myRows_ = 0;
};
}  // namespace

extern "C" __global__ __aicore__ void softmax_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace,
                                                     GM_ADDR tiling) {
  GET_TILING_DATA(tilingData, tiling);
  KernelSoftmax<DTYPE_X> op;
  op.Init(x, y, tilingData);
  op.Process();
}
