// Benchmark: for every built-in op at its perf shape, the naive example kernel (-O3
// -march=native) against the kernel cannbot's offline provider finds for it (the whole
// `cannbot suggest` pipeline: recipes, the search, the three-layer validator), and, where a
// vendor library does the same op, the library in the same run (ops_bench_vendors.h):
// OpenBLAS sgemm and oneDNN matmul for matmul, oneDNN for softmax, layernorm and the
// convolutions. Everything is single-threaded.
//
// The naive and cannbot timings are the perf gate's (parent-timed batches in the sandboxed
// runner, data sets rotated, median of per-round ratios with a 95% confidence interval); the
// vendor timings are medians of batches in this process over the same number of rotated
// input sets. The header says what the machine is (CPU model, microarchitecture, features,
// the measured roofline) and which kernel path each vendor library took. Targets are the
// issue's: elementwise and normalisation ops >= 85% of the measured roofline (the op's own
// read/write pattern), matmul >= 90% of the FMA peak and no slower than the faster vendor
// row, conv2d >= 80%, depthwise_conv2d and the fused blocks (conv_bn_relu, dwsep_block,
// layernorm_gelu) >= 70%, and the whole offline search under 5 minutes.
//
// Ops come in dtypes (relu, relu_fp16, relu_bf16): a 16-bit variant's naive kernel is its
// fp32 example's loop written from the spec's `elementwise` expression with the C library's
// math (skills/elementwise_kernel.h, Math::kLibm); variants without one are listed as skipped.
//
// usage: ops_bench [--ops a,b,c] [--families f,g] [--dtypes float,half] [--budget N]
//                  [--db PATH]   (default: every op and variant, a fresh store)
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
#include "cannbot/skills/elementwise_kernel.h"
#include "cannbot/util/fs.h"
#include "cannbot/util/stats.h"
#include "ops_bench_vendors.h"

namespace {

using namespace cannbot;
using namespace ops_bench;

struct Row {
  std::string op;
  std::string family;
  bool skipped = false;  // no naive kernel for this dtype variant
  std::string shape;
  bool found = false;
  std::string note;  // why nothing was found, or the recipe that won
  validator::PerfReport perf;
  std::vector<VendorTiming> vendors;
  double suggest_seconds = 0;
};

bool OneOf(const std::string& op, std::initializer_list<const char*> names) {
  for (const char* name : names) {
    if (op == name) return true;
  }
  return false;
}

// The target for this op, and whether the row meets it.
std::string Target(const Row& row, bool* met) {
  char text[128];
  const validator::KernelTiming& after = row.perf.candidate;
  if (row.op == "matmul") {
    // The perf gate's roofline fraction: GFLOP/s over the FMA peak of the model the verdict
    // was judged by (raised during the run if a kernel beat it).
    const double peak = after.roofline_fraction;
    double fastest_vendor = 0;
    for (const VendorTiming& v : row.vendors) {
      if (fastest_vendor == 0 || v.median_seconds < fastest_vendor) fastest_vendor = v.median_seconds;
    }
    const bool vendor_ok = fastest_vendor == 0 || after.median_seconds <= fastest_vendor;
    *met = peak >= 0.90 && vendor_ok;
    std::snprintf(text, sizeof(text), ">=90%% FMA peak, <= fastest vendor: %.0f%%, %.2fx vendor",
                  100 * peak, fastest_vendor > 0 ? fastest_vendor / after.median_seconds : 0.0);
    return text;
  }
  if (!OneOf(row.family, {"elementwise", "activation", "binary", "reduction", "normalization",
                          "convolution"})) {
    *met = row.perf.speedup_ci.low > 1.0;  // no roofline target: a validated faster kernel
    return "faster than naive";
  }
  double bar = 0.85;
  if (row.op == "conv2d") bar = 0.80;
  if (OneOf(row.op, {"depthwise_conv2d", "conv_bn_relu", "dwsep_block", "layernorm_gelu"})) {
    bar = 0.70;
  }
  *met = after.roofline_fraction >= bar;
  std::snprintf(text, sizeof(text), ">=%.0f%% roofline: %.0f%%", 100 * bar,
                100 * after.roofline_fraction);
  return text;
}

Row RunOp(const ops::OpSpec& op, const ops::Registry& registry, store::Store* store, int budget) {
  Row row;
  row.op = op.name;
  row.family = op.family;
  row.shape = op.PerfShape().Describe();
  const std::string path = std::string(CANNBOT_SOURCE_DIR) + "/examples/" + op.name + "/naive.cpp";
  auto text = ReadFile(path);
  if (!text.ok() && op.name != op.BaseName() && !op.elementwise.empty()) {
    text = skills::ElementwiseKernel(op, skills::Math::kLibm);  // the plain loop, in its dtype
  }
  if (!text.ok()) {
    row.skipped = true;
    row.note = "no naive kernel for this dtype";
    return row;
  }
  const config::Config config;  // offline, as `cannbot suggest` with no LLM
  // A default Config names no device profile file, so this cannot fail.
  validator::Validator validator(engine::MakeValidatorConfig(config).value(), store, registry);
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
  row.vendors = Vendors(op);
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
  std::vector<std::string> names, families, dtypes;
  int budget = 0;
  std::string db;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--ops" && i + 1 < argc) names = Split(argv[++i]);
    else if (arg == "--families" && i + 1 < argc) families = Split(argv[++i]);
    else if (arg == "--dtypes" && i + 1 < argc) dtypes = Split(argv[++i]);
    else if (arg == "--budget" && i + 1 < argc) budget = std::atoi(argv[++i]);
    else if (arg == "--db" && i + 1 < argc) db = argv[++i];
    else {
      std::fprintf(stderr, "usage: ops_bench [--ops a,b,c] [--families f,g] [--dtypes float,half] "
                           "[--budget N] [--db PATH]\n");
      return 2;
    }
  }
  const ops::Registry registry = ops::Registry::BuiltIns();
  if (names.empty()) {
    auto wanted = [](const std::vector<std::string>& list, const std::string& item) {
      return list.empty() || std::find(list.begin(), list.end(), item) != list.end();
    };
    for (const ops::OpSpec& op : registry.ops()) {
      const ops::Param* first = op.ParamsOfKind(ops::ParamKind::kInput).front();
      if (wanted(families, op.family) && wanted(dtypes, ops::DTypeName(first->dtype))) {
        names.push_back(op.name);
      }
    }
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
  std::printf("machine: %s, %s, %d CPUs; features: %s\n", machine.cpu_name.c_str(),
              machine.microarchitecture.c_str(), machine.logical_cpus, machine.features.c_str());
  std::printf("roofline (one core): read %.1f GB/s, copy %.1f GB/s, triad %.1f GB/s, fp32 FMA "
              "peak %.1f GFLOP/s (%s)\n",
              machine.read_gbps, machine.copy_gbps, machine.stream_gbps, machine.peak_gflops,
              machine.vector_isa.c_str());
  std::printf("vendor libraries:%s\n\n", VendorLibraries().c_str());
  std::printf("| op | perf shape | naive ms | cannbot ms | speedup (95%% CI) | GB/s | GFLOP/s "
              "| roofline | vendor (kernel path) | vendor ms | cannbot / vendor speed | target "
              "| search s |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  int missed = 0, skipped = 0, faster = 0;
  double total_seconds = 0;
  for (const std::string& name : names) {
    const ops::OpSpec* op = registry.Find(name);
    if (op == nullptr) {
      std::fprintf(stderr, "ops_bench: unknown op '%s'\n", name.c_str());
      return 2;
    }
    const Row row = RunOp(*op, registry, store->get(), budget);
    total_seconds += row.suggest_seconds;
    if (row.skipped) {
      ++skipped;
      std::printf("| %s | %s | - | - | skipped: %s | - | - | - | - | - | - | - | - |\n",
                  row.op.c_str(), row.shape.c_str(), row.note.c_str());
      continue;
    }
    if (row.found && row.perf.speedup_ci.low > 1.0) ++faster;
    if (!row.found) {
      ++missed;
      std::printf("| %s | %s | - | - | none found | - | - | - | - | - | - | missed: %s | %.1f |\n",
                  row.op.c_str(), row.shape.c_str(), row.note.c_str(), row.suggest_seconds);
      std::fflush(stdout);
      continue;
    }
    bool met = false;
    const std::string target = Target(row, &met);
    if (!met) ++missed;
    const auto& before = row.perf.baseline;
    const auto& after = row.perf.candidate;
    // One line per vendor row (the first carries the search's time); none: one line.
    const size_t lines = std::max<size_t>(1, row.vendors.size());
    for (size_t i = 0; i < lines; ++i) {
      char vendor[192] = "-", vendor_ms[32] = "-", ratio[32] = "-";
      if (i < row.vendors.size()) {
        const VendorTiming& v = row.vendors[i];
        std::snprintf(vendor, sizeof(vendor), "%s (%s)", v.library.c_str(), v.path.c_str());
        std::snprintf(vendor_ms, sizeof(vendor_ms), "%.3f", v.median_seconds * 1e3);
        std::snprintf(ratio, sizeof(ratio), "%.2fx", v.median_seconds / after.median_seconds);
      }
      std::printf("| %s | %s | %.3f | %.3f | %.2fx (%.2f-%.2f) | %.1f | %.1f | %.0f%% | %s | %s | "
                  "%s | %s%s | %s |\n",
                  row.op.c_str(), row.shape.c_str(), before.median_seconds * 1e3,
                  after.median_seconds * 1e3, row.perf.speedup, row.perf.speedup_ci.low,
                  row.perf.speedup_ci.high, after.gbps, after.gflops,
                  100 * after.roofline_fraction, vendor, vendor_ms, ratio, target.c_str(),
                  met ? "" : " (missed)",
                  i == 0 ? std::to_string(row.suggest_seconds).substr(0, 5).c_str() : "");
    }
    std::fflush(stdout);
  }
  const size_t ran = names.size() - static_cast<size_t>(skipped);
  std::printf("\n%d of %zu kernels below their target (%d skipped: no naive kernel in that "
              "dtype); a validated faster kernel found for %d of %zu (%.0f%%; target 90%%); offline "
              "search %.0f s in all\n",
              missed, ran, skipped, faster, ran, ran > 0 ? 100.0 * faster / ran : 0.0,
              total_seconds);
  // A kernel measured above the roofline makes the validator measure again and keep the
  // better figures: the model every row above was finally judged by.
  const validator::MachineModel final_model =
      validator::LoadOrMeasureMachineModel(store->get(), -1);
  std::printf("machine model at the end (the figures rows are judged by): read %.1f GB/s, "
              "copy %.1f GB/s, triad %.1f GB/s, fp32 FMA peak %.1f GFLOP/s\n",
              final_model.read_gbps, final_model.copy_gbps, final_model.stream_gbps,
              final_model.peak_gflops);
  return 0;
}
