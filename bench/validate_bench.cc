// Benchmark: wall time of one full validation (compile + numeric + perf) per built-in op,
// cold (empty compile cache) and warm (cache filled), and the cost of a cached recompile.
//
// Each op's candidate is its optimized example against its naive example, or, for ops without
// an optimized example, the first recipe its skills carry at the default parameters (not the
// tuned winner: the bench times validation, not the search). The machine model is measured
// before the timings start and copied into every fresh store, so no row pays for it.
//
// usage: validate_bench [--reps N] [--ops a,b,c]
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "cannbot/engine/providers.h"
#include "cannbot/ops/registry.h"
#include "cannbot/target/registry.h"
#include "cannbot/util/fs.h"
#include "cannbot/util/stats.h"
#include "cannbot/validator/validator.h"

namespace {

using namespace cannbot;
using Clock = std::chrono::steady_clock;

struct Row {
  std::string op;
  std::string candidate;
  std::vector<double> cold;
  std::vector<double> warm;
  std::vector<double> cached_compile;
  std::string verdict;
};

double Seconds(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The optimized example against the naive one; for ops without an optimized example, the
// first recipe the skills carry for the op, at its default parameters.
Result<validator::ValidationRequest> RequestFor(const ops::OpSpec& op,
                                                const skills::SkillLibrary& library,
                                                std::string* label) {
  validator::ValidationRequest request;
  request.op = op.name;
  request.seed = 42;
  const std::string dir = std::string(CANNBOT_SOURCE_DIR) + "/examples/" + op.name;
  CANNBOT_ASSIGN_OR_RETURN(std::string naive, ReadFile(dir + "/naive.cpp"));
  request.baseline = validator::KernelSource{"examples/" + op.name + "/naive.cpp", naive};
  if (auto optimized = ReadFile(dir + "/optimized.cpp"); optimized.ok()) {
    request.candidate = {"examples/" + op.name + "/optimized.cpp", *optimized};
    *label = "example";
    return request;
  }
  for (const skills::Skill& skill : library.skills()) {
    for (const skills::Recipe& recipe : skill.recipes) {
      if (!recipe.NamesOp(op.name) || recipe.target != "cpu") continue;
      request.candidate = {recipe.path, skills::Instantiate(recipe, skills::Defaults(recipe), "", &op)};
      *label = "recipe " + recipe.name + " (defaults)";
      return request;
    }
  }
  return Status::NotFound("no optimized example and no recipe for " + op.name);
}

std::string Summary(const validator::Verdict& v) {
  char text[96];
  if (v.accepted) {
    std::snprintf(text, sizeof(text), "accepted %.2fx", v.perf->speedup);
  } else {
    std::snprintf(text, sizeof(text), "rejected (%s)", validator::LayerName(v.layer));
  }
  return text;
}

std::vector<std::string> Split(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream in(list);
  std::string item;
  while (std::getline(in, item, ',')) out.push_back(item);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 3;
  std::vector<std::string> only;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--reps") == 0 && i + 1 < argc) reps = std::atoi(argv[++i]);
    if (std::strcmp(argv[i], "--ops") == 0 && i + 1 < argc) only = Split(argv[++i]);
  }
  auto scratch = TempDir::Create("cannbot-bench");
  if (!scratch.ok()) return 2;
  const validator::MachineModel machine = validator::MeasureMachineModel(-1);
  std::printf("machine: %s, %d CPUs, %.1f GB/s triad, %.0f GFLOP/s (%s); %d reps, medians\n\n",
              machine.cpu_name.c_str(), machine.logical_cpus, machine.stream_gbps,
              machine.peak_gflops, machine.vector_isa.c_str(), reps);

  const config::Config defaults;
  std::vector<std::string> warnings;
  const skills::SkillLibrary library = engine::LoadSkills(defaults, {}, &warnings);
  const ops::Registry registry = ops::Registry::BuiltIns();
  std::vector<Row> rows;
  int store_index = 0;
  for (const ops::OpSpec& op : registry.ops()) {
    if (!only.empty() && std::find(only.begin(), only.end(), op.name) == only.end()) continue;
    Row row;
    row.op = op.name;
    auto request_or = RequestFor(op, library, &row.candidate);
    if (!request_or.ok()) {
      std::fprintf(stderr, "%s: %s\n", op.name.c_str(), request_or.status().ToString().c_str());
      return 2;
    }
    const validator::ValidationRequest& request = *request_or;
    for (int r = 0; r < reps; ++r) {
      // Cold: a fresh store, so both kernels really compile.
      auto store = store::Store::Open(scratch->File("store-" + std::to_string(store_index++) +
                                                    ".db"));
      if (!store.ok()) return 2;
      (void)(*store)->PutMachineModel(machine.machine_id, machine.ToJson().dump());
      validator::Validator validator(validator::ValidatorConfig{}, store->get(), registry);
      auto start = Clock::now();
      auto cold = validator.Validate(request);
      row.cold.push_back(Seconds(start));
      start = Clock::now();
      auto warm = validator.Validate(request);
      row.warm.push_back(Seconds(start));
      if (!cold.ok() || !warm.ok()) {
        std::fprintf(stderr, "%s: %s\n", op.name.c_str(),
                     (cold.ok() ? warm.status() : cold.status()).ToString().c_str());
        return 2;
      }
      row.verdict = Summary(*warm);
      validator::Compiler compiler(validator::CompilerConfig{}, store->get());
      // The build the validator used (the default target's), so the cache key matches.
      auto plan = target::Default().MakePlan(op);
      if (!plan.ok()) return 2;
      for (int i = 0; i < 10; ++i) {
        start = Clock::now();
        auto hit = compiler.Compile(op, request.candidate.text, scratch->path(), "hit",
                                    plan->build);
        row.cached_compile.push_back(Seconds(start));
        if (!hit.ok() || !hit->cached) {
          std::fprintf(stderr, "%s: expected a cache hit, got %s\n", op.name.c_str(),
                       hit.ok() ? (hit->ok ? "a fresh compile" : hit->reason.c_str())
                                : hit.status().ToString().c_str());
          return 2;
        }
      }
    }
    std::fprintf(stderr, "  %s done\n", op.name.c_str());
    rows.push_back(row);
  }

  std::printf("| op | candidate | cold validation (s) | warm validation (s) | cached recompile (ms) | verdict |\n");
  std::printf("|---|---|---:|---:|---:|---|\n");
  for (const Row& row : rows) {
    std::printf("| %s | %s | %.2f | %.2f | %.2f | %s |\n", row.op.c_str(), row.candidate.c_str(),
                Median(row.cold), Median(row.warm), Median(row.cached_compile) * 1e3,
                row.verdict.c_str());
  }
  return 0;
}
