// ReduceSumAtomic, kernel side. Each core first zeroes its share of y, waits at SyncAll until
// every core has, then takes its column slice of x tile by tile: the tile's rows come in at a
// 32-byte pitch (DataCopyPad, padded with zeros), ReduceSum sums each row's slice, and the
// tile's partial sums go out with SetAtomicAdd, so the memory system adds them to what the
// other cores added.
#include "kernel_operator.h"

using namespace AscendC;

namespace {
constexpr int32_t kBufferNum = 2;
constexpr uint32_t kFloatsPerBlock = 8;

class KernelReduceSumAtomic {
 public:
  __aicore__ inline KernelReduceSumAtomic() {}
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const ReduceSumAtomicTilingData& tiling) {
    tiling_ = tiling;
    firstCol_ = GetBlockIdx() * tiling.colsPerCore;
    myCols_ = tiling.cols - firstCol_ < tiling.colsPerCore ? tiling.cols - firstCol_
                                                           : tiling.colsPerCore;
    xGm_.SetGlobalBuffer((__gm__ float*)x, static_cast<uint64_t>(tiling.rows) * tiling.cols);
    yGm_.SetGlobalBuffer((__gm__ float*)y, tiling.rows);
    pipe_.InitBuffer(inQueue_, kBufferNum, tiling.tileRows * tiling.colsPerCore * sizeof(float));
    pipe_.InitBuffer(outQueue_, kBufferNum, RoundUp(tiling.tileRows) * sizeof(float));
    pipe_.InitBuffer(work_, tiling.colsPerCore * sizeof(float));
  }

  __aicore__ inline void Process() {
    ZeroMyShareOfY();
    SyncAll();  // no core adds into y before every share of it is zero
    for (uint32_t start = 0; start < tiling_.rows; start += tiling_.tileRows) {
      const uint32_t n = tiling_.rows - start < tiling_.tileRows ? tiling_.rows - start
                                                                 : tiling_.tileRows;
      CopyIn(start, n);
      Compute(n);
      CopyOut(start, n);
    }
  }

 private:
  static __aicore__ inline uint32_t RoundUp(uint32_t n) {
    return (n + kFloatsPerBlock - 1) / kFloatsPerBlock * kFloatsPerBlock;
  }

  __aicore__ inline void ZeroMyShareOfY() {
    const uint32_t first = GetBlockIdx() * tiling_.rowsPerCore;
    if (first >= tiling_.rows) return;
    const uint32_t mine = tiling_.rows - first < tiling_.rowsPerCore ? tiling_.rows - first
                                                                     : tiling_.rowsPerCore;
    for (uint32_t done = 0; done < mine; done += tiling_.tileRows) {
      const uint32_t n = mine - done < tiling_.tileRows ? mine - done : tiling_.tileRows;
      LocalTensor<float> zeros = outQueue_.AllocTensor<float>();
      Duplicate(zeros, 0.0f, static_cast<int32_t>(RoundUp(n)));
      outQueue_.EnQue(zeros);
      zeros = outQueue_.DeQue<float>();
      DataCopyPad(yGm_[first + done], zeros,
                  DataCopyExtParams(1, n * static_cast<uint32_t>(sizeof(float)), 0, 0, 0));
      outQueue_.FreeTensor(zeros);
    }
  }

  __aicore__ inline void CopyIn(uint32_t start, uint32_t n) {
    LocalTensor<float> x = inQueue_.AllocTensor<float>();
    const uint32_t pad = RoundUp(myCols_) - myCols_;
    // n rows of myCols_ floats, each starting a row further on in x, each padded with zeros
    // to whole 32-byte blocks in the UB.
    DataCopyExtParams rows(static_cast<uint16_t>(n), myCols_ * static_cast<uint32_t>(sizeof(float)),
                           (tiling_.cols - myCols_) * static_cast<uint32_t>(sizeof(float)),
                           (tiling_.colsPerCore - RoundUp(myCols_)) / kFloatsPerBlock, 0);
    DataCopyPad(x, xGm_[static_cast<uint64_t>(start) * tiling_.cols + firstCol_], rows,
                DataCopyPadExtParams<float>(true, 0, static_cast<uint8_t>(pad), 0.0f));
    inQueue_.EnQue(x);
  }

  __aicore__ inline void Compute(uint32_t n) {
    LocalTensor<float> x = inQueue_.DeQue<float>();
    LocalTensor<float> sums = outQueue_.AllocTensor<float>();
    LocalTensor<float> work = work_.Get<float>();
    for (uint32_t r = 0; r < n; ++r) {
      ReduceSum(sums[r], x[r * tiling_.colsPerCore], work,
                static_cast<int32_t>(RoundUp(myCols_)));
    }
    outQueue_.EnQue(sums);
    inQueue_.FreeTensor(x);
  }

  __aicore__ inline void CopyOut(uint32_t start, uint32_t n) {
    LocalTensor<float> sums = outQueue_.DeQue<float>();
    SetAtomicAdd<float>();
    DataCopyPad(yGm_[start], sums,
                DataCopyExtParams(1, n * static_cast<uint32_t>(sizeof(float)), 0, 0, 0));
    SetAtomicNone();
    outQueue_.FreeTensor(sums);
  }

  TPipe pipe_;
  TQue<QuePosition::VECIN, kBufferNum> inQueue_;
  TQue<QuePosition::VECOUT, kBufferNum> outQueue_;
  TBuf<QuePosition::VECCALC> work_;
  GlobalTensor<float> xGm_;
  GlobalTensor<float> yGm_;
  ReduceSumAtomicTilingData tiling_;
  uint32_t firstCol_ = 0;
  uint32_t myCols_ = 0;
};
}  // namespace

extern "C" __global__ __aicore__ void reduce_sum_atomic(GM_ADDR x, GM_ADDR y, GM_ADDR workspace,
                                                        GM_ADDR tiling) {
  GET_TILING_DATA(tilingData, tiling);
  KernelReduceSumAtomic op;
  op.Init(x, y, tilingData);
  op.Process();
}
