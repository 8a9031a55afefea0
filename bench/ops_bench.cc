// Benchmark: for every built-in op at its perf shape, the naive example kernel (-O3
// -march=native) against the kernel cannbot's offline provider finds for it (the whole
// `cannbot suggest` pipeline: recipes, parameter search, the three-layer validator), and,
// where a vendor library does the same op, the library in the same run: OpenBLAS sgemm for
// matmul, oneDNN for softmax, layernorm and the convolutions. Everything is single-threaded.
//
// The naive and cannbot timings are the perf gate's (parent-timed batches in the sandboxed
// runner, data sets rotated, median of per-round ratios with a 95% confidence interval); the
// vendor timings are medians of batches in this process over the same number of rotated
// input sets. Targets are the issue's: elementwise and normalisation ops at >= 70% of the
// measured single-core stream bandwidth, matmul at >= 50% of OpenBLAS, depthwise_conv2d and
// dwsep_block >= 4x over naive, every op above the perf gate's threshold.
//
// usage: ops_bench [--ops a,b,c] [--budget N] [--db PATH]   (default: a fresh store)
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <sstream>

#include "cannbot/engine/engine.h"
#include "cannbot/engine/providers.h"
#include "cannbot/ops/registry.h"
#include "cannbot/util/fs.h"
#include "cannbot/util/stats.h"

#ifdef CANNBOT_HAVE_OPENBLAS
#include <cblas.h>
#endif
#ifdef CANNBOT_HAVE_DNNL
#include <dnnl.hpp>
#endif

namespace {

using namespace cannbot;
using Clock = std::chrono::steady_clock;

constexpr int kDataSets = 4;  // as many rotated input sets as the perf gate uses

struct VendorTiming {
  std::string library;  // "" = no vendor row for this op
  double median_seconds = 0;
  Interval ci;
};

struct Row {
  std::string op;
  std::string shape;
  bool found = false;
  std::string note;  // why nothing was found, or the recipe that won
  validator::PerfReport perf;
  VendorTiming vendor;
  double suggest_seconds = 0;
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
  return {library, Median(samples), MedianConfidenceInterval(samples)};
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
  return TimeCalls("OpenBLAS sgemm", [&](int set) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a[set].data(), k,
                b[set].data(), n, 0.0f, c.data(), n);
  });
}
#endif

#ifdef CANNBOT_HAVE_DNNL
using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;

// Runs a primitive over kDataSets sources; each set is one args map.
VendorTiming TimePrimitive(const std::string& library, dnnl::primitive primitive,
                           dnnl::stream& stream,
                           std::vector<std::unordered_map<int, dnnl::memory>> sets) {
  return TimeCalls(library, [&](int set) {
    primitive.execute(stream, sets[static_cast<size_t>(set)]);
    stream.wait();
  });
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
    return TimePrimitive("oneDNN softmax", dnnl::softmax_forward(pd), stream, sets);
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
  return TimePrimitive("oneDNN layer_normalization", dnnl::layer_normalization_forward(pd),
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
  return TimePrimitive(name, dnnl::convolution_forward(pd), stream, sets);
}
#endif

VendorTiming Vendor(const ops::OpSpec& op) {
  const ops::Shape& s = op.PerfShape();
  (void)s;
#ifdef CANNBOT_HAVE_OPENBLAS
  if (op.name == "matmul") return OpenBlasMatmul(s);
#endif
#ifdef CANNBOT_HAVE_DNNL
  if (op.name == "softmax") return DnnlSoftmax(s, false);
  if (op.name == "layernorm") return DnnlSoftmax(s, true);
  if (op.name == "conv2d") return DnnlConv(s, false, false);
  if (op.name == "depthwise_conv2d") return DnnlConv(s, true, false);
  if (op.name == "conv_bn_relu") return DnnlConv(s, false, true);
#endif
  return {};
}

bool MemoryBoundOp(const std::string& op) {
  for (const char* name : {"add", "relu", "prelu", "swish", "gelu", "softmax", "layernorm",
                           "layernorm_gelu"}) {
    if (op == name) return true;
  }
  return false;
}

// The target for this op, and whether the row meets it.
std::string Target(const Row& row, double stream_gbps, bool* met) {
  char text[96];
  const validator::KernelTiming& after = row.perf.candidate;
  if (MemoryBoundOp(row.op)) {
    const double fraction = stream_gbps > 0 ? after.gbps / stream_gbps : 0;
    *met = fraction >= 0.70;
    std::snprintf(text, sizeof(text), ">=70%% stream: %.0f%%", 100 * fraction);
  } else if (row.op == "matmul" && !row.vendor.library.empty()) {
    const double fraction = row.vendor.median_seconds / after.median_seconds;
    *met = fraction >= 0.50;
    std::snprintf(text, sizeof(text), ">=50%% OpenBLAS: %.0f%%", 100 * fraction);
  } else if (row.op == "depthwise_conv2d" || row.op == "dwsep_block") {
    *met = row.perf.speedup >= 4;
    std::snprintf(text, sizeof(text), ">=4x naive: %.2fx", row.perf.speedup);
  } else {
    *met = row.perf.speedup_ci.low >= row.perf.min_speedup;
    std::snprintf(text, sizeof(text), "> gate %.2fx: %.2fx", row.perf.min_speedup,
                  row.perf.speedup_ci.low);
  }
  return text;
}

Row RunOp(const ops::OpSpec& op, const ops::Registry& registry, store::Store* store, int budget) {
  Row row;
  row.op = op.name;
  row.shape = op.PerfShape().Describe();
  const std::string path = std::string(CANNBOT_SOURCE_DIR) + "/examples/" + op.name + "/naive.cpp";
  auto text = ReadFile(path);
  if (!text.ok()) {
    row.note = text.status().message();
    return row;
  }
  const config::Config config;  // offline, as `cannbot suggest` with no LLM
  validator::Validator validator(engine::MakeValidatorConfig(config), store, registry);
  std::vector<std::string> warnings;
  const skills::SkillLibrary library = engine::LoadSkills(config, {}, &warnings);
  engine::Engine engine({&config, &registry, &validator, &library, store});
  engine::JobSpec spec;
  spec.op = op.name;
  spec.name = "examples/" + op.name + "/naive.cpp";
  spec.source = *text;
  if (budget > 0) spec.options.budget = budget;
  const auto start = Clock::now();
  auto result = engine.Run(spec);
  row.suggest_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (!result.ok()) {
    row.note = result.status().message();
    return row;
  }
  const optimize::Attempt* best = result->Best();
  if (best == nullptr || !best->verdict || !best->verdict->perf) {
    row.note = "no accepted kernel (" + std::to_string(result->attempts.size()) +
               " attempts)";
    return row;
  }
  row.found = true;
  row.perf = *best->verdict->perf;
  row.note = best->origin;
  row.vendor = Vendor(op);
  return row;
}

std::vector<std::string> Split(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ',');) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

// Vendor libraries must run on one thread like the kernels do; OpenMP reads its thread count
// when the library loads, so set it in the environment and start again.
void SingleThreadedOrReexec(char** argv) {
  const char* omp = std::getenv("OMP_NUM_THREADS");
  if (omp != nullptr && std::strcmp(omp, "1") == 0) return;
  ::setenv("OMP_NUM_THREADS", "1", 1);
  ::setenv("OPENBLAS_NUM_THREADS", "1", 1);
  ::execv("/proc/self/exe", argv);
  std::perror("ops_bench: re-exec with OMP_NUM_THREADS=1");
}

}  // namespace

int main(int argc, char** argv) {
  SingleThreadedOrReexec(argv);
  std::vector<std::string> names;
  int budget = 0;
  std::string db;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--ops" && i + 1 < argc) names = Split(argv[++i]);
    else if (arg == "--budget" && i + 1 < argc) budget = std::atoi(argv[++i]);
    else if (arg == "--db" && i + 1 < argc) db = argv[++i];
    else {
      std::fprintf(stderr, "usage: ops_bench [--ops a,b,c] [--budget N] [--db PATH]\n");
      return 2;
    }
  }
  const ops::Registry registry = ops::Registry::BuiltIns();
  if (names.empty()) {
    for (const ops::OpSpec& op : registry.ops()) names.push_back(op.name);
  }
  auto temp = TempDir::Create("cannbot-ops-bench");
  if (!temp.ok()) {
    std::fprintf(stderr, "ops_bench: %s\n", temp.status().ToString().c_str());
    return 2;
  }
  auto store = store::Store::Open(db.empty() ? temp->path() + "/store.db" : db);
  if (!store.ok()) {
    std::fprintf(stderr, "ops_bench: %s\n", store.status().ToString().c_str());
    return 2;
  }
  const validator::MachineModel machine = validator::LoadOrMeasureMachineModel(store->get(), -1);
  std::printf("machine: %s, %s, stream triad %.1f GB/s, fp32 FMA peak %.1f GFLOP/s (one core)\n\n",
              machine.cpu_name.c_str(), machine.vector_isa.c_str(), machine.stream_gbps,
              machine.peak_gflops);
  std::printf("| op | perf shape | naive ms | cannbot ms | speedup (95%% CI) | GB/s | GFLOP/s "
              "| roofline | vendor | vendor ms | cannbot / vendor speed | target | search s |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  int missed = 0;
  for (const std::string& name : names) {
    const ops::OpSpec* op = registry.Find(name);
    if (op == nullptr) {
      std::fprintf(stderr, "ops_bench: unknown op '%s'\n", name.c_str());
      return 2;
    }
    const Row row = RunOp(*op, registry, store->get(), budget);
    if (!row.found) {
      ++missed;
      std::printf("| %s | %s | - | - | none found | - | - | - | - | - | - | missed: %s | %.1f |\n",
                  row.op.c_str(), row.shape.c_str(), row.note.c_str(), row.suggest_seconds);
      std::fflush(stdout);
      continue;
    }
    bool met = false;
    const std::string target = Target(row, machine.stream_gbps, &met);
    if (!met) ++missed;
    const auto& before = row.perf.baseline;
    const auto& after = row.perf.candidate;
    char vendor_ms[32] = "-", ratio[32] = "-";
    if (!row.vendor.library.empty()) {
      std::snprintf(vendor_ms, sizeof(vendor_ms), "%.3f", row.vendor.median_seconds * 1e3);
      std::snprintf(ratio, sizeof(ratio), "%.2fx", row.vendor.median_seconds / after.median_seconds);
    }
    std::printf("| %s | %s | %.3f | %.3f | %.2fx (%.2f-%.2f) | %.1f | %.1f | %.0f%% | %s | %s | "
                "%s | %s%s | %.1f |\n",
                row.op.c_str(), row.shape.c_str(), before.median_seconds * 1e3,
                after.median_seconds * 1e3, row.perf.speedup, row.perf.speedup_ci.low,
                row.perf.speedup_ci.high, after.gbps, after.gflops,
                100 * after.roofline_fraction,
                row.vendor.library.empty() ? "-" : row.vendor.library.c_str(), vendor_ms, ratio,
                target.c_str(), met ? "" : " (missed)", row.suggest_seconds);
    std::fflush(stdout);
  }
  std::printf("\n%d of %zu ops below their target\n", missed, names.size());
  return 0;
}
