// cannbot_ascendc_cube.h: the matrix (cube) path of the emulation: the ND -> NZ copy into L1,
// LoadData (L1 -> L0A/L0B), Mmad (the cube unit), and the L0C read-outs (DataCopy in matrix
// block mode to CO2, Fixpipe to global memory).
//
// Layouts, as the Ascend C documentation describes the Atlas A2 cube unit (docs/ascendc.md,
// "The matrix path", says which page each rule comes from):
//  - a fractal is 16 rows of 32 bytes in L1, L0A and L0B (16 x 16 halves, 16 x 8 floats,
//    16 x 32 int8: k0 = 32 / sizeof(T)), and 16 x 16 results in L0C (float or int32);
//  - L0A (A2) holds A (m x k) as fractals (m1, k1) in row-major order, each row-major [m0][k0];
//  - L0B (B2) holds B (k x n) as fractals (k1, n1) in row-major order, each [n0][k0]: every
//    fractal transposed, which LoadData's ifTranspose produces from an NZ copy of B;
//  - L0C (CO1) holds C (m x n) as fractals (n1, m1) in row-major order ("NZ"), each [m0][n0];
//  - NZ in L1: a row-major matrix cut into 32-byte column groups, each group's rows contiguous.
// Mmad computes whole 16-row and 16-column fractals (rows and columns past m and n are padding
// whose values nobody reads) and exactly the first k terms of each sum, accumulated in float
// (int32 for int8), adding to C when MmadParams says so (cmatrixInitVal false, or the older
// isBias flag).
//
// Rules: operands at the right positions (`wrong-position`); each operand large enough for the
// fractals the instruction touches (`ub-out-of-bounds`, naming the memory); data copied or
// loaded must be waited for before the next unit reads it (`missing-sync`: EnQue/DeQue,
// SetFlag/WaitFlag<MTE2_MTE1, MTE1_M, M_FIX>, PipeBarrier<PIPE_ALL>); parameter forms this
// emulation does not model stop with `not-emulated`, naming the field.
// Counted for the cost model: cube fractals (one per cycle), bytes moved on chip, and Fixpipe's
// writes to GM as output traffic.
//
// Thread-safety: none (see cannbot_ascendc_runtime.h).
#ifndef CANNBOT_ASCENDC_CUBE_H
#define CANNBOT_ASCENDC_CUBE_H

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "cannbot_ascendc_copy.h"

namespace AscendC {

struct LoadData2DParams {
  LoadData2DParams() = default;
  LoadData2DParams(uint16_t start, uint8_t repeat, uint16_t src_stride, uint8_t sid_in,
                   uint16_t dst_gap, bool transpose, uint8_t addr_mode)
      : startIndex(start),
        repeatTimes(repeat),
        srcStride(src_stride),
        sid(sid_in),
        dstGap(dst_gap),
        ifTranspose(transpose),
        addrMode(addr_mode) {}
  uint16_t startIndex = 0;  // first source fractal
  uint8_t repeatTimes = 0;  // fractals to move
  uint16_t srcStride = 0;   // source fractals between two moved ones
  uint8_t sid = 0;
  uint16_t dstGap = 0;      // destination fractals skipped after each moved one
  bool ifTranspose = false;
  uint8_t addrMode = 0;
};
using LoadData2dParams = LoadData2DParams;  // the spelling of the first releases

struct MmadParams {
  MmadParams() = default;
  MmadParams(uint16_t m_in, uint16_t n_in, uint16_t k_in, bool is_bias, int32_t fm_offset,
             bool en_ssparse, bool en_winograd_a, bool en_winograd_b)
      : m(m_in),
        n(n_in),
        k(k_in),
        isBias(is_bias),
        fmOffset(fm_offset),
        enSsparse(en_ssparse),
        enWinogradA(en_winograd_a),
        enWinogradB(en_winograd_b) {}
  uint16_t m = 0;
  uint16_t n = 0;
  uint16_t k = 0;
  bool isBias = false;  // the first releases' "C += A * B"
  int32_t fmOffset = 0;
  bool enSsparse = false;
  bool enWinogradA = false;
  bool enWinogradB = false;
  uint8_t unitFlag = 0;
  bool kDirectionAlign = false;
  bool cmatrixSource = false;
  bool cmatrixInitVal = true;  // true: C starts at zero; false: C += A * B
};

struct Nd2NzParams {
  Nd2NzParams() = default;
  Nd2NzParams(uint16_t nd_num, uint16_t n_value, uint16_t d_value, uint16_t src_nd_stride,
              uint16_t src_d_value, uint16_t dst_c0_stride, uint16_t dst_n_stride,
              uint16_t dst_matrix_stride)
      : ndNum(nd_num),
        nValue(n_value),
        dValue(d_value),
        srcNdMatrixStride(src_nd_stride),
        srcDValue(src_d_value),
        dstNzC0Stride(dst_c0_stride),
        dstNzNStride(dst_n_stride),
        dstNzMatrixStride(dst_matrix_stride) {}
  uint16_t ndNum = 1;              // matrices
  uint16_t nValue = 0;             // rows of each
  uint16_t dValue = 0;             // columns (elements) of each
  uint16_t srcNdMatrixStride = 0;  // elements between matrices in GM
  uint16_t srcDValue = 0;          // elements between rows in GM
  uint16_t dstNzC0Stride = 0;      // 32-byte units between column groups in L1
  uint16_t dstNzNStride = 0;       // 32-byte units between rows of a column group
  uint16_t dstNzMatrixStride = 0;  // elements between matrices in L1
};

enum class BlockMode : uint8_t {
  BLOCK_MODE_NORMAL,
  BLOCK_MODE_MATRIX,
  BLOCK_MODE_VECTOR,
  BLOCK_MODE_SMALL_MATRIX,
  BLOCK_MODE_DEPTHWISE
};
enum class DeqScale : uint8_t { DEQ_NONE, DEQ, VDEQ, DEQ8, VDEQ8, DEQ16, VDEQ16 };
struct DataCopyEnhancedParams {
  BlockMode blockMode = BlockMode::BLOCK_MODE_NORMAL;
  DeqScale deqScale = DeqScale::DEQ_NONE;
  uint64_t deqValue = 0;
  uint8_t sidStoreMode = 0;
  bool isRelu = false;
};

enum QuantMode_t : uint8_t { NoQuant = 0, F322F16, F322BF16, DEQF16, VDEQF16, REQ8, VREQ8 };
enum class CO2Layout : uint8_t { NZ = 0, ROW_MAJOR, COLUMN_MAJOR };
struct FixpipeConfig {
  CO2Layout format;
};
inline constexpr FixpipeConfig CFG_NZ = {CO2Layout::NZ};
inline constexpr FixpipeConfig CFG_ROW_MAJOR = {CO2Layout::ROW_MAJOR};

struct FixpipeParamsV220 {
  FixpipeParamsV220() = default;
  FixpipeParamsV220(uint16_t n_size, uint16_t m_size, uint16_t src_stride, uint32_t dst_stride,
                    bool relu)
      : nSize(n_size), mSize(m_size), srcStride(src_stride), dstStride(dst_stride), reluEn(relu) {}
  uint16_t nSize = 0;       // columns to write
  uint16_t mSize = 0;       // rows to write
  uint16_t srcStride = 0;   // rows (of 16 elements) between two fractal columns in L0C
  uint32_t dstStride = 0;   // elements between two rows in GM
  QuantMode_t quantPre = NoQuant;
  uint64_t deqScalar = 0;
  uint16_t ndNum = 1;
  uint16_t srcNdStride = 0;
  uint16_t dstNdStride = 0;
  bool reluEn = false;
  uint8_t unitFlag = 0;
  bool isChannelSplit = false;
};
using FixpipeParams = FixpipeParamsV220;

namespace cannbot_detail {

constexpr uint32_t kFractalRows = 16;
constexpr uint32_t kFractalBytes = 512;  // 16 rows of 32 bytes

// The operand checks of the cube instructions: the tensor is usable, lies in `memory`, is
// large enough for `elements`, and whatever wrote it has been waited for.
template <typename T>
inline cannbot_ascendc::Slot& CheckCubeOperand(const LocalTensor<T>& t, uint64_t elements,
                                               int memory, const char* role, const char* api) {
  using cannbot_ascendc::Violation;
  cannbot_ascendc::Slot& s = CheckLocalBasic(t, elements, api);
  if (s.memory != memory) {
    Violation("wrong-position",
              "%s takes its %s from %s, but this LocalTensor is at TPosition::%s, in %s", api,
              role, cannbot_ascendc::MemoryName(memory), PositionName(t.cb_position_),
              cannbot_ascendc::MemoryName(s.memory));
  }
  // Start-address alignment per memory ("General Restrictions"): L0A and L0B 512 bytes (one
  // fractal), L0C 64, L1 and the UB 32.
  const uint32_t align = memory == cannbot_ascendc::kMemL0A || memory == cannbot_ascendc::kMemL0B
                             ? 512u
                             : memory == cannbot_ascendc::kMemL0C ? 64u : cannbot_ascendc::kBlockBytes;
  if (t.cb_ub_offset_ % align != 0) {
    Violation("copy-misaligned", "%s's %s starts at byte %u of %s, which is not %u-byte aligned",
              api, role, t.cb_ub_offset_, cannbot_ascendc::MemoryName(memory), align);
  }
  return s;
}

inline void CheckSettled(const cannbot_ascendc::Slot& s, const char* role, const char* api) {
  if (s.pending_mte2 || s.pending_cube || s.pending_vec) {
    cannbot_ascendc::Violation(
        "missing-sync",
        "%s reads its %s before the %s that wrote it was waited for; pass the tensor through "
        "EnQue/DeQue (or SetFlag/WaitFlag<HardEvent::%s>, PipeBarrier<PIPE_ALL>) first",
        api, role, s.pending_mte2 ? "DataCopy" : s.pending_cube ? "LoadData or Mmad" : "write",
        s.pending_mte2 ? "MTE2_MTE1" : s.pending_cube ? "MTE1_M or M_FIX" : "V_M");
  }
}

// The accumulator type of a cube product of T: int32 for 8-bit integers, float otherwise.
template <typename T>
using CubeAccumulator = typename std::conditional<std::is_same<T, int8_t>::value ||
                                                      std::is_same<T, uint8_t>::value,
                                                  int32_t, float>::type;

template <typename T>
inline float CubeValue(T v) {
  return static_cast<float>(v);
}

}  // namespace cannbot_detail

// ---- GM -> L1 (or UB) with the ND -> NZ conversion ----
template <typename T>
inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const Nd2NzParams& p) {
  using cannbot_ascendc::R;
  using cannbot_ascendc::Violation;
  const char* api = "DataCopy(GM->L1, Nd2NzParams)";
  R().RequireBlock(api);
  const uint32_t c0 = cannbot_ascendc::kBlockBytes / sizeof(T);
  if (p.ndNum == 0 || p.nValue == 0 || p.dValue == 0) {
    Violation("bad-argument", "%s has ndNum %u, nValue %u, dValue %u; each must be positive",
              api, p.ndNum, p.nValue, p.dValue);
  }
  if (p.dstNzNStride == 0 || p.dstNzC0Stride == 0) {
    Violation("bad-argument", "%s has dstNzC0Stride %u and dstNzNStride %u; both must be "
              "positive (32-byte units)", api, p.dstNzC0Stride, p.dstNzNStride);
  }
  const uint32_t groups = (p.dValue + c0 - 1) / c0;
  const uint64_t last_matrix = static_cast<uint64_t>(p.ndNum - 1) * p.dstNzMatrixStride;
  const uint64_t dst_end = last_matrix + (static_cast<uint64_t>(groups - 1) * p.dstNzC0Stride +
                                          static_cast<uint64_t>(p.nValue - 1) * p.dstNzNStride + 1) * c0;
  cannbot_ascendc::Slot& s = cannbot_detail::CheckLocalBasic(dst, dst_end, api);
  cannbot_detail::CheckCopyMemory(s, /*into_core=*/true, dst.cb_position_, api);
  const uint64_t src_span =
      (static_cast<uint64_t>(p.ndNum - 1) * p.srcNdMatrixStride +
       static_cast<uint64_t>(p.nValue - 1) * p.srcDValue + p.dValue) * sizeof(T);
  const uint8_t* from = R().TranslateGm(src.cb_addr_, src_span, /*write=*/false,
                                        static_cast<int>(sizeof(T) * 8), api,
                                        cannbot_ascendc::DtypeName<T>());
  for (uint32_t m = 0; m < p.ndNum; ++m) {
    for (uint32_t r = 0; r < p.nValue; ++r) {
      const uint8_t* row = from + (static_cast<uint64_t>(m) * p.srcNdMatrixStride +
                                   static_cast<uint64_t>(r) * p.srcDValue) * sizeof(T);
      for (uint32_t g = 0; g < groups; ++g) {
        const uint32_t columns = g + 1 < groups ? c0 : p.dValue - g * c0;
        T* to = dst.cb_data_ + static_cast<uint64_t>(m) * p.dstNzMatrixStride +
                (static_cast<uint64_t>(g) * p.dstNzC0Stride +
                 static_cast<uint64_t>(r) * p.dstNzNStride) * c0;
        std::memcpy(to, row + static_cast<uint64_t>(g) * c0 * sizeof(T), columns * sizeof(T));
      }
    }
  }
  s.pending_mte2 = true;
  cannbot_detail::MarkQueueCopy(s);
  cannbot_ascendc::Count(cannbot_ascendc::kGmToUbBytes,
                         static_cast<uint64_t>(p.ndNum) * p.nValue * p.dValue * sizeof(T));
  cannbot_ascendc::Count(cannbot_ascendc::kGmToUbCopies, 1);
}

// ---- L1 -> L0A / L0B ----
template <typename T>
inline void LoadData(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                     const LoadData2DParams& p) {
  using cannbot_ascendc::Violation;
  using namespace cannbot_detail;
  const char* api = "LoadData";
  cannbot_ascendc::R().RequireBlock(api);
  if (p.repeatTimes == 0) Violation("bad-argument", "%s has repeatTimes 0", api);
  if (p.ifTranspose && sizeof(T) != 2) {
    Violation("not-emulated", "%s with ifTranspose on %zu-byte elements (cannbot emulates the "
              "16 x 16 transpose of 16-bit fractals)", api, sizeof(T));
  }
  const uint64_t per = kFractalBytes / sizeof(T);
  const uint64_t src_last = p.startIndex + static_cast<uint64_t>(p.repeatTimes - 1) * p.srcStride;
  const uint64_t dst_last = static_cast<uint64_t>(p.repeatTimes - 1) * (1u + p.dstGap);
  const int dst_memory = MemoryOf(dst.cb_position_) == cannbot_ascendc::kMemL0B
                             ? cannbot_ascendc::kMemL0B
                             : cannbot_ascendc::kMemL0A;
  cannbot_ascendc::Slot& from = CheckCubeOperand(src, (src_last + 1) * per,
                                                 cannbot_ascendc::kMemL1, "source", api);
  CheckSettled(from, "source", api);
  cannbot_ascendc::Slot& to = CheckCubeOperand(dst, (dst_last + 1) * per, dst_memory,
                                               "destination", api);
  for (uint32_t r = 0; r < p.repeatTimes; ++r) {
    const T* in = src.cb_data_ + (p.startIndex + static_cast<uint64_t>(r) * p.srcStride) * per;
    T* out = dst.cb_data_ + static_cast<uint64_t>(r) * (1u + p.dstGap) * per;
    if (!p.ifTranspose) {
      std::memcpy(out, in, kFractalBytes);
      continue;
    }
    for (uint32_t i = 0; i < kFractalRows; ++i) {
      for (uint32_t j = 0; j < kFractalRows; ++j) out[j * kFractalRows + i] = in[i * kFractalRows + j];
    }
  }
  to.pending_cube = true;
  cannbot_ascendc::Count(cannbot_ascendc::kCubeMoveBytes,
                         static_cast<uint64_t>(p.repeatTimes) * kFractalBytes);
}

// ---- the cube unit: C (L0C) = A (L0A) x B (L0B) [+ C, or + a bias row from C2] ----
namespace cannbot_detail {
template <typename T, typename U, typename S, typename B>
inline void MmadWith(const LocalTensor<T>& c, const LocalTensor<U>& a, const LocalTensor<S>& b,
                     const LocalTensor<B>* bias, const MmadParams& p) {
  using cannbot_ascendc::Violation;
  const char* api = "Mmad";
  cannbot_ascendc::R().RequireBlock(api);
  static_assert(std::is_same<U, S>::value,
                "cannbot ascendc emulation: Mmad's A and B have one element type");
  static_assert(std::is_same<T, CubeAccumulator<U>>::value,
                "cannbot ascendc emulation: Mmad accumulates in float (int32 for int8 inputs)");
  if (p.m == 0 || p.n == 0 || p.k == 0) {
    Violation("bad-argument", "%s has m %u, n %u, k %u; each must be positive", api, p.m, p.n,
              p.k);
  }
  if (p.fmOffset != 0 || p.enSsparse || p.enWinogradA || p.enWinogradB ||
      (p.cmatrixSource && bias == nullptr)) {
    Violation("not-emulated", "%s with fmOffset, sparsity, Winograd or a C source without a "
              "bias tensor (cannbot emulates the dense product)", api);
  }
  const uint32_t k0 = cannbot_ascendc::kBlockBytes / sizeof(U);
  const uint32_t m1 = (p.m + kFractalRows - 1) / kFractalRows;
  const uint32_t n1 = (p.n + kFractalRows - 1) / kFractalRows;
  const uint32_t k1 = (p.k + k0 - 1) / k0;
  const uint64_t a_fractal = kFractalRows * k0, c_fractal = kFractalRows * kFractalRows;
  CheckSettled(CheckCubeOperand(a, m1 * k1 * a_fractal, cannbot_ascendc::kMemL0A, "A", api), "A",
               api);
  CheckSettled(CheckCubeOperand(b, k1 * n1 * a_fractal, cannbot_ascendc::kMemL0B, "B", api), "B",
               api);
  if (bias != nullptr) {
    CheckSettled(CheckCubeOperand(*bias, static_cast<uint64_t>(p.n),
                                  cannbot_ascendc::kMemBias, "bias", api),
                 "bias", api);
  }
  cannbot_ascendc::Slot& out =
      CheckCubeOperand(c, static_cast<uint64_t>(m1) * n1 * c_fractal, cannbot_ascendc::kMemL0C,
                       "C", api);
  // C starts from the bias row (the bias form), from C itself (cmatrixInitVal false, or the
  // first releases' isBias), or from zero. Consecutive Mmads into one C are ordered by the
  // cube's own pipe: no wait between them.
  const bool accumulate = bias == nullptr && (p.isBias || !p.cmatrixInitVal);
  for (uint32_t i = 0; i < m1 * kFractalRows; ++i) {
    for (uint32_t j = 0; j < n1 * kFractalRows; ++j) {
      T* at = c.cb_data_ + (static_cast<uint64_t>(j / kFractalRows) * m1 + i / kFractalRows) *
                               c_fractal +
              (i % kFractalRows) * kFractalRows + j % kFractalRows;
      T sum = accumulate ? *at : T(0);
      if (bias != nullptr) sum = j < p.n ? static_cast<T>(bias->cb_data_[j]) : T(0);
      for (uint32_t q = 0; q < p.k; ++q) {
        const U av = a.cb_data_[(static_cast<uint64_t>(i / kFractalRows) * k1 + q / k0) *
                                    a_fractal +
                                (i % kFractalRows) * k0 + q % k0];
        const U bv = b.cb_data_[(static_cast<uint64_t>(q / k0) * n1 + j / kFractalRows) *
                                    a_fractal +
                                (j % kFractalRows) * k0 + q % k0];
        sum += static_cast<T>(CubeValue(av) * CubeValue(bv));
      }
      *at = sum;
    }
  }
  out.pending_cube = true;
  cannbot_ascendc::Count(cannbot_ascendc::kCubeFractals, static_cast<uint64_t>(m1) * n1 * k1);
}
}  // namespace cannbot_detail

template <typename T, typename U, typename S>
inline void Mmad(const LocalTensor<T>& c, const LocalTensor<U>& a, const LocalTensor<S>& b,
                 const MmadParams& p) {
  cannbot_detail::MmadWith(c, a, b, static_cast<const LocalTensor<T>*>(nullptr), p);
}
template <typename T, typename U, typename S, typename B>
inline void Mmad(const LocalTensor<T>& c, const LocalTensor<U>& a, const LocalTensor<S>& b,
                 const LocalTensor<B>& bias, const MmadParams& p) {
  cannbot_detail::MmadWith(c, a, b, &bias, p);
}

// ---- L0C -> CO2 (the first releases' read-out): DataCopy in matrix block mode ----
template <typename T, typename U>
inline void DataCopy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const DataCopyParams& p,
                     const DataCopyEnhancedParams& e) {
  using cannbot_ascendc::Violation;
  using namespace cannbot_detail;
  const char* api = "DataCopy(CO1->CO2, DataCopyEnhancedParams)";
  cannbot_ascendc::R().RequireBlock(api);
  if (e.blockMode != BlockMode::BLOCK_MODE_MATRIX) {
    Violation("not-emulated", "%s with a block mode other than BLOCK_MODE_MATRIX", api);
  }
  static_assert(std::is_same<T, U>::value || std::is_same<T, _Float16>::value,
                "cannbot ascendc emulation: the matrix read-out keeps the type or converts to "
                "half");
  CheckBlockCount(p.blockCount, api);
  const uint64_t fractal = kFractalRows * kFractalRows;
  const uint64_t src_pitch = (static_cast<uint64_t>(p.blockLen) + p.srcStride) * fractal;
  const uint64_t dst_pitch = (static_cast<uint64_t>(p.blockLen) + p.dstStride) * fractal;
  const uint64_t run = static_cast<uint64_t>(p.blockLen) * fractal;
  const uint64_t src_end = (p.blockCount - 1) * src_pitch + run;
  const uint64_t dst_end = (p.blockCount - 1) * dst_pitch + run;
  CheckSettled(CheckCubeOperand(src, src_end, cannbot_ascendc::kMemL0C, "source", api), "source",
               api);
  cannbot_ascendc::Slot& to = CheckCubeOperand(dst, dst_end, cannbot_ascendc::kMemUb,
                                               "destination", api);
  for (uint32_t b = 0; b < p.blockCount; ++b) {
    for (uint64_t i = 0; i < run; ++i) {
      float v = static_cast<float>(src.cb_data_[b * src_pitch + i]);
      if (e.isRelu && v < 0) v = 0;
      dst.cb_data_[b * dst_pitch + i] = static_cast<T>(v);
    }
  }
  to.pending_vec = true;  // the vector side's write: waited for before MTE3 reads it
  cannbot_ascendc::Count(cannbot_ascendc::kCubeMoveBytes, p.blockCount * run * sizeof(U));
}

// ---- L0C -> GM (Atlas A2): Fixpipe, NZ to row-major, with an optional fp32 -> fp16/bf16 ----
template <typename T, typename U, const FixpipeConfig& config = CFG_ROW_MAJOR>
inline void Fixpipe(const GlobalTensor<T>& dst, const LocalTensor<U>& src,
                    const FixpipeParamsV220& p) {
  using cannbot_ascendc::R;
  using cannbot_ascendc::Violation;
  using namespace cannbot_detail;
  const char* api = "Fixpipe";
  R().RequireBlock(api);
  if (config.format != CO2Layout::ROW_MAJOR || p.ndNum > 1 || p.isChannelSplit) {
    Violation("not-emulated", "%s other than one row-major (ND) output (CFG_ROW_MAJOR, ndNum 1)",
              api);
  }
  if (!(p.quantPre == NoQuant && std::is_same<T, U>::value) &&
      !(p.quantPre == F322F16 && std::is_same<T, _Float16>::value) &&
      !(p.quantPre == F322BF16 && std::is_same<T, bfloat16_t>::value)) {
    Violation("not-emulated", "%s with quantPre %d from %zu-byte to %zu-byte elements (cannbot "
              "emulates NoQuant, F322F16 and F322BF16)", api, static_cast<int>(p.quantPre),
              sizeof(U), sizeof(T));
  }
  const uint64_t n1 = (p.nSize + kFractalRows - 1) / kFractalRows;
  // srcStride only matters from the second fractal column on.
  if (p.mSize == 0 || p.nSize == 0 || (n1 > 1 && p.srcStride < p.mSize) ||
      p.dstStride < p.nSize) {
    Violation("bad-argument", "%s has mSize %u, nSize %u, srcStride %u, dstStride %u; sizes "
              "must be positive, srcStride (rows of L0C) at least mSize and dstStride (elements) "
              "at least nSize", api, p.mSize, p.nSize, p.srcStride, p.dstStride);
  }
  CheckSettled(CheckCubeOperand(src, (n1 - 1) * p.srcStride * kFractalRows +
                                         static_cast<uint64_t>(p.mSize) * kFractalRows,
                                cannbot_ascendc::kMemL0C, "source", api),
               "source", api);
  const uint64_t span = (static_cast<uint64_t>(p.mSize - 1) * p.dstStride + p.nSize) * sizeof(T);
  uint8_t* to = R().TranslateGm(dst.cb_addr_, span, /*write=*/true,
                                static_cast<int>(sizeof(T) * 8), api,
                                cannbot_ascendc::DtypeName<T>());
  for (uint32_t i = 0; i < p.mSize; ++i) {
    for (uint32_t j = 0; j < p.nSize; ++j) {
      float v = static_cast<float>(
          src.cb_data_[(static_cast<uint64_t>(j / kFractalRows) * p.srcStride + i) * kFractalRows +
                       j % kFractalRows]);
      if (p.reluEn && v < 0) v = 0;
      const T out = static_cast<T>(v);
      cannbot_detail::StoreToGm<T>(to + (static_cast<uint64_t>(i) * p.dstStride + j) * sizeof(T),
                                   reinterpret_cast<const uint8_t*>(&out), sizeof(T), api);
    }
  }
  cannbot_ascendc::Count(cannbot_ascendc::kUbToGmBytes,
                         static_cast<uint64_t>(p.mSize) * p.nSize * sizeof(T));
  cannbot_ascendc::Count(cannbot_ascendc::kUbToGmCopies, 1);
}

}  // namespace AscendC

#endif  // CANNBOT_ASCENDC_CUBE_H
