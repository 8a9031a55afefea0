// AddTemplate (z = x + y), kernel side, written in the style of the current CANN operator
// repositories: a template entry instantiated once per selected (dtype, tail mode)
// combination, a plain tiling struct, and double-buffered tiles streamed through UB. The vector
// unit does not add bf16: those tiles are cast to float, added and cast back (nearest even).
#include <type_traits>

#include "kernel_operator.h"
#include "kernel_tiling/kernel_tiling.h"
#include "add_template_tiling_data.h"
#include "add_template_tiling_key.h"

using namespace AscendC;

namespace add_template_kernel {

constexpr int32_t BUFFER_NUM = 2;

template <typename T, bool PartialTail>
class KernelAdd {
 public:
  __aicore__ inline KernelAdd() {}
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, const AddTemplateTilingData& t) {
    const int64_t begin = static_cast<int64_t>(GetBlockIdx()) * t.blockLength;
    const int64_t left = t.totalLength - begin;
    count_ = left <= 0 ? 0 : (left < t.blockLength ? left : t.blockLength);
    tileLength_ = t.tileLength;
    xGm_.SetGlobalBuffer((__gm__ T*)x + begin, count_);
    yGm_.SetGlobalBuffer((__gm__ T*)y + begin, count_);
    zGm_.SetGlobalBuffer((__gm__ T*)z + begin, count_);
    pipe_.InitBuffer(inX_, BUFFER_NUM, tileLength_ * sizeof(T));
    pipe_.InitBuffer(inY_, BUFFER_NUM, tileLength_ * sizeof(T));
    pipe_.InitBuffer(outZ_, BUFFER_NUM, tileLength_ * sizeof(T));
    if constexpr (kWiden) {
      pipe_.InitBuffer(xFloat_, tileLength_ * sizeof(float));
      pipe_.InitBuffer(yFloat_, tileLength_ * sizeof(float));
    }
  }

  __aicore__ inline void Process() {
    const int64_t tiles = (count_ + tileLength_ - 1) / tileLength_;
    for (int64_t i = 0; i < tiles; ++i) {
      const int64_t n = i + 1 == tiles ? count_ - i * tileLength_ : tileLength_;
      CopyIn(i, n);
      Compute(n);
      CopyOut(i, n);
    }
  }

 private:
  static constexpr bool kWiden = std::is_same<T, bfloat16_t>::value;

  // Only the PartialTail instance ever moves a tile that ends inside a 32-byte block.
  __aicore__ inline void Load(const LocalTensor<T>& dst, const GlobalTensor<T>& src, int64_t n) {
    if constexpr (PartialTail) {
      const DataCopyExtParams params(1, static_cast<uint32_t>(n * sizeof(T)), 0, 0, 0);
      DataCopyPad(dst, src, params, DataCopyPadExtParams<T>(false, 0, 0, static_cast<T>(0)));
    } else {
      DataCopy(dst, src, static_cast<uint32_t>(n));
    }
  }

  __aicore__ inline void CopyIn(int64_t i, int64_t n) {
    LocalTensor<T> x = inX_.AllocTensor<T>();
    LocalTensor<T> y = inY_.AllocTensor<T>();
    Load(x, xGm_[i * tileLength_], n);
    Load(y, yGm_[i * tileLength_], n);
    inX_.EnQue(x);
    inY_.EnQue(y);
  }

  __aicore__ inline void Compute(int64_t n) {
    LocalTensor<T> x = inX_.DeQue<T>();
    LocalTensor<T> y = inY_.DeQue<T>();
    LocalTensor<T> z = outZ_.AllocTensor<T>();
    const int32_t count = static_cast<int32_t>(n);
    if constexpr (kWiden) {
      LocalTensor<float> xf = xFloat_.Get<float>();
      LocalTensor<float> yf = yFloat_.Get<float>();
      Cast(xf, x, RoundMode::CAST_NONE, count);
      Cast(yf, y, RoundMode::CAST_NONE, count);
      Add(xf, xf, yf, count);
      Cast(z, xf, RoundMode::CAST_RINT, count);
    } else {
      Add(z, x, y, count);
    }
    outZ_.EnQue<T>(z);
    inX_.FreeTensor(x);
    inY_.FreeTensor(y);
  }

  __aicore__ inline void CopyOut(int64_t i, int64_t n) {
    LocalTensor<T> z = outZ_.DeQue<T>();
    if constexpr (PartialTail) {
      DataCopyPad(zGm_[i * tileLength_], z,
                  DataCopyExtParams(1, static_cast<uint32_t>(n * sizeof(T)), 0, 0, 0));
    } else {
      DataCopy(zGm_[i * tileLength_], z, static_cast<uint32_t>(n));
    }
    outZ_.FreeTensor(z);
  }

  TPipe pipe_;
  TQue<QuePosition::VECIN, BUFFER_NUM> inX_, inY_;
  TQue<QuePosition::VECOUT, BUFFER_NUM> outZ_;
  TBuf<QuePosition::VECCALC> xFloat_, yFloat_;  // bf16 only: the tiles widened to float
  GlobalTensor<T> xGm_, yGm_, zGm_;
  int64_t count_ = 0;
  int64_t tileLength_ = 0;
};

}  // namespace add_template_kernel

template <typename D_T_X, uint32_t TAIL_MODE>
__global__ __aicore__ void add_template(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace,
                                        GM_ADDR tiling) {
  REGISTER_TILING_DEFAULT(AddTemplateTilingData);
  GET_TILING_DATA_WITH_STRUCT(AddTemplateTilingData, tilingData, tiling);
  add_template_kernel::KernelAdd<D_T_X, TAIL_MODE == ADD_TEMPLATE_PARTIAL_TAIL> op;
  op.Init(x, y, z, tilingData);
  op.Process();
}
