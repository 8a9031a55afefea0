// cannbot_host_api.h: cannbot's CPU emulation of the host-side API an Ascend C operator
// package's `op_host/` code is written against: the operator definition (`ops::OpDef`,
// `OP_ADD`), the tiling context (`gert::TilingContext`, shapes, attributes, raw tiling data,
// workspace sizes), the platform query (`platform_ascendc::PlatformAscendC`) and the
// tiling-data macros (`BEGIN_TILING_DATA_DEF` ...; the last two in cannbot_host_opdef.h). The
// CANN header paths an op_host file includes (`register/op_def_registry.h`,
// `register/tilingdata_base.h`, `tiling/platform/platform_ascendc.h`, ...) are thin files that
// include this one.
//
// Written from the public Ascend C documentation (operator prototype definition, host tiling
// implementation); it is not vendor code. Enum values follow the documented ge::DataType and
// ge::Format numbering, so a package that stores them in its tiling data reads the same numbers.
//
// The same header is seen by the kernel's translation unit (through the tiling header the
// package's generated prelude includes), where only the tiling-data struct matters: a tiling
// struct is a plain standard-layout struct whose bytes are what SaveToBuffer copies and what
// GET_TILING_DATA reads back, field for field.
//
// Nothing here runs at load time (no namespace-scope objects with constructors): OP_ADD defines
// a function that builds the definition on first call. One OP_ADD per package.
// Thread-safety: single-threaded, like the launch that uses it.
#ifndef CANNBOT_HOST_API_H
#define CANNBOT_HOST_API_H

// The standard headers CANN's host headers bring with them; op_host code relies on them.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <unordered_map>
#include <initializer_list>
#include <iostream>  // the CANN host headers pull it in; op_host code uses std::cout
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "cannbot_tiling.h"  // the device figures the build passes (CANNBOT_VECTOR_CORES, ...)

namespace ge {

using graphStatus = uint32_t;
constexpr graphStatus GRAPH_SUCCESS = 0;
constexpr graphStatus GRAPH_FAILED = 0xFFFFFFFF;
constexpr graphStatus GRAPH_PARAM_INVALID = 50331649;

enum DataType {
  DT_FLOAT = 0,
  DT_FLOAT16 = 1,
  DT_INT8 = 2,
  DT_INT32 = 3,
  DT_UINT8 = 4,
  DT_INT16 = 6,
  DT_UINT16 = 7,
  DT_UINT32 = 8,
  DT_INT64 = 9,
  DT_UINT64 = 10,
  DT_DOUBLE = 11,
  DT_BOOL = 12,
  DT_COMPLEX64 = 16,
  DT_COMPLEX128 = 17,
  DT_BF16 = 27,
  DT_UNDEFINED = 28,
};

enum Format {
  FORMAT_NCHW = 0,
  FORMAT_NHWC = 1,
  FORMAT_ND = 2,
  FORMAT_NC1HWC0 = 3,
  FORMAT_FRACTAL_Z = 4,
  FORMAT_FRACTAL_NZ = 29,
  FORMAT_NCDHW = 30,
  FORMAT_NDHWC = 27,
};

inline int GetSizeByDataType(DataType t) {
  switch (t) {
    case DT_FLOAT: case DT_INT32: case DT_UINT32: return 4;
    case DT_FLOAT16: case DT_BF16: case DT_INT16: case DT_UINT16: return 2;
    case DT_INT8: case DT_UINT8: case DT_BOOL: return 1;
    case DT_INT64: case DT_UINT64: case DT_DOUBLE: case DT_COMPLEX64: return 8;
    case DT_COMPLEX128: return 16;
    default: return -1;
  }
}

class AscendString {
 public:
  AscendString() = default;
  AscendString(const char* s) : s_(s == nullptr ? "" : s) {}  // NOLINT: implicit, as in CANN
  const char* GetString() const { return s_.c_str(); }
  bool operator<(const AscendString& o) const { return s_ < o.s_; }
  bool operator==(const AscendString& o) const { return s_ == o.s_; }

 private:
  std::string s_;
};

// An operator handle (check-support callbacks take one); cannbot never calls them.
class Operator {};

// A graph-level shape: what the host tiling functions of the high-level APIs take.
class Shape {
 public:
  Shape() = default;
  explicit Shape(const std::vector<int64_t>& dims) : dims_(dims) {}
  size_t GetDimNum() const { return dims_.size(); }
  int64_t GetDim(size_t i) const { return i < dims_.size() ? dims_[i] : 0; }
  std::vector<int64_t> GetDims() const { return dims_; }
  int64_t GetShapeSize() const {
    int64_t n = 1;
    for (int64_t d : dims_) n *= d;
    return dims_.empty() ? 0 : n;
  }

 private:
  std::vector<int64_t> dims_;
};

struct TypeUtils {
  static bool GetDataTypeLength(DataType t, uint32_t& length) {
    const int n = GetSizeByDataType(t);
    if (n <= 0) return false;
    length = static_cast<uint32_t>(n);
    return true;
  }
  static std::string DataTypeToSerialString(DataType t) {
    switch (t) {
      case DT_FLOAT: return "DT_FLOAT";
      case DT_FLOAT16: return "DT_FLOAT16";
      case DT_BF16: return "DT_BF16";
      case DT_INT8: return "DT_INT8";
      case DT_INT32: return "DT_INT32";
      case DT_INT64: return "DT_INT64";
      default: return "DT_UNDEFINED";
    }
  }
};

}  // namespace ge

namespace gert {

// A tensor's dimensions, at most kMaxDimNum of them, in a fixed array as CANN keeps them: a
// namespace-scope `static const gert::Shape kScalar = {1};` in op_host code is then constant
// data, not code run when the library loads.
class Shape {
 public:
  static constexpr size_t kMaxDimNum = 25;
  constexpr Shape() = default;
  constexpr Shape(std::initializer_list<int64_t> dims) {
    for (int64_t d : dims) {
      if (num_ < kMaxDimNum) dims_[num_++] = d;
    }
  }
  constexpr size_t GetDimNum() const { return num_; }
  constexpr int64_t GetDim(size_t i) const { return i < num_ ? dims_[i] : 0; }
  void SetDimNum(size_t n) {
    n = n < kMaxDimNum ? n : kMaxDimNum;
    for (size_t i = num_; i < n; ++i) dims_[i] = 0;
    num_ = n;
  }
  void SetDim(size_t i, int64_t v) {
    if (i < num_) dims_[i] = v;
  }
  Shape& AppendDim(int64_t v) {
    if (num_ < kMaxDimNum) dims_[num_++] = v;
    return *this;
  }
  constexpr int64_t GetShapeSize() const {
    int64_t n = 1;
    for (size_t i = 0; i < num_; ++i) n *= dims_[i];
    return n;
  }
  constexpr bool IsScalar() const { return num_ == 0; }
  constexpr int64_t operator[](size_t i) const { return GetDim(i); }
  int64_t& operator[](size_t i) { return dims_[i < kMaxDimNum ? i : kMaxDimNum - 1]; }
  bool operator==(const Shape& o) const {
    if (num_ != o.num_) return false;
    for (size_t i = 0; i < num_; ++i) {
      if (dims_[i] != o.dims_[i]) return false;
    }
    return true;
  }
  bool operator!=(const Shape& o) const { return !(*this == o); }

 private:
  int64_t dims_[kMaxDimNum] = {};
  size_t num_ = 0;
};

class StorageShape {
 public:
  StorageShape() = default;
  explicit StorageShape(const Shape& s) : origin_(s), storage_(s) {}
  const Shape& GetOriginShape() const { return origin_; }
  const Shape& GetStorageShape() const { return storage_; }
  Shape& MutableOriginShape() { return origin_; }
  Shape& MutableStorageShape() { return storage_; }

 private:
  Shape origin_, storage_;
};

class CompileTimeTensorDesc {
 public:
  ge::DataType GetDataType() const { return dtype_; }
  ge::Format GetOriginFormat() const { return format_; }
  ge::Format GetStorageFormat() const { return format_; }
  ge::DataType dtype_ = ge::DT_FLOAT;
  ge::Format format_ = ge::FORMAT_ND;
};

class Tensor {
 public:
  const Shape& GetOriginShape() const { return shape_->GetOriginShape(); }
  const Shape& GetStorageShape() const { return shape_->GetStorageShape(); }
  int64_t GetShapeSize() const { return shape_->GetOriginShape().GetShapeSize(); }
  ge::DataType GetDataType() const { return desc_->GetDataType(); }
  const StorageShape* shape_ = nullptr;
  const CompileTimeTensorDesc* desc_ = nullptr;
};

// Attribute values in OpDef order; every value is kept in each representation.
class RuntimeAttrs {
 public:
  struct Value {
    int64_t i = 0;
    float f = 0;
    bool b = false;
    std::string s;
    std::vector<int64_t> ints;
  };
  template <typename T>
  const T* GetAttrPointer(size_t index) const {
    if (index >= values_.size()) return nullptr;
    const Value& v = values_[index];
    if constexpr (std::is_same_v<T, float>) return &v.f;
    else if constexpr (std::is_same_v<T, bool>) return &v.b;
    else if constexpr (std::is_same_v<T, int64_t>) return &v.i;
    else if constexpr (std::is_same_v<T, char>) return v.s.c_str();
    else return reinterpret_cast<const T*>(&v.i);
  }
  const int64_t* GetInt(size_t i) const { return GetAttrPointer<int64_t>(i); }
  const float* GetFloat(size_t i) const { return GetAttrPointer<float>(i); }
  const bool* GetBool(size_t i) const { return GetAttrPointer<bool>(i); }
  const char* GetStr(size_t i) const { return GetAttrPointer<char>(i); }
  size_t GetAttrNum() const { return values_.size(); }
  std::vector<Value> values_;
};

class TilingData {
 public:
  void* GetData() { return data_; }
  const void* GetData() const { return data_; }
  size_t GetCapacity() const { return capacity_; }
  size_t GetDataSize() const { return size_; }
  void SetDataSize(size_t size) { size_ = size; }
  uint8_t* data_ = nullptr;
  size_t capacity_ = 0;
  size_t size_ = 0;
};

}  // namespace gert

namespace fe {
// What the platform query reads; filled from cannbot's device profile.
struct PlatFormInfos {
  uint32_t vector_cores = 0;
  uint32_t cube_cores = 0;
  uint64_t ub_bytes = 0;
  uint64_t l1_bytes = 0;
  uint64_t l0a_bytes = 0, l0b_bytes = 0, l0c_bytes = 0;
  uint64_t l2_bytes = 0;
};
// The device cannbot emulates: the device profile's figures, as the build defines them
// (ascendc::CompileDefines; cannbot_tiling.h has the 910B's where a build passes none).
inline PlatFormInfos EmulatedPlatform() {
  PlatFormInfos p;
  p.vector_cores = CANNBOT_VECTOR_CORES;
  p.cube_cores = CANNBOT_VECTOR_CORES / 2;
  p.ub_bytes = CANNBOT_UB_BYTES;
  p.l1_bytes = CANNBOT_L1_BYTES;
  p.l0a_bytes = CANNBOT_L0A_BYTES;
  p.l0b_bytes = CANNBOT_L0B_BYTES;
  p.l0c_bytes = CANNBOT_L0C_BYTES;
  p.l2_bytes = 192ull * 1024 * 1024;
  return p;
}
}  // namespace fe

namespace gert {

class TilingContext {
 public:
  const StorageShape* GetInputShape(size_t i) const { return At(inputs_, i); }
  const StorageShape* GetOptionalInputShape(size_t i) const { return At(inputs_, i); }
  const StorageShape* GetOutputShape(size_t i) const { return At(outputs_, i); }
  const Tensor* GetInputTensor(size_t i) const { return At(input_tensors_, i); }
  const Tensor* GetOptionalInputTensor(size_t i) const { return At(input_tensors_, i); }
  const CompileTimeTensorDesc* GetInputDesc(size_t i) const { return At(input_descs_, i); }
  // Every optional input of the op's spec is given, so it is the plain input's.
  const CompileTimeTensorDesc* GetOptionalInputDesc(size_t i) const { return At(input_descs_, i); }
  const CompileTimeTensorDesc* GetOutputDesc(size_t i) const { return At(output_descs_, i); }
  const RuntimeAttrs* GetAttrs() const { return &attrs_; }
  fe::PlatFormInfos* GetPlatformInfo() { return &platform_; }
  ge::graphStatus SetBlockDim(uint32_t n) {
    block_dim_ = n;
    return ge::GRAPH_SUCCESS;
  }
  uint32_t GetBlockDim() const { return block_dim_; }
  ge::graphStatus SetTilingKey(uint64_t k) {
    tiling_key_ = k;
    return ge::GRAPH_SUCCESS;
  }
  uint64_t GetTilingKey() const { return tiling_key_; }
  TilingData* GetRawTilingData() { return &raw_; }
  // The tiling struct in place in the raw tiling buffer (the ops-math / ops-nn style: a plain
  // struct shared with the kernel), its size taken as the data size; nullptr when the struct is
  // larger than the buffer.
  template <typename T>
  T* GetTilingData() {
    static_assert(std::is_trivially_copyable_v<T>, "a tiling struct is copied to the kernel");
    if (raw_.data_ == nullptr || sizeof(T) > raw_.capacity_) return nullptr;
    raw_.size_ = sizeof(T);
    return reinterpret_cast<T*>(raw_.data_);
  }
  // What the registered TilingParse function filled (it runs before the tiling, on the same
  // platform facts); null when the package registers none.
  template <typename T>
  const T* GetCompileInfo() const {
    return static_cast<const T*>(compile_info_);
  }
  const void* GetCompileInfo() const { return compile_info_; }
  size_t* GetWorkspaceSizes(size_t num) {
    if (num > workspaces_.size()) workspaces_.resize(num, 0);
    return workspaces_.data();
  }
  size_t GetWorkspaceNum() const { return workspaces_.size(); }
  ge::graphStatus SetScheduleMode(uint32_t) { return ge::GRAPH_SUCCESS; }
  ge::graphStatus SetNeedAtomic(bool) { return ge::GRAPH_SUCCESS; }
  const char* GetNodeName() const { return op_type_.c_str(); }
  const char* GetNodeType() const { return op_type_.c_str(); }
  size_t GetComputeNodeInputNum() const { return inputs_.size(); }

  // Filled by cannbot before the tiling function runs.
  std::vector<StorageShape> inputs_, outputs_;
  std::vector<CompileTimeTensorDesc> input_descs_, output_descs_;
  std::vector<Tensor> input_tensors_;
  RuntimeAttrs attrs_;
  fe::PlatFormInfos platform_;
  TilingData raw_;
  std::vector<size_t> workspaces_;
  uint32_t block_dim_ = 0;
  uint64_t tiling_key_ = 0;
  std::string op_type_;
  const void* compile_info_ = nullptr;

 private:
  template <typename T>
  static const T* At(const std::vector<T>& v, size_t i) {
    return i < v.size() ? &v[i] : nullptr;
  }
};

class InferShapeContext {
 public:
  const char* GetNodeName() const { return op_type_.c_str(); }
  const char* GetNodeType() const { return op_type_.c_str(); }
  std::string op_type_;
  const Shape* GetInputShape(size_t i) const { return i < inputs_.size() ? &inputs_[i] : nullptr; }
  Shape* GetOutputShape(size_t i) { return i < outputs_.size() ? &outputs_[i] : nullptr; }
  const RuntimeAttrs* GetAttrs() const { return &attrs_; }
  std::vector<Shape> inputs_, outputs_;
  RuntimeAttrs attrs_;
};

class InferDataTypeContext {
 public:
  const char* GetNodeName() const { return "InferDataType"; }
  ge::DataType GetInputDataType(size_t i) const { return i < inputs_.size() ? inputs_[i] : ge::DT_UNDEFINED; }
  // Compiled only: cannbot takes output dtypes from the OpDef's combinations, so no attribute
  // is ever set here.
  const RuntimeAttrs* GetAttrs() const { return &attrs_; }
  ge::graphStatus SetOutputDataType(size_t i, ge::DataType t) {
    if (i >= outputs_.size()) outputs_.resize(i + 1, ge::DT_UNDEFINED);
    outputs_[i] = t;
    return ge::GRAPH_SUCCESS;
  }
  std::vector<ge::DataType> inputs_, outputs_;
  RuntimeAttrs attrs_;
};

class Range {
 public:
  Shape* GetMin() { return &min_; }
  Shape* GetMax() { return &max_; }
  const Shape* GetMin() const { return &min_; }
  const Shape* GetMax() const { return &max_; }
  Shape min_, max_;
};

class InferShapeRangeContext {
 public:
  const char* GetNodeName() const { return "InferShapeRange"; }
  const Range* GetInputShapeRange(size_t i) const { return i < inputs_.size() ? &inputs_[i] : nullptr; }
  Range* GetOutputShapeRange(size_t i) { return i < outputs_.size() ? &outputs_[i] : nullptr; }
  std::vector<Range> inputs_, outputs_;
};

// Compile-time parsing of tiling information: cannbot has no compile step, so never called.
// The compile-time half of a tiling (TilingParse): reads the platform once and fills the
// operator's compile-info struct, which the tiling reads back (TilingContext::GetCompileInfo).
// cannbot runs it just before the tiling, with the same platform facts.
class TilingParseContext {
 public:
  const char* GetNodeName() const { return op_type_.c_str(); }
  fe::PlatFormInfos* GetPlatformInfo() { return platform_; }
  template <typename T>
  T* GetCompiledInfo() { return static_cast<T*>(compiled_); }
  const char* GetCompiledJson() const { return "{}"; }
  std::string op_type_;
  fe::PlatFormInfos* platform_ = nullptr;
  void* compiled_ = nullptr;
};

}  // namespace gert

namespace platform_ascendc {

enum class CoreMemType { L0_A = 0, L0_B = 1, L0_C = 2, L1 = 3, L2 = 4, UB = 5, HBM = 6 };
enum class SocVersion { ASCEND910 = 0, ASCEND910B = 1, ASCEND310P = 2, ASCEND310B = 3 };

class PlatformAscendC {
 public:
  explicit PlatformAscendC(const fe::PlatFormInfos* info) : info_(info) {}
  uint32_t GetCoreNum() const { return info_->vector_cores; }
  uint32_t GetCoreNumAiv() const { return info_->vector_cores; }
  uint32_t GetCoreNumAic() const { return info_->cube_cores; }
  void GetCoreMemSize(CoreMemType type, uint64_t& size) const {
    switch (type) {
      case CoreMemType::UB: size = info_->ub_bytes; break;
      case CoreMemType::L1: size = info_->l1_bytes; break;
      case CoreMemType::L0_A: size = info_->l0a_bytes; break;
      case CoreMemType::L0_B: size = info_->l0b_bytes; break;
      case CoreMemType::L0_C: size = info_->l0c_bytes; break;
      case CoreMemType::L2: size = info_->l2_bytes; break;
      default: size = 0;
    }
  }
  SocVersion GetSocVersion() const { return SocVersion::ASCEND910B; }
  // The system workspace of an Atlas A2 device (16 MiB), which a tiling adds to its own and the
  // hard SyncAll needs; cannbot's launch gives the kernel all of it as user workspace
  // (GetUserWorkspace is the workspace itself), and no library API of its own uses it.
  uint32_t GetLibApiWorkSpaceSize() const { return 16u << 20; }
  uint32_t CalcTschBlockDim(uint32_t slice, uint32_t aic, uint32_t aiv) const {
    (void)aic;
    (void)aiv;
    return slice;
  }

 private:
  const fe::PlatFormInfos* info_;
};

// PlatformAscendCManager::GetInstance([socVersion]): host code outside a tiling function (a
// sample's main) asks for the platform here; it is the emulated device whatever SoC is named.
class PlatformAscendCManager {
 public:
  static PlatformAscendC* GetInstance(const char* socVersion = nullptr) {
    (void)socVersion;
    static const fe::PlatFormInfos infos = fe::EmulatedPlatform();
    static PlatformAscendC platform(&infos);
    return &platform;
  }
};

}  // namespace platform_ascendc

// The operator definition half: ops::OpDef, OP_ADD, the tiling-data macros.
#include "cannbot_host_opdef.h"

#endif  // CANNBOT_HOST_API_H
