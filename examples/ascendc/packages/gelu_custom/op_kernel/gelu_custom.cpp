// GeluCustom (GELU, tanh form), kernel side: every core takes its chunk and runs the
// three-stage pipeline (CopyIn / Compute / CopyOut) over double-buffered tiles; the high-level
// math library's Gelu does the math, in float for every dtype (16-bit tiles are cast up,
// computed, and cast back with round-to-nearest-even).
#include <type_traits>

#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

template <typename T>
class KernelGelu {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t totalLength, uint32_t blockLength,
                              uint32_t tileLength) {
    const uint64_t begin = static_cast<uint64_t>(GetBlockIdx()) * blockLength;
    count_ = begin >= totalLength ? 0 : static_cast<uint32_t>(
        totalLength - begin < blockLength ? totalLength - begin : blockLength);
    tileLength_ = tileLength;
    xGm_.SetGlobalBuffer((__gm__ T*)x + begin, count_);
    yGm_.SetGlobalBuffer((__gm__ T*)y + begin, count_);
    pipe_.InitBuffer(inQueue_, BUFFER_NUM, tileLength_ * sizeof(T));
    pipe_.InitBuffer(outQueue_, BUFFER_NUM, tileLength_ * sizeof(T));
    pipe_.InitBuffer(xFloat_, tileLength_ * sizeof(float));
    pipe_.InitBuffer(work_, tileLength_ * sizeof(float));
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
  static constexpr bool kFloat = std::is_same<T, float>::value;

  __aicore__ inline void CopyIn(uint32_t i, uint32_t n) {
    LocalTensor<T> x = inQueue_.AllocTensor<T>();
    const uint64_t offset = static_cast<uint64_t>(i) * tileLength_;
    if (n % kBlockElements == 0) {
      DataCopy(x, xGm_[offset], n);
    } else {
      DataCopyPad(x, xGm_[offset], DataCopyExtParams(1, n * static_cast<uint32_t>(sizeof(T)), 0, 0, 0),
                  DataCopyPadExtParams<T>(false, 0, 0, static_cast<T>(0.0f)));
    }
    inQueue_.EnQue(x);
  }

  __aicore__ inline void Compute(uint32_t n) {
    LocalTensor<T> x = inQueue_.DeQue<T>();
    LocalTensor<T> y = outQueue_.AllocTensor<T>();
    LocalTensor<float> xf = xFloat_.Get<float>();
    LocalTensor<float> t = work_.Get<float>();
    if constexpr (kFloat) {
      Gelu(y, x, n);
    } else {
      Cast(xf, x, RoundMode::CAST_NONE, n);
      Gelu(t, xf, n);
      Cast(y, t, RoundMode::CAST_RINT, n);
    }
    outQueue_.EnQue<T>(y);
    inQueue_.FreeTensor(x);
  }

  __aicore__ inline void CopyOut(uint32_t i, uint32_t n) {
    LocalTensor<T> y = outQueue_.DeQue<T>();
    const uint64_t offset = static_cast<uint64_t>(i) * tileLength_;
    if (n % kBlockElements == 0) {
      DataCopy(yGm_[offset], y, n);
    } else {
      DataCopyPad(yGm_[offset], y, DataCopyExtParams(1, n * static_cast<uint32_t>(sizeof(T)), 0, 0, 0));
    }
    outQueue_.FreeTensor(y);
  }

  TPipe pipe_;
  TQue<QuePosition::VECIN, BUFFER_NUM> inQueue_;
  TQue<QuePosition::VECOUT, BUFFER_NUM> outQueue_;
  TBuf<QuePosition::VECCALC> xFloat_, work_;
  GlobalTensor<T> xGm_, yGm_;
  uint32_t count_ = 0;
  uint32_t tileLength_ = 0;
};

extern "C" __global__ __aicore__ void gelu_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace,
                                                   GM_ADDR tiling) {
  GET_TILING_DATA(tilingData, tiling);
  KernelGelu<DTYPE_X> op;
  op.Init(x, y, tilingData.totalLength, tilingData.blockLength, tilingData.tileLength);
  op.Process();
}
