// `cannbot machine [--remeasure] [--json]`: the roofline figures cannbot judges kernels by,
// and what the CPU is (model, microarchitecture, features).
//
// They are measured once and cached in the store; a model measured while the machine was busy
// is too low (roofline fractions then come out above 1), so --remeasure replaces it.
#include <cstdio>
#include <fstream>
#include <memory>

#include "cannbot/store/store.h"
#include "cannbot/validator/machine_model.h"
#include "cli/commands.h"

namespace cannbot::cli {
namespace {

struct MachineFlags {
  bool remeasure = false;
  bool json = false;
  std::string db;
};

double LoadAverage() {
  std::ifstream in("/proc/loadavg");
  double one_minute = 0;
  in >> one_minute;
  return one_minute;
}

int Run(const MachineFlags& flags) {
  auto store = store::Store::Open(flags.db.empty() ? store::Store::DefaultPath() : flags.db);
  if (!store.ok()) return ReportError(store.status(), flags.json);
  validator::MachineModel model;
  if (flags.remeasure) {
    model = validator::MeasureMachineModel(-1);
    Status s = (*store)->PutMachineModel(model.machine_id, model.ToJson().dump());
    if (!s.ok()) return ReportError(s, flags.json);
  } else {
    model = validator::LoadOrMeasureMachineModel(store->get(), -1);
  }
  const double load = LoadAverage();
  if (flags.json) {
    nlohmann::json out = model.ToJson();
    out["load_average"] = load;
    std::printf("%s\n", out.dump(2).c_str());
    return kExitOk;
  }
  std::printf("machine %s\n  CPU            %s, %s (%d logical CPUs)\n"
              "  features       %s\n  vector unit    %s\n"
              "  read-only      %.1f GB/s (one core)\n"
              "  copy           %.1f GB/s (one core; read + written bytes)\n"
              "  stream triad   %.1f GB/s (one core)\n  fp32 FMA peak  %.1f GFLOP/s (one core)\n"
              "  tuning key     %s\n",
              model.machine_id.c_str(), model.cpu_name.c_str(), model.microarchitecture.c_str(),
              model.logical_cpus, model.features.c_str(), model.vector_isa.c_str(),
              model.read_gbps, model.copy_gbps, model.stream_gbps, model.peak_gflops,
              model.cpu_key.c_str());
  if (load > model.logical_cpus - 0.5) {
    std::printf("\nnote: the load average is %.1f on %d CPUs: figures measured now would be "
                "low; remeasure on a quiet machine.\n", load, model.logical_cpus);
  }
  return kExitOk;
}

}  // namespace

Command RegisterMachine(CLI::App& app) {
  auto flags = std::make_shared<MachineFlags>();
  CLI::App* cmd = app.add_subcommand("machine", "Show (or remeasure) this machine's roofline");
  cmd->add_flag("--remeasure", flags->remeasure, "Measure again and replace the cached model");
  cmd->add_flag("--json", flags->json, "Machine-readable output");
  cmd->add_option("--db", flags->db, "Store file");
  return {cmd, [flags] { return Run(*flags); }};
}

}  // namespace cannbot::cli
