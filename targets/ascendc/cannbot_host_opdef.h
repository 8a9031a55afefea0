// cannbot_host_opdef.h: the operator definition half of cannbot's emulated host API
// (cannbot_host_api.h): `ops::OpDef` and its parameter, attribute and AI Core configuration
// builders, `OP_ADD`, and the tiling-data macros (`BEGIN_TILING_DATA_DEF` ...).
//
// Written from the public Ascend C documentation; not vendor code. Nothing here runs at load
// time: OP_ADD defines a function that builds the definition on first call.
// Thread-safety: single-threaded, like the launch that uses it.
#ifndef CANNBOT_HOST_OPDEF_H
#define CANNBOT_HOST_OPDEF_H

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cannbot_host_api.h"

namespace ops {

enum Option { IGNORE = 0, OPTIONAL = 1, REQUIRED = 2, DYNAMIC = 3, VIRTUAL = 4 };

class OpParamDef {
 public:
  explicit OpParamDef(const char* name) : name_(name) {}
  OpParamDef& ParamType(Option o) { option_ = o; return *this; }
  OpParamDef& DataType(std::vector<ge::DataType> t) { dtypes_ = std::move(t); return *this; }
  OpParamDef& DataTypeList(std::vector<ge::DataType> t) { dtypes_ = std::move(t); list_ = true; return *this; }
  OpParamDef& Format(std::vector<ge::Format> f) { formats_ = std::move(f); return *this; }
  OpParamDef& FormatList(std::vector<ge::Format> f) { formats_ = std::move(f); return *this; }
  OpParamDef& UnknownShapeFormat(std::vector<ge::Format>) { return *this; }
  OpParamDef& ValueDepend(Option) { return *this; }
  OpParamDef& AutoContiguous() { return *this; }
  OpParamDef& IgnoreContiguous() { return *this; }
  OpParamDef& Scalar() { return *this; }
  OpParamDef& ScalarList() { return *this; }
  OpParamDef& OutputShapeDependOnCompute() { return *this; }
  OpParamDef& InitValue(uint64_t) { return *this; }

  std::string name_;
  Option option_ = REQUIRED;
  std::vector<ge::DataType> dtypes_;
  std::vector<ge::Format> formats_;
  bool list_ = false;  // DataTypeList: one type for every combination
};

class OpAttrDef {
 public:
  explicit OpAttrDef(const char* name) : name_(name) {}
  OpAttrDef& AttrType(Option o) { option_ = o; return *this; }
  OpAttrDef& Bool(bool v = false) { kind_ = "bool"; value_.b = v; value_.i = v; value_.f = v; return *this; }
  OpAttrDef& Float(float v = 0) { kind_ = "float"; value_.f = v; value_.i = static_cast<int64_t>(v); return *this; }
  OpAttrDef& Int(int64_t v = 0) { kind_ = "int"; value_.i = v; value_.f = static_cast<float>(v); return *this; }
  OpAttrDef& String(const char* v = "") { kind_ = "string"; value_.s = v; return *this; }
  OpAttrDef& ListInt(std::vector<int64_t> v = {}) { kind_ = "list_int"; value_.ints = std::move(v); return *this; }
  OpAttrDef& ListFloat(std::vector<float> = {}) { kind_ = "list_float"; return *this; }
  OpAttrDef& ListBool(std::vector<bool> = {}) { kind_ = "list_bool"; return *this; }

  std::string name_;
  Option option_ = OPTIONAL;
  std::string kind_ = "int";
  gert::RuntimeAttrs::Value value_;
};

using TilingFn = ge::graphStatus (*)(gert::TilingContext*);
using InferShapeFn = ge::graphStatus (*)(gert::InferShapeContext*);
using InferDataTypeFn = ge::graphStatus (*)(gert::InferDataTypeContext*);

class OpAICoreConfig {
 public:
  OpAICoreConfig& AsyncFlag(bool) { return *this; }
  OpAICoreConfig& RangeLimitValue(const char*) { return *this; }
  OpAICoreConfig& DynamicCompileStaticFlag(bool) { return *this; }
  OpAICoreConfig& DynamicFormatFlag(bool) { return *this; }
  OpAICoreConfig& DynamicRankSupportFlag(bool) { return *this; }
  OpAICoreConfig& DynamicShapeSupportFlag(bool) { return *this; }
  OpAICoreConfig& NeedCheckSupportFlag(bool) { return *this; }
  OpAICoreConfig& PrecisionReduceFlag(bool) { return *this; }
  OpAICoreConfig& ExtendCfgInfo(const char*, const char*) { return *this; }
  OpParamDef& Input(const char* name) { params_.emplace_back(name); return params_.back(); }
  OpParamDef& Output(const char* name) { params_.emplace_back(name); return params_.back(); }
  std::vector<OpParamDef> params_;
};

class OpAICoreDef {
 public:
  OpAICoreDef& SetTiling(TilingFn f) { tiling_ = f; return *this; }
  template <typename F>
  OpAICoreDef& SetTilingParse(F) { return *this; }
  template <typename F>
  OpAICoreDef& SetCheckSupport(F) { return *this; }
  template <typename F>
  OpAICoreDef& SetOpSelectFormat(F) { return *this; }
  OpAICoreDef& AddConfig(const char* soc) { socs_.push_back(soc); return *this; }
  OpAICoreDef& AddConfig(const char* soc, OpAICoreConfig&) { socs_.push_back(soc); return *this; }

  TilingFn tiling_ = nullptr;
  std::vector<std::string> socs_;
};

class OpMC2Def {
 public:
  OpMC2Def& HcclGroup(const char*) { return *this; }
};

class OpDef {
 public:
  explicit OpDef(const char* type) : type_(type) {}
  virtual ~OpDef() = default;
  OpParamDef& Input(const char* name) { inputs_.emplace_back(name); return inputs_.back(); }
  OpParamDef& Output(const char* name) { outputs_.emplace_back(name); return outputs_.back(); }
  OpAttrDef& Attr(const char* name) { attrs_.emplace_back(name); return attrs_.back(); }
  OpDef& SetInferShape(InferShapeFn f) { infer_shape_ = f; return *this; }
  template <typename F>
  OpDef& SetInferShapeRange(F) { return *this; }
  OpDef& SetInferDataType(InferDataTypeFn f) { infer_dtype_ = f; return *this; }
  OpAICoreDef& AICore() { return aicore_; }
  OpMC2Def& MC2() { return mc2_; }

  std::string type_;
  std::vector<OpParamDef> inputs_, outputs_;
  std::vector<OpAttrDef> attrs_;
  InferShapeFn infer_shape_ = nullptr;
  InferDataTypeFn infer_dtype_ = nullptr;
  OpAICoreDef aicore_;
  OpMC2Def mc2_;
};

}  // namespace ops

// The package's one operator definition, built on first call (no load-time code). A C symbol,
// so the name is the same whichever namespace OP_ADD is written in.
extern "C" ops::OpDef* cannbot_package_opdef();
#define OP_ADD(opType, ...)                              \
  extern "C" ::ops::OpDef* cannbot_package_opdef() {     \
    static opType cannbot_definition(#opType);           \
    return &cannbot_definition;                          \
  }

// The registrations of the current operator repositories, outside the OpDef:
//   IMPL_OP_OPTILING(AddExample).Tiling(TilingFunc).TilingParse<CompileInfo>(ParseFunc);
//   IMPL_OP_INFERSHAPE(AddExample).InferShape(InferShapeFunc);
// Each becomes a constant record (constexpr builders, so nothing runs at load time) with a
// fixed name in whatever namespace it is written; cannbot_host_impl.h, included after the
// package's host code, finds them there. One of each per package.
namespace gert {
class OpImplRecord {
 public:
  constexpr explicit OpImplRecord(const char* type) : type_(type) {}
  constexpr OpImplRecord Tiling(ops::TilingFn f, size_t = 0) const {
    OpImplRecord r = *this;
    r.tiling_ = f;
    return r;
  }
  // TilingParse<CompileInfo>(parse): the struct the parse function fills, one per process.
  template <typename CompileInfo = void, typename F = void>
  constexpr OpImplRecord TilingParse(F parse) const {
    OpImplRecord r = *this;
    if constexpr (!std::is_void_v<CompileInfo> &&
                  std::is_convertible_v<F, TilingParseFn>) {
      r.parse_ = parse;
      r.compile_info_ = &CompileInfoOf<CompileInfo>;
    }
    return r;
  }
  constexpr OpImplRecord InferShape(ops::InferShapeFn f) const {
    OpImplRecord r = *this;
    r.infer_shape_ = f;
    return r;
  }
  constexpr OpImplRecord InferDataType(ops::InferDataTypeFn f) const {
    OpImplRecord r = *this;
    r.infer_dtype_ = f;
    return r;
  }
  template <typename F>
  constexpr OpImplRecord InferShapeRange(F) const { return *this; }
  template <typename... A>
  constexpr OpImplRecord InputsDataDependency(A...) const { return *this; }
  template <typename... A>
  constexpr OpImplRecord TilingInputsDataDependency(A...) const { return *this; }
  template <typename... A>
  constexpr OpImplRecord OutputShapeDependOnCompute(A...) const { return *this; }
  template <typename... A>
  constexpr OpImplRecord PrivateAttr(A...) const { return *this; }

  using TilingParseFn = ge::graphStatus (*)(TilingParseContext*);
  template <typename T>
  static void* CompileInfoOf() {
    static T info{};
    return &info;
  }

  const char* type_;
  ops::TilingFn tiling_ = nullptr;
  TilingParseFn parse_ = nullptr;
  void* (*compile_info_)() = nullptr;
  ops::InferShapeFn infer_shape_ = nullptr;
  ops::InferDataTypeFn infer_dtype_ = nullptr;
};
}  // namespace gert

#define IMPL_OP_OPTILING(op) \
  [[maybe_unused]] static constexpr ::gert::OpImplRecord cannbot_impl_optiling = ::gert::OpImplRecord(#op)
#define IMPL_OP_INFERSHAPE(op) \
  [[maybe_unused]] static constexpr ::gert::OpImplRecord cannbot_impl_infershape = ::gert::OpImplRecord(#op)
#define IMPL_OP(op) \
  [[maybe_unused]] static constexpr ::gert::OpImplRecord cannbot_impl_op = ::gert::OpImplRecord(#op)

// The securec functions CANN's host headers bring in (op_host code clears its tiling struct
// with memset_s): 0 (EOK) on success, an errno value when the destination is too small.
#ifndef EOK
#define EOK 0
#endif
inline int memset_s(void* dest, size_t dest_max, int c, size_t count) {
  if (dest == nullptr || count > dest_max) return 34;  // ERANGE
  std::memset(dest, c, count);
  return EOK;
}
inline int memcpy_s(void* dest, size_t dest_max, const void* src, size_t count) {
  if (dest == nullptr || src == nullptr || count > dest_max) return 34;
  std::memcpy(dest, src, count);
  return EOK;
}

// Tiling data: a plain struct whose bytes are the tiling block the kernel reads.
namespace cannbot_host {
template <typename Derived>
struct TilingDef {
  void SaveToBuffer(void* buffer, size_t capacity) const {
    if (sizeof(Derived) <= capacity) std::memcpy(buffer, static_cast<const Derived*>(this), sizeof(Derived));
    else cannbot_tiling_overflow(sizeof(Derived), capacity);
  }
  size_t GetDataSize() const { return sizeof(Derived); }
  // What the device would do with a tiling larger than its buffer is undefined: refuse.
  [[noreturn]] static void cannbot_tiling_overflow(size_t need, size_t capacity) {
    std::fflush(stdout);
    std::printf("cannbot-ascendc-violation: tiling: the tiling data is %zu bytes but the tiling "
                "buffer holds %zu (SaveToBuffer)\n", need, capacity);
    std::fflush(stdout);
    std::abort();
  }
};
}  // namespace cannbot_host

#define BEGIN_TILING_DATA_DEF(name) struct name : public ::cannbot_host::TilingDef<name> {
#define TILING_DATA_FIELD_DEF(type, field)     \
  type field{};                                \
  void set_##field(type v) { field = v; }      \
  type get_##field() const { return field; }
#define TILING_DATA_FIELD_DEF_ARR(type, count, field)                                     \
  type field[count]{};                                                                    \
  void set_##field(const type* v) { std::memcpy(field, v, sizeof(field)); }               \
  const type* get_##field() const { return field; }
#define TILING_DATA_FIELD_DEF_STRUCT(stype, field) \
  stype field{};                                   \
  stype& get_##field() { return field; }           \
  void set_##field(const stype& v) { field = v; }
#define END_TILING_DATA_DEF }
#define REGISTER_TILING_DATA_CLASS(opType, className) static_assert(true, "");

#endif  // CANNBOT_HOST_OPDEF_H
