// The vendor rows of bench/ops_bench.cc: the same op through OpenBLAS and oneDNN in this
// process, single-threaded, with the kernel path each library actually chose (OpenBLAS's core
// type, oneDNN's implementation and ISA), so a table says what it compared against.
// Header-only: included by ops_bench.cc alone.
#pragma once

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "cannbot/ops/op_spec.h"
#include "cannbot/util/stats.h"

#ifdef CANNBOT_HAVE_OPENBLAS
#include <cblas.h>
#endif
#ifdef CANNBOT_HAVE_DNNL
#include <dnnl.hpp>
#endif

namespace ops_bench {

using namespace cannbot;
using Clock = std::chrono::steady_clock;

constexpr int kDataSets = 4;  // as many rotated input sets as the perf gate uses

struct VendorTiming {
  std::string library;  // "" = no vendor row for this op
  std::string path;     // the kernel the library chose ("core Zen", "brg:avx2")
  double median_seconds = 0;
  Interval ci;
};

std::vector<float> RandomData(size_t n, uint64_t seed, float lo = -1, float hi = 1) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = u(rng);
  return v;
}

// Median per-call time of `call(set)` over batches of at least 50 ms, rotating data sets.
VendorTiming TimeCalls(const std::string& library, const std::function<void(int)>& call) {
  for (int s = 0; s < kDataSets; ++s) call(s);  // warm up: first-touch, JIT, caches
  const auto first = Clock::now();
  call(0);
  const double once = std::chrono::duration<double>(Clock::now() - first).count();
  const int per_batch = std::max(1, static_cast<int>(0.05 / std::max(once, 1e-7)));
  std::vector<double> samples;
  for (int round = 0; round < 15; ++round) {
    const auto start = Clock::now();
    for (int i = 0; i < per_batch; ++i) call((round * per_batch + i) % kDataSets);
    samples.push_back(std::chrono::duration<double>(Clock::now() - start).count() / per_batch);
  }
  return {library, "", Median(samples), MedianConfidenceInterval(samples)};
}

#ifdef CANNBOT_HAVE_OPENBLAS
VendorTiming OpenBlasMatmul(const ops::Shape& s) {
  const int m = static_cast<int>(s.Size("m")), n = static_cast<int>(s.Size("n")),
            k = static_cast<int>(s.Size("k"));
  std::vector<std::vector<float>> a, b;
  for (int i = 0; i < kDataSets; ++i) {
    a.push_back(RandomData(size_t(m) * k, 10 + i));
    b.push_back(RandomData(size_t(k) * n, 20 + i));
  }
  std::vector<float> c(size_t(m) * n);
  openblas_set_num_threads(1);
  VendorTiming t = TimeCalls("OpenBLAS sgemm", [&](int set) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a[set].data(), k,
                b[set].data(), n, 0.0f, c.data(), n);
  });
  t.path = "core " + std::string(openblas_get_corename());
  return t;
}

// "OpenBLAS 0.3.21 DYNAMIC_ARCH ... core Zen; OPENBLAS_CORETYPE=Haswell forces it".
std::string OpenBlasDescription() {
  std::string text = std::string(openblas_get_config()) + ", kernels for core " +
                     openblas_get_corename();
  const char* forced = std::getenv("OPENBLAS_CORETYPE");
  text += forced != nullptr ? std::string(" (forced by OPENBLAS_CORETYPE=") + forced + ")"
                            : std::string(" (detected: OPENBLAS_CORETYPE not set)");
  return text;
}
#endif

#ifdef CANNBOT_HAVE_DNNL
using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;

// Runs a primitive over kDataSets sources; each set is one args map.
VendorTiming TimePrimitive(const std::string& library, const dnnl::primitive_desc_base& pd,
                           dnnl::primitive primitive, dnnl::stream& stream,
                           std::vector<std::unordered_map<int, dnnl::memory>> sets) {
  VendorTiming t = TimeCalls(library, [&](int set) {
    primitive.execute(stream, sets[static_cast<size_t>(set)]);
    stream.wait();
  });
  t.path = pd.impl_info_str();
  return t;
}

dnnl::memory Filled(const dnnl::memory::desc& md, const dnnl::engine& engine, uint64_t seed);

std::string DnnlIsaName(dnnl::cpu_isa isa) {
  switch (isa) {
    case dnnl::cpu_isa::sse41: return "sse41";
    case dnnl::cpu_isa::avx: return "avx";
    case dnnl::cpu_isa::avx2: return "avx2";
    case dnnl::cpu_isa::avx2_vnni: return "avx2_vnni";
    case dnnl::cpu_isa::avx512_core: return "avx512_core";
    case dnnl::cpu_isa::avx512_core_vnni: return "avx512_core_vnni";
    case dnnl::cpu_isa::avx512_core_bf16: return "avx512_core_bf16";
    case dnnl::cpu_isa::avx512_core_amx: return "avx512_core_amx";
    default: return "other";
  }
}

// "oneDNN 2.6.3, effective ISA avx2 (ONEDNN_MAX_CPU_ISA not set)".
std::string DnnlDescription() {
  const dnnl_version_t* v = dnnl_version();
  std::string text = "oneDNN " + std::to_string(v->major) + "." + std::to_string(v->minor) +
                     "." + std::to_string(v->patch) + ", effective ISA " +
                     DnnlIsaName(dnnl::get_effective_cpu_isa());
  const char* forced = std::getenv("ONEDNN_MAX_CPU_ISA");
  if (forced == nullptr) forced = std::getenv("DNNL_MAX_CPU_ISA");
  text += forced != nullptr ? std::string(" (capped by MAX_CPU_ISA=") + forced + ")"
                            : std::string(" (MAX_CPU_ISA not set)");
  return text;
}

VendorTiming DnnlMatmul(const ops::Shape& s) {
  dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(engine);
  const int64_t m = s.Size("m"), n = s.Size("n"), k = s.Size("k");
  const dnnl::memory::desc a_md({m, k}, dt::f32, tag::ab), b_md({k, n}, dt::f32, tag::ab),
      c_md({m, n}, dt::f32, tag::ab);
  dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a_md, b_md, c_md), engine);
  dnnl::memory c(c_md, engine);
  std::vector<std::unordered_map<int, dnnl::memory>> sets;
  for (int i = 0; i < kDataSets; ++i) {
    sets.push_back({{DNNL_ARG_SRC, Filled(a_md, engine, 80 + i)},
                    {DNNL_ARG_WEIGHTS, Filled(b_md, engine, 90 + i)},
                    {DNNL_ARG_DST, c}});
  }
  return TimePrimitive("oneDNN matmul", pd, dnnl::matmul(pd), stream, sets);
}

dnnl::memory Filled(const dnnl::memory::desc& md, const dnnl::engine& engine, uint64_t seed) {
  dnnl::memory mem(md, engine);
  const size_t n = md.get_size() / sizeof(float);
  std::vector<float> values = RandomData(n, seed);
  std::memcpy(mem.get_data_handle(), values.data(), n * sizeof(float));
  return mem;
}

VendorTiming DnnlSoftmax(const ops::Shape& s, bool layernorm) {
  dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(engine);
  const dnnl::memory::desc md({s.Size("rows"), s.Size("cols")}, dt::f32, tag::ab);
  std::vector<std::unordered_map<int, dnnl::memory>> sets;
  dnnl::memory dst(md, engine);
  if (!layernorm) {
    dnnl::softmax_forward::primitive_desc pd(
        {dnnl::prop_kind::forward_inference, md, 1}, engine);
    for (int i = 0; i < kDataSets; ++i) {
      sets.push_back({{DNNL_ARG_SRC, Filled(md, engine, 30 + i)}, {DNNL_ARG_DST, dst}});
    }
    return TimePrimitive("oneDNN softmax", pd, dnnl::softmax_forward(pd), stream, sets);
  }
  const auto flags = dnnl::normalization_flags::use_scale | dnnl::normalization_flags::use_shift;
  dnnl::layer_normalization_forward::primitive_desc pd(
      {dnnl::prop_kind::forward_inference, md, 1e-5f, flags}, engine);
  const dnnl::memory::desc per_col({s.Size("cols")}, dt::f32, tag::a);
  dnnl::memory scale = Filled(per_col, engine, 40), shift = Filled(per_col, engine, 41);
  dnnl::memory mean(pd.mean_desc(), engine), variance(pd.variance_desc(), engine);
  for (int i = 0; i < kDataSets; ++i) {
    sets.push_back({{DNNL_ARG_SRC, Filled(md, engine, 50 + i)},
                    {DNNL_ARG_DST, dst},
                    {DNNL_ARG_SCALE, scale},
                    {DNNL_ARG_SHIFT, shift},
                    {DNNL_ARG_MEAN, mean},
                    {DNNL_ARG_VARIANCE, variance}});
  }
  return TimePrimitive("oneDNN layer_normalization", pd, dnnl::layer_normalization_forward(pd),
                       stream, sets);
}

// NCHW activations as the op's ABI has them; weights in whatever layout oneDNN prefers,
// reordered once outside the timing (as a framework does with constant weights).
VendorTiming DnnlConv(const ops::Shape& s, bool depthwise, bool relu) {
  dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(engine);
  const int64_t n = s.Size("n"), c = s.Size("c"), h = s.Size("h"), w = s.Size("w_");
  const int64_t kh = s.Size("kh"), kw = s.Size("kw"), stride = s.Size("stride"),
                pad = s.Size("pad");
  const int64_t k = depthwise ? c : s.Size("k");
  const int64_t oh = (h + 2 * pad - kh) / stride + 1, ow = (w + 2 * pad - kw) / stride + 1;
  const dnnl::memory::desc src_md({n, c, h, w}, dt::f32, tag::nchw);
  const dnnl::memory::desc dst_md({n, k, oh, ow}, dt::f32, tag::nchw);
  const dnnl::memory::dims weight_dims =
      depthwise ? dnnl::memory::dims{c, 1, 1, kh, kw} : dnnl::memory::dims{k, c, kh, kw};
  const dnnl::memory::desc user_weights_md(weight_dims, dt::f32, depthwise ? tag::goihw : tag::oihw);
  const dnnl::memory::desc any_weights_md(weight_dims, dt::f32, tag::any);
  const dnnl::memory::desc bias_md({k}, dt::f32, tag::a);
  dnnl::primitive_attr attr;
  if (relu) {
    dnnl::post_ops post;
    post.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
    attr.set_post_ops(post);
  }
  const bool with_bias = !depthwise;
  auto desc = with_bias
                  ? dnnl::convolution_forward::desc(
                        dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                        src_md, any_weights_md, bias_md, dst_md, {stride, stride}, {pad, pad},
                        {pad, pad})
                  : dnnl::convolution_forward::desc(
                        dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                        src_md, any_weights_md, dst_md, {stride, stride}, {pad, pad},
                        {pad, pad});
  dnnl::convolution_forward::primitive_desc pd(desc, attr, engine);
  dnnl::memory user_weights = Filled(user_weights_md, engine, 60);
  dnnl::memory weights(pd.weights_desc(), engine);
  dnnl::reorder(user_weights, weights).execute(stream, user_weights, weights);
  dnnl::memory bias = Filled(bias_md, engine, 61);
  dnnl::memory dst(dst_md, engine);
  std::vector<std::unordered_map<int, dnnl::memory>> sets;
  for (int i = 0; i < kDataSets; ++i) {
    std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_SRC, Filled(src_md, engine, 70 + i)},
                                               {DNNL_ARG_WEIGHTS, weights},
                                               {DNNL_ARG_DST, dst}};
    if (with_bias) args[DNNL_ARG_BIAS] = bias;
    sets.push_back(std::move(args));
  }
  std::string name = depthwise ? "oneDNN conv (groups=C)" : "oneDNN conv";
  if (relu) name += " + relu, BN folded";
  return TimePrimitive(name, pd, dnnl::convolution_forward(pd), stream, sets);
}
#endif


// Every vendor row for `op` (none where no library does the op).
std::vector<VendorTiming> Vendors(const ops::OpSpec& op) {
  const ops::Shape& s = op.PerfShape();
  (void)s;
  std::vector<VendorTiming> rows;
#ifdef CANNBOT_HAVE_OPENBLAS
  if (op.name == "matmul") rows.push_back(OpenBlasMatmul(s));
#endif
#ifdef CANNBOT_HAVE_DNNL
  if (op.name == "matmul") rows.push_back(DnnlMatmul(s));
  if (op.name == "softmax") rows.push_back(DnnlSoftmax(s, false));
  if (op.name == "layernorm") rows.push_back(DnnlSoftmax(s, true));
  if (op.name == "conv2d") rows.push_back(DnnlConv(s, false, false));
  if (op.name == "depthwise_conv2d") rows.push_back(DnnlConv(s, true, false));
  if (op.name == "conv_bn_relu") rows.push_back(DnnlConv(s, false, true));
#endif
  return rows;
}

// One line per vendor library linked in, with the kernel path it takes on this machine.
std::string VendorLibraries() {
  std::string text;
#ifdef CANNBOT_HAVE_OPENBLAS
  text += "\n- " + OpenBlasDescription();
#endif
#ifdef CANNBOT_HAVE_DNNL
  text += "\n- " + DnnlDescription();
#endif
  return text.empty() ? " none linked" : text;
}

}  // namespace ops_bench
