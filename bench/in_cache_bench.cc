// Benchmark: a kernel's compute time alone, the measured half of ops_bench's "why a miss".
// The kernel (a file you trust, e.g. what `cannbot suggest --out` wrote) is built with the
// validator's flags (-O3 -march=native), loaded into this process and called many times on a
// block of 8192 elements that stays in the L1 cache, so memory costs next to nothing; the time
// per element, scaled to the perf shape's 4,194,304 elements, is the floor the arithmetic puts
// under the kernel on this core. Set against the roofline's memory time for the same shape
// (ops_bench: cannbot ms x roofline fraction), it says whether an op can reach its memory
// roofline here at all. Single-threaded; prints one table row per kernel.
//
// usage: in_cache_bench OP KERNEL.cpp [OP KERNEL.cpp ...]
//   OP: relu, gelu, swish (x, y, n); add (a, b, y, n); prelu (x, alpha, y, n, c, hw);
//       softmax (x, y, rows, cols); layernorm, layernorm_gelu (x, gamma, beta, y, rows, cols, eps)
#include <dlfcn.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "cannbot/util/fs.h"
#include "cannbot/util/stats.h"
#include "cannbot/util/subprocess.h"

namespace {

constexpr int64_t kRows = 8, kCols = 1024, kElements = kRows * kCols;  // 32 KiB per tensor
constexpr double kPerfElements = 4194304;

using Unary = void (*)(const float*, float*, int64_t);
using Binary = void (*)(const float*, const float*, float*, int64_t);
using Prelu = void (*)(const float*, const float*, float*, int64_t, int64_t, int64_t);
using Rowwise = void (*)(const float*, float*, int64_t, int64_t);
using Norm = void (*)(const float*, const float*, const float*, float*, int64_t, int64_t, float);

struct Tensors {
  std::vector<float> x, b, y, gamma, beta;
  Tensors() : x(kElements), b(kElements), y(kElements), gamma(kCols, 1.0f), beta(kCols, 0.0f) {
    std::mt19937 rng(1);
    std::normal_distribution<float> normal(0.0f, 2.0f);  // the specs' realistic inputs
    for (float& v : x) v = normal(rng);
    for (float& v : b) v = normal(rng);
  }
};

// One call of `symbol` from `library` on the tensors, by the op's signature; empty if unknown.
std::function<void()> MakeCall(const std::string& op, void* symbol, Tensors& t) {
  if (op == "relu" || op == "gelu" || op == "swish") {
    auto f = reinterpret_cast<Unary>(symbol);
    return [f, &t] { f(t.x.data(), t.y.data(), kElements); };
  }
  if (op == "add") {
    auto f = reinterpret_cast<Binary>(symbol);
    return [f, &t] { f(t.x.data(), t.b.data(), t.y.data(), kElements); };
  }
  if (op == "prelu") {
    auto f = reinterpret_cast<Prelu>(symbol);
    return [f, &t] { f(t.x.data(), t.gamma.data(), t.y.data(), 1, 64, kElements / 64); };
  }
  if (op == "softmax") {
    auto f = reinterpret_cast<Rowwise>(symbol);
    return [f, &t] { f(t.x.data(), t.y.data(), kRows, kCols); };
  }
  if (op == "layernorm" || op == "layernorm_gelu") {
    auto f = reinterpret_cast<Norm>(symbol);
    return [f, &t] {
      f(t.x.data(), t.gamma.data(), t.beta.data(), t.y.data(), kRows, kCols, 1e-5f);
    };
  }
  return {};
}

// Median and 95% CI of the seconds per element over 15 batches of 2000 calls.
void Measure(const std::string& op, const std::string& kernel, const std::string& dir) {
  const std::string object = dir + "/" + op + ".so";
  cannbot::SpawnOptions compile;
  compile.argv = {"g++", "-O3", "-march=native", "-fopenmp-simd", "-fPIC", "-shared",
                  "-o", object, kernel};
  auto built = cannbot::RunCommand(compile, std::chrono::seconds(120));
  if (!built.ok() || !built->exit.exited || built->exit.exit_code != 0) {
    std::printf("| %s | %s | does not compile: %s |\n", op.c_str(), kernel.c_str(),
                built.ok() ? built->output.c_str() : built.status().ToString().c_str());
    return;
  }
  void* library = ::dlopen(object.c_str(), RTLD_NOW | RTLD_LOCAL);
  void* symbol = library ? ::dlsym(library, op.c_str()) : nullptr;
  Tensors tensors;
  const std::function<void()> call = symbol ? MakeCall(op, symbol, tensors) : nullptr;
  if (!call) {
    std::printf("| %s | %s | no extern \"C\" %s with a known signature |\n", op.c_str(),
                kernel.c_str(), op.c_str());
    return;
  }
  constexpr int kCalls = 2000;
  for (int i = 0; i < kCalls; ++i) call();  // warm caches, branch predictors, clocks
  std::vector<double> per_element;
  for (int batch = 0; batch < 15; ++batch) {
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kCalls; ++i) call();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    per_element.push_back(seconds / kCalls / kElements);
  }
  const cannbot::Interval ci = cannbot::MedianConfidenceInterval(per_element);
  const double median = cannbot::Median(per_element);
  std::printf("| %s | %s | %.3f (%.3f-%.3f) | %.2f |\n", op.c_str(), kernel.c_str(),
              median * 1e9, ci.low * 1e9, ci.high * 1e9, median * kPerfElements * 1e3);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3 || argc % 2 == 0) {
    std::fprintf(stderr, "usage: in_cache_bench OP KERNEL.cpp [OP KERNEL.cpp ...]\n");
    return 2;
  }
  auto dir = cannbot::TempDir::Create("cannbot-in-cache");
  if (!dir.ok()) {
    std::fprintf(stderr, "in_cache_bench: %s\n", dir.status().ToString().c_str());
    return 2;
  }
  std::printf("| op | kernel | ns per element in L1 (95%% CI) | ms at 4,194,304 elements |\n");
  std::printf("|---|---|---|---|\n");
  for (int i = 1; i + 1 < argc; i += 2) Measure(argv[i], argv[i + 1], dir->path());
  return 0;
}
