#include "cannbot/validator/machine_model.h"

#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <thread>

#include "cannbot/util/hash.h"
#include "cannbot/validator/cpu_info.h"
#include "cannbot/validator/machine_probe.h"

namespace cannbot::validator {
namespace {

// Recorded with each model; a model measured another way is measured again.
constexpr const char* kMethod = "patterns: read, copy and triad; plain and non-temporal stores";

double SecondsPerByte(double gbps) { return gbps > 0 ? 1.0 / (gbps * 1e9) : 0; }

}  // namespace

double MachineModel::MemorySeconds(const ops::Traffic& traffic) const {
  const double total = traffic.total();
  if (total <= 0) return 0;
  if (read_gbps <= 0 || copy_gbps <= 0) {  // only a triad figure: one rate for every byte
    return total * SecondsPerByte(stream_gbps);
  }
  // The cost of a byte as a function of the written share w of the traffic, measured at
  // three points (read-only w = 0, triad w = 1/3, copy w = 1/2) and linear between them;
  // write-heavier traffic is charged as a copy. A single core's reads and non-temporal writes
  // overlap in ways no per-byte sum captures (here a triad's writes can come almost free
  // while a copy's do not), so the model reproduces each measured pattern exactly instead.
  const double w = traffic.written / total;
  const double read = SecondsPerByte(read_gbps);
  const double triad = stream_gbps > 0 ? SecondsPerByte(stream_gbps) : SecondsPerByte(copy_gbps);
  const double copy = SecondsPerByte(copy_gbps);
  double per_byte = copy;
  if (w < 1.0 / 3) {
    per_byte = read + (triad - read) * (w * 3);
  } else if (w < 0.5) {
    per_byte = triad + (copy - triad) * ((w - 1.0 / 3) * 6);
  }
  return total * per_byte;
}

double MachineModel::PatternGbps(const ops::Traffic& traffic) const {
  const double seconds = MemorySeconds(traffic);
  return seconds > 0 ? traffic.total() / seconds / 1e9 : 0;
}

double MachineModel::BoundSeconds(double flops, const ops::Traffic& traffic) const {
  const double compute = peak_gflops > 0 ? flops / (peak_gflops * 1e9) : 0;
  return std::max(compute, MemorySeconds(traffic));
}

nlohmann::json MachineModel::ToJson() const {
  return {{"machine_id", machine_id},     {"cpu_key", cpu_key},
          {"cpu_name", cpu_name},         {"microarchitecture", microarchitecture},
          {"features", features},         {"logical_cpus", logical_cpus},
          {"vector_isa", vector_isa},     {"stream_gbps", stream_gbps},
          {"read_gbps", read_gbps},       {"copy_gbps", copy_gbps},
          {"peak_gflops", peak_gflops},   {"method", kMethod}};
}

Result<MachineModel> MachineModel::FromJson(const nlohmann::json& json) {
  try {
    if (json.value("method", std::string()) != kMethod) {
      return Status::InvalidArgument("machine model measured another way: remeasure");
    }
    MachineModel m;
    m.machine_id = json.at("machine_id").get<std::string>();
    m.cpu_key = json.at("cpu_key").get<std::string>();
    m.cpu_name = json.at("cpu_name").get<std::string>();
    m.microarchitecture = json.at("microarchitecture").get<std::string>();
    m.features = json.at("features").get<std::string>();
    m.logical_cpus = json.at("logical_cpus").get<int>();
    m.vector_isa = json.at("vector_isa").get<std::string>();
    m.stream_gbps = json.at("stream_gbps").get<double>();
    m.read_gbps = json.at("read_gbps").get<double>();
    m.copy_gbps = json.at("copy_gbps").get<double>();
    m.peak_gflops = json.at("peak_gflops").get<double>();
    if (m.stream_gbps <= 0 || m.peak_gflops <= 0 || m.read_gbps < 0 || m.copy_gbps < 0) {
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
  const CpuInfo cpu = ReadCpuInfo();
  return Sha256Hex(std::string(host) + "|" + cpu.name + "|" + std::to_string(cpu.logical_cpus))
      .substr(0, 16);
}

MachineModel MeasureMachineModel(int cpu) {
  const CpuInfo info = ReadCpuInfo();
  MachineModel model;
  model.machine_id = CurrentMachineId();
  model.cpu_key = info.Key();
  model.cpu_name = info.name;
  model.microarchitecture = info.Microarchitecture();
  model.features = info.FeatureText();
  model.logical_cpus = info.logical_cpus;
  if (cpu < 0) cpu = model.logical_cpus - 1;
  BandwidthFigures bandwidth;
  // A thread of its own, pinned, so the caller's affinity is untouched.
  std::thread worker([&] {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
    model.peak_gflops = MeasurePeakGflops(&model.vector_isa);
    bandwidth = MeasureBandwidth();
  });
  worker.join();
  model.read_gbps = bandwidth.read_gbps;
  model.copy_gbps = std::max(bandwidth.copy_plain_gbps, bandwidth.copy_streaming_gbps);
  model.stream_gbps = std::max(bandwidth.triad_plain_gbps, bandwidth.triad_streaming_gbps);
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

MachineModel RemeasureKeepingBest(store::Store* store, int cpu, const MachineModel& model) {
  MachineModel best = MeasureMachineModel(cpu);
  best.read_gbps = std::max(best.read_gbps, model.read_gbps);
  best.copy_gbps = std::max(best.copy_gbps, model.copy_gbps);
  best.stream_gbps = std::max(best.stream_gbps, model.stream_gbps);
  best.peak_gflops = std::max(best.peak_gflops, model.peak_gflops);
  if (store != nullptr) (void)store->PutMachineModel(best.machine_id, best.ToJson().dump());
  return best;
}

}  // namespace cannbot::validator
