#include "cannbot/validator/machine_model.h"

#include <immintrin.h>
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <thread>
#include <vector>

#include "cannbot/util/hash.h"

namespace cannbot::validator {
namespace {

using Clock = std::chrono::steady_clock;

std::string CpuName() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(colon + 2);
    }
  }
  return "unknown CPU";
}

int OnlineCpus() {
  long n = ::sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<int>(n) : 1;
}

// Sanitizer instrumentation would measure the instrumentation, not the machine.
#define CANNBOT_UNINSTRUMENTED __attribute__((no_sanitize("address", "undefined")))

// a[i] = b[i] + s * c[i]; cloned per ISA so the widest available loads and stores are used.
CANNBOT_UNINSTRUMENTED __attribute__((target_clones("avx512f", "avx2", "default"), noinline)) void Triad(
    float* a, const float* b, const float* c, float s, size_t n) {
  for (size_t i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
}

// The same triad with non-temporal stores: `a` goes to memory without being read first (no
// write-allocate), which is how a tuned streaming kernel writes. Plain stores move 16 bytes
// per element for the 12 the triad counts, so without this variant such kernels would appear
// to beat the roofline by up to 4/3. `a` must be 32-byte aligned and n a multiple of 8.
CANNBOT_UNINSTRUMENTED __attribute__((target("avx"), noinline)) void TriadStreaming(
    float* a, const float* b, const float* c, float s, size_t n) {
  const __m256 scale = _mm256_set1_ps(s);
  for (size_t i = 0; i < n; i += 8) {
    const __m256 sum = _mm256_add_ps(_mm256_loadu_ps(b + i),
                                     _mm256_mul_ps(scale, _mm256_loadu_ps(c + i)));
    _mm256_stream_ps(a + i, sum);
  }
  _mm_sfence();
}

// The best triad bandwidth of a few rounds, counting the 12 compulsory bytes per element.
double MeasureTriadGbps() {
  constexpr size_t kElements = size_t{16} << 20;  // 64 MiB per array: far beyond any cache
  constexpr size_t kBytes = kElements * sizeof(float);
  auto allocate = [] {
    return std::unique_ptr<float, decltype(&std::free)>(
        static_cast<float*>(std::aligned_alloc(64, kBytes)), &std::free);
  };
  auto a = allocate(), b = allocate(), c = allocate();
  if (!a || !b || !c) return 0;  // no memory for the arrays: no bandwidth figure (roofline off)
  std::fill_n(a.get(), kElements, 0.0f);
  std::fill_n(b.get(), kElements, 1.0f);
  std::fill_n(c.get(), kElements, 2.0f);
  const bool streaming = __builtin_cpu_supports("avx");
  double best = 0;
  for (int round = 0; round < 8; ++round) {
    const bool nt = streaming && round % 2 == 1;
    auto start = Clock::now();
    if (nt) {
      TriadStreaming(a.get(), b.get(), c.get(), 0.5f, kElements);
    } else {
      Triad(a.get(), b.get(), c.get(), 0.5f, kElements);
    }
    double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    if (round > 1) best = std::max(best, 3.0 * kBytes / seconds / 1e9);
  }
  return best;
}

// Independent FMA chains, enough of them to cover latency times throughput.
constexpr int kChains = 16;

CANNBOT_UNINSTRUMENTED __attribute__((target("avx512f"))) double PeakAvx512(long iterations) {
  __m512 acc[kChains];
  for (int i = 0; i < kChains; ++i) acc[i] = _mm512_set1_ps(static_cast<float>(i));
  const __m512 m = _mm512_set1_ps(0.999999f);
  const __m512 c = _mm512_set1_ps(1e-7f);
  for (long it = 0; it < iterations; ++it) {
    for (int i = 0; i < kChains; ++i) acc[i] = _mm512_fmadd_ps(acc[i], m, c);
  }
  __m512 sum = acc[0];
  for (int i = 1; i < kChains; ++i) sum = _mm512_add_ps(sum, acc[i]);
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, sum);
  volatile float sink = lanes[0];
  (void)sink;
  return 2.0 * 16 * kChains * static_cast<double>(iterations);
}

CANNBOT_UNINSTRUMENTED __attribute__((target("avx2,fma"))) double PeakAvx2(long iterations) {
  __m256 acc[kChains];
  for (int i = 0; i < kChains; ++i) acc[i] = _mm256_set1_ps(static_cast<float>(i));
  const __m256 m = _mm256_set1_ps(0.999999f);
  const __m256 c = _mm256_set1_ps(1e-7f);
  for (long it = 0; it < iterations; ++it) {
    for (int i = 0; i < kChains; ++i) acc[i] = _mm256_fmadd_ps(acc[i], m, c);
  }
  __m256 sum = acc[0];
  for (int i = 1; i < kChains; ++i) sum = _mm256_add_ps(sum, acc[i]);
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, sum);
  volatile float sink = lanes[0];
  (void)sink;
  return 2.0 * 8 * kChains * static_cast<double>(iterations);
}

CANNBOT_UNINSTRUMENTED double PeakScalar(long iterations) {
  float acc[kChains];
  for (int i = 0; i < kChains; ++i) acc[i] = static_cast<float>(i);
  for (long it = 0; it < iterations; ++it) {
    for (int i = 0; i < kChains; ++i) acc[i] = acc[i] * 0.999999f + 1e-7f;
  }
  volatile float sink = acc[0];
  (void)sink;
  return 2.0 * kChains * static_cast<double>(iterations);
}

double MeasurePeakGflops(std::string* isa) {
  double (*kernel)(long) = PeakScalar;
  *isa = "scalar";
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) {
    kernel = PeakAvx512;
    *isa = "avx512f";
  } else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    kernel = PeakAvx2;
    *isa = "avx2+fma";
  }
  double best = 0;
  for (int round = 0; round < 5; ++round) {
    auto start = Clock::now();
    double flops = kernel(2'000'000);
    double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    if (round > 0) best = std::max(best, flops / seconds / 1e9);
  }
  return best;
}

}  // namespace

// Recorded with each model; a model measured another way is measured again.
constexpr const char* kTriadMethod = "best of plain and non-temporal stores";

double MachineModel::BoundSeconds(double flops, double bytes) const {
  double compute = peak_gflops > 0 ? flops / (peak_gflops * 1e9) : 0;
  double memory = stream_gbps > 0 ? bytes / (stream_gbps * 1e9) : 0;
  return std::max(compute, memory);
}

nlohmann::json MachineModel::ToJson() const {
  return {{"machine_id", machine_id},   {"cpu_name", cpu_name},
          {"logical_cpus", logical_cpus}, {"vector_isa", vector_isa},
          {"stream_gbps", stream_gbps}, {"peak_gflops", peak_gflops},
          {"triad", kTriadMethod}};
}

Result<MachineModel> MachineModel::FromJson(const nlohmann::json& json) {
  try {
    MachineModel m;
    m.machine_id = json.at("machine_id").get<std::string>();
    m.cpu_name = json.at("cpu_name").get<std::string>();
    m.logical_cpus = json.at("logical_cpus").get<int>();
    m.vector_isa = json.at("vector_isa").get<std::string>();
    if (json.value("triad", std::string()) != kTriadMethod) {
      return Status::InvalidArgument("machine model measured with an older triad: remeasure");
    }
    m.stream_gbps = json.at("stream_gbps").get<double>();
    m.peak_gflops = json.at("peak_gflops").get<double>();
    if (m.stream_gbps <= 0 || m.peak_gflops <= 0) {
      return Status::InvalidArgument("machine model has non-positive figures");
    }
    return m;
  } catch (const nlohmann::json::exception& e) {
    return Status::InvalidArgument(std::string("malformed machine model: ") + e.what());
  }
}

std::string CurrentMachineId() {
  char host[256] = {};
  ::gethostname(host, sizeof(host) - 1);
  return Sha256Hex(std::string(host) + "|" + CpuName() + "|" + std::to_string(OnlineCpus()))
      .substr(0, 16);
}

MachineModel MeasureMachineModel(int cpu) {
  MachineModel model;
  model.machine_id = CurrentMachineId();
  model.cpu_name = CpuName();
  model.logical_cpus = OnlineCpus();
  if (cpu < 0) cpu = model.logical_cpus - 1;
  // A thread of its own, pinned, so the caller's affinity is untouched.
  std::thread worker([&] {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
    model.peak_gflops = MeasurePeakGflops(&model.vector_isa);
    model.stream_gbps = MeasureTriadGbps();
  });
  worker.join();
  return model;
}

MachineModel LoadOrMeasureMachineModel(store::Store* store, int cpu) {
  const std::string id = CurrentMachineId();
  if (store != nullptr) {
    auto cached = store->FindMachineModel(id);
    if (cached.ok() && cached->has_value()) {
      auto json = nlohmann::json::parse(**cached, nullptr, /*allow_exceptions=*/false);
      auto model = MachineModel::FromJson(json);
      if (model.ok()) return *model;
    }
  }
  MachineModel model = MeasureMachineModel(cpu);
  if (store != nullptr) (void)store->PutMachineModel(id, model.ToJson().dump());
  return model;
}

}  // namespace cannbot::validator
