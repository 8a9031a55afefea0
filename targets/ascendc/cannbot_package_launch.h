// cannbot_package_launch.h: runs an operator package's host tiling function for one call, the
// way the CANN runtime does before a launch, and checks what it chose.
//
// cannbot's generated wrapper for a package (validator/ascendc_package.cc) describes the call
// (every tensor's dimensions and dtype, the op's sizes and scalars by name),
// calls Tile(), then cannbot_ascendc::Launch with the block dim, tiling data, tiling key and
// workspace that came back. Tile() builds a gert::TilingContext from that description and the
// device profile's platform facts, fills the OpDef's attributes by name (or their defaults),
// checks the OpDef's InferShape against the op's output sizes, runs the tiling function, and
// reports a failing status, a block dim of 0, tiling data past the buffer, or a write past it
// as `cannbot-ascendc-violation: tiling: ...` (docs/ascendc.md, "Operator packages").
//
// Ownership: Tile() returns values; the context lives for the call.
// Thread-safety: one call at a time, like the launch.
#ifndef CANNBOT_PACKAGE_LAUNCH_H
#define CANNBOT_PACKAGE_LAUNCH_H

#include <cctype>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "cannbot_host_api.h"
#include "cannbot_host_ops_base.h"
#include "cannbot_launch.h"

// The package's IMPL_OP_OPTILING / IMPL_OP_INFERSHAPE functions (cannbot_host_impl.h), or null.
extern "C" ops::TilingFn cannbot_package_tiling_impl();
extern "C" ops::InferShapeFn cannbot_package_infershape_impl();
extern "C" void cannbot_package_tiling_parse_impl(::gert::OpImplRecord::TilingParseFn* parse,
                                                  void** compile_info);

namespace cannbot_package {

struct Request {
  std::vector<std::vector<int64_t>> inputs, outputs;  // dimensions per tensor
  std::vector<ge::DataType> input_dtypes, output_dtypes;  // one per tensor
  std::vector<std::pair<const char*, double>> values;  // the op's sizes and scalars by name
};

struct Prepared {
  CannbotTiling tiling{};
  cannbot_ascendc::LaunchExtras extras;
};

namespace detail {

// Matches an attribute to the op's sizes and scalars by name; engine/package_validation.cc
// (AttrKey) folds names the same way to say which attributes nothing fills.
inline std::string Folded(const std::string& name) {
  std::string out;
  for (char c : name) {
    if (c != '_') out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out == "epsilon" ? "eps" : out;
}

inline cannbot_ascendc::Elem ElemOf(ge::DataType t) {
  using cannbot_ascendc::Elem;
  switch (t) {
    case ge::DT_FLOAT: return Elem::kFloat;
    case ge::DT_FLOAT16: return Elem::kHalf;
    case ge::DT_BF16: return Elem::kBf16;
    case ge::DT_INT8: return Elem::kInt8;
    case ge::DT_UINT8: return Elem::kUint8;
    case ge::DT_INT16: return Elem::kInt16;
    case ge::DT_UINT16: return Elem::kUint16;
    case ge::DT_INT32: return Elem::kInt32;
    case ge::DT_UINT32: return Elem::kUint32;
    case ge::DT_INT64: return Elem::kInt64;
    case ge::DT_UINT64: return Elem::kUint64;
    case ge::DT_BOOL: return Elem::kBool;
    default:
      cannbot_ascendc::Violation("not-emulated", "tensors of ge::DataType %d are not launched",
                                 static_cast<int>(t));
  }
}

inline gert::Shape ToShape(const std::vector<int64_t>& dims) {
  gert::Shape s;
  for (int64_t d : dims) s.AppendDim(d);
  return s;
}

inline void FillAttrs(const ops::OpDef& def, const Request& r, gert::RuntimeAttrs* attrs) {
  for (const ops::OpAttrDef& a : def.attrs_) {
    gert::RuntimeAttrs::Value v = a.value_;
    for (const auto& [name, value] : r.values) {
      if (Folded(name) != Folded(a.name_)) continue;
      v.f = static_cast<float>(value);
      v.i = static_cast<int64_t>(value);
      v.b = value != 0;
    }
    attrs->values_.push_back(v);
  }
}

// "; it logged: <message>" when the host code logged an error (OP_LOGE), else "".
inline std::string LastErrorNote() {
  const std::string& first = ::cannbot_host::FirstError();
  return first.empty() ? std::string() : "; it logged: " + first;
}

// Runs the registered TilingParse (the compile-time half) on the launch's platform, so the
// tiling reads the compile info it filled.
inline void ParseCompileInfo(const std::string& type, gert::TilingContext* ctx) {
  gert::OpImplRecord::TilingParseFn parse = nullptr;
  void* info = nullptr;
  cannbot_package_tiling_parse_impl(&parse, &info);
  if (parse == nullptr || info == nullptr) return;
  gert::TilingParseContext parse_ctx;
  parse_ctx.op_type_ = type;
  parse_ctx.platform_ = ctx->GetPlatformInfo();
  parse_ctx.compiled_ = info;
  ::cannbot_host::FirstError().clear();
  if (parse(&parse_ctx) != ge::GRAPH_SUCCESS) {
    cannbot_ascendc::Violation("tiling", "the TilingParse function of %s returned failure%s",
                               type.c_str(), LastErrorNote().c_str());
  }
  ctx->compile_info_ = info;
}

inline void CheckInferShape(const ops::OpDef& def, const Request& r) {
  const ops::InferShapeFn infer =
      def.infer_shape_ != nullptr ? def.infer_shape_ : cannbot_package_infershape_impl();
  if (infer == nullptr) return;
  ::cannbot_host::FirstError().clear();
  gert::InferShapeContext ctx;
  ctx.op_type_ = def.type_;
  for (const auto& d : r.inputs) ctx.inputs_.push_back(ToShape(d));
  ctx.outputs_.resize(r.outputs.size());
  FillAttrs(def, r, &ctx.attrs_);
  if (infer(&ctx) != ge::GRAPH_SUCCESS) {
    cannbot_ascendc::Violation("tiling", "the OpDef's InferShape function failed%s",
                               LastErrorNote().c_str());
  }
  for (size_t i = 0; i < r.outputs.size(); ++i) {
    const int64_t want = ToShape(r.outputs[i]).GetShapeSize();
    const int64_t got = ctx.outputs_[i].GetShapeSize();
    if (got != want) {
      cannbot_ascendc::Violation("tiling",
                                 "the OpDef's InferShape gives output %zu %lld elements; the op "
                                 "has %lld on this shape",
                                 i, static_cast<long long>(got), static_cast<long long>(want));
    }
  }
}

}  // namespace detail

inline Prepared Tile(const Request& r) {
  ops::OpDef* def = cannbot_package_opdef();
  const ops::TilingFn tiling =
      def->aicore_.tiling_ != nullptr ? def->aicore_.tiling_ : cannbot_package_tiling_impl();
  if (tiling == nullptr) {
    cannbot_ascendc::Violation("tiling", "the package registers no tiling function (neither "
                               "AICore().SetTiling in its OpDef nor IMPL_OP_OPTILING)");
  }
  detail::CheckInferShape(*def, r);
  gert::TilingContext ctx;
  ctx.op_type_ = def->type_;
  for (const auto& d : r.inputs) ctx.inputs_.emplace_back(detail::ToShape(d));
  for (const auto& d : r.outputs) ctx.outputs_.emplace_back(detail::ToShape(d));
  if (r.input_dtypes.size() != r.inputs.size() || r.output_dtypes.size() != r.outputs.size() ||
      r.outputs.empty() ||
      r.inputs.size() + r.outputs.size() > static_cast<size_t>(cannbot_ascendc::kMaxTensors)) {
    cannbot_ascendc::Violation("launch-contract", "the launch request names %zu inputs and %zu "
                               "outputs but %zu and %zu dtypes", r.inputs.size(),
                               r.outputs.size(), r.input_dtypes.size(), r.output_dtypes.size());
  }
  for (ge::DataType t : r.input_dtypes) {
    gert::CompileTimeTensorDesc desc;
    desc.dtype_ = t;
    ctx.input_descs_.push_back(desc);
  }
  for (ge::DataType t : r.output_dtypes) {
    gert::CompileTimeTensorDesc desc;
    desc.dtype_ = t;
    ctx.output_descs_.push_back(desc);
  }
  for (size_t i = 0; i < r.inputs.size(); ++i) {
    gert::Tensor t;
    t.shape_ = &ctx.inputs_[i];
    t.desc_ = &ctx.input_descs_[i];
    ctx.input_tensors_.push_back(t);
  }
  detail::FillAttrs(*def, r, &ctx.attrs_);
  ctx.platform_ = fe::EmulatedPlatform();

  // The raw tiling buffer, with guard bytes behind it: a tiling function that writes past its
  // capacity is caught here instead of corrupting the launch.
  constexpr size_t kGuard = 256;
  static uint8_t raw[CANNBOT_TILING_DATA_BYTES + kGuard];
  std::memset(raw, 0, CANNBOT_TILING_DATA_BYTES);
  std::memset(raw + CANNBOT_TILING_DATA_BYTES, 0xA5, kGuard);
  ctx.raw_.data_ = raw;
  ctx.raw_.capacity_ = CANNBOT_TILING_DATA_BYTES;

  detail::ParseCompileInfo(def->type_, &ctx);
  ::cannbot_host::FirstError().clear();
  const ge::graphStatus status = tiling(&ctx);
  if (status != ge::GRAPH_SUCCESS) {
    cannbot_ascendc::Violation("tiling", "the tiling function of %s returned %u (failure)%s",
                               def->type_.c_str(), status, detail::LastErrorNote().c_str());
  }
  for (size_t i = 0; i < kGuard; ++i) {
    if (raw[CANNBOT_TILING_DATA_BYTES + i] != 0xA5) {
      cannbot_ascendc::Violation("tiling",
                                 "the tiling function wrote past the %d-byte tiling buffer "
                                 "(GetRawTilingData()->GetCapacity())",
                                 CANNBOT_TILING_DATA_BYTES);
    }
  }
  if (ctx.raw_.size_ > CANNBOT_TILING_DATA_BYTES) {
    cannbot_ascendc::Violation("tiling", "the tiling data size is %zu bytes, past the %d-byte "
                               "capacity", ctx.raw_.size_, CANNBOT_TILING_DATA_BYTES);
  }
  if (ctx.block_dim_ == 0) {
    cannbot_ascendc::Violation("tiling", "the tiling function set a block dim of 0 (SetBlockDim): "
                               "the kernel would never run");
  }
  Prepared p;
  p.tiling.block_dim = ctx.block_dim_;
  // The statistics line's dtype is the first output's; every tensor has its own type.
  p.tiling.dtype_bits = ge::GetSizeByDataType(r.output_dtypes.front()) * 8;
  p.extras.bfloat16 = r.output_dtypes.front() == ge::DT_BF16;
  size_t t = 0;
  for (ge::DataType d : r.input_dtypes) p.extras.types[t++] = detail::ElemOf(d);
  for (ge::DataType d : r.output_dtypes) p.extras.types[t++] = detail::ElemOf(d);
  std::memcpy(p.tiling.data, raw, CANNBOT_TILING_DATA_BYTES);
  p.extras.tiling_key = ctx.tiling_key_;
  for (size_t w : ctx.workspaces_) p.extras.workspace_bytes += w;
  return p;
}

}  // namespace cannbot_package

#endif  // CANNBOT_PACKAGE_LAUNCH_H
