// Compiler: the validator's first layer. Builds one kernel source into a shared object.
//
// The build runs the configured compiler in a private temporary directory, confined (see
// CompilerConfig::sandbox), with time and memory limits and a minimal environment (none of
// the daemon's variables, which may hold tokens: the log goes back to the kernel's author),
// and keeps its log. Kernels are built with -fopenmp-simd and without the OpenMP runtime:
// `#pragma omp simd` vectorises, other OpenMP pragmas compile to single-threaded code.
// A generated prelude declares the op's contract (`extern "C"` with the exact signature) and
// takes the symbol's address, so a kernel with the wrong signature or without the op's
// symbol fails here with a clear reason instead of misbehaving at run time.
// Before the build a static source check rejects obvious tricks; after it, the object is
// inspected for load-time code and shadowed C-library symbols.
// Results, failures included, are cached in the Store by a hash of machine, compiler
// identity, flags, prelude and source: an identical candidate is never compiled twice.
//
// Thread-safety: Compile() may run concurrently from several threads (each build has its own
// directory; the Store serialises its writes).
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cannbot/ops/op_spec.h"
#include "cannbot/store/store.h"
#include "cannbot/util/status.h"
#include "cannbot/util/subprocess.h"
#include "cannbot/validator/memory_cgroup.h"
#include "cannbot/validator/object_inspector.h"

namespace cannbot::validator {

struct CompilerConfig {
  std::string compiler = "g++";
  // The whole flag list; the prelude, output, link checks and -fopenmp-simd are added by
  // cannbot.
  std::vector<std::string> flags = {"-O3", "-march=native", "-std=c++17", "-fPIC", "-shared"};
  std::chrono::milliseconds timeout{60000};
  size_t max_log_bytes = 64u << 10;
  size_t max_source_bytes = 1u << 20;
  bool use_cache = true;
  // Run the compiler confined by cannbot-runner's exec mode: it may read only the system's
  // program and library directories and its own build directory, with no network and
  // limited memory, so a source cannot `#include "/etc/passwd"` into its log.
  bool sandbox = true;
  // Where the sandbox cannot be applied in full, the runner refuses to run the compiler
  // (the build fails with its reason) unless this is set (ValidatorConfig::insecure_sandbox).
  bool insecure_sandbox = false;
  // Reject sources that visibly create threads, open files, ... before compiling
  // (source_check.h); the sandbox would catch them anyway, later and with less context.
  bool source_check = true;
  // Reject objects with load-time code or C-library symbols (object_inspector.h).
  bool object_check = true;
  std::string runner_path;  // "" = DefaultRunnerPath()
  int address_space_mb = 4096;
  // Where the compiler's memory cgroup goes (memory_cgroup.h), limited like its address space.
  MemoryCgroups memory_cgroups;
};

// How kernels of one target are built (target::Target::MakePlan fills it). Empty fields take
// the plain C++ contract's defaults: the op's contract prelude and nothing else. Other targets (ascendc) bring headers into the build
// directory, a wrapper translation unit that adapts their kernels to the cpu ABI the runner
// calls, and flags.
struct TargetBuild {
  std::string name;  // the target's name (part of the compile cache key)
  std::string prelude;  // forced-included first; "" = the cpu contract for the op
  std::vector<std::pair<std::string, std::string>> files;  // {name, text} put beside the kernel
  std::string wrapper;  // a second translation unit compiled with the kernel ("" = none)
  std::vector<std::string> flags;               // after the configured flags
  // The Validator adds its device profile's definitions to `flags` (ascendc::CompileDefines:
  // core count, UB and L1 sizes), so the kernel, its tiling and the estimate see one device.
  bool device_defines = false;
  std::vector<std::string> required_symbols;    // for "does not define X" reasons
  std::string contract;                         // the signatures, for reasons
  // A kernel of this target that certainly runs no code at load: the object check's yardstick.
  std::string plain_source;
  // The wrapper the yardstick is built with ("" = `wrapper`). A target whose wrapper differs
  // per launch only in template arguments (an operator package's dtypes) gives one fixed text,
  // so the yardstick is built once per op rather than once per launch.
  std::string plain_wrapper;
  // Symbols containing one of these belong to the target's own runtime headers (template
  // instantiations the kernel pulls in) and are not the kernel claiming a reserved name.
  std::vector<std::string> runtime_symbol_markers;
  // Said after the names a failed build did not know ("SoftMax (line 81)"), when the target
  // emulates an API a kernel may use more of than it has ("" = the plain first error).
  std::string undeclared_names_note;
};

// Files a kernel brings along (an operator package's headers and host code), by path relative
// to the build directory ("op_host/add_custom.cpp"); written beside the kernel, checked like it.
using SourceFiles = std::vector<std::pair<std::string, std::string>>;

struct CompileResult {
  bool ok = false;
  bool cached = false;
  bool timed_out = false;          // the compiler hit the time limit (never cached)
  std::string shared_object_path;  // in the caller's work dir, when ok
  std::string log;                 // compiler output (capped)
  std::string reason;              // one sentence when !ok
  std::string command;             // for people: the command that was (or would be) run
  double seconds = 0;              // this call's wall time (tiny when cached)
};

// The first line of a compiler's log that names an error ("" when none).
std::string FirstErrorLine(const std::string& log);

class Compiler {
 public:
  // `cache` may be null (no caching); it must outlive the Compiler.
  Compiler(CompilerConfig config, store::Store* cache);

  // Compiles `source` as a kernel for `op` and writes `<work_dir>/<name>.so`. A source that
  // does not build is an ok Result with result.ok == false; errors are for infrastructure
  // problems only (cannot write files, cannot start the compiler).
  // `files` come with the source (SourceFiles); every one passes the source check too.
  Result<CompileResult> Compile(const ops::OpSpec& op, const std::string& source,
                                const std::string& work_dir, const std::string& name,
                                const TargetBuild& target = TargetBuild(),
                                const SourceFiles& files = {});

  // Compiles the op's own reference kernel (trusted: no source or object checks).
  Result<CompileResult> CompileReference(const ops::OpSpec& op, const std::string& work_dir,
                                         const std::string& name);

  // The generated prelude for an op (exposed for tests and `ops --show`).
  static std::string Prelude(const ops::OpSpec& op);
  const CompilerConfig& config() const { return config_; }

  // The output of a program cannbot builds from `files` and runs confined (an operator
  // package's OpDef describer): `produce` builds and runs it on a miss; what it returns is
  // cached in the Store like a compile, keyed by `kind`, this compiler and the files'
  // contents, so the same package is not built again to learn the same answer. Errors are
  // returned, never cached.
  Result<std::string> CachedOutput(const std::string& kind, const SourceFiles& files,
                                   const std::function<Result<std::string>()>& produce) const;
  // Runs one of the compiler's companion tools (objdump) on files of `work_dir` the way the
  // compiler runs: confined, in that directory, with the same limits and no environment.
  // `command[0]` is looked up in the system directories (NotFound when absent).
  Result<CommandResult> RunConfinedTool(const std::string& work_dir,
                                        std::vector<std::string> command,
                                        size_t max_output_bytes) const;

 private:
  // How to run `command` confined in `work_dir`; with memory cgroups, `*cgroup` is the tool's
  // group, to be kept until the tool is gone.
  Result<SpawnOptions> ConfinedToolOptions(const std::string& work_dir,
                                           std::vector<std::string> command,
                                           std::unique_ptr<MemoryCgroup>* cgroup) const;
  // `target` with its defaults filled in for `op`.
  static TargetBuild Resolve(const ops::OpSpec& op, const TargetBuild& target);
  std::string CacheKey(const TargetBuild& target, const std::string& source,
                       const SourceFiles& files) const;
  Result<CompileResult> CompileChecked(const ops::OpSpec& op, const std::string& source,
                                       const std::string& work_dir, const std::string& name,
                                       const TargetBuild& target, bool trusted,
                                       const SourceFiles& files = {});
  Result<CompileResult> Build(const TargetBuild& target, const std::string& source,
                              const SourceFiles& files, std::string* shared_object_bytes);
  // Build() through the cache.
  Result<CompileResult> BuildCached(const TargetBuild& target, const std::string& source,
                                    const SourceFiles& files, std::string* shared_object_bytes);
  // "" when the built object is clean, else why not (object_inspector.h).
  Result<std::string> InspectObject(const ops::OpSpec& op, const TargetBuild& target,
                                    const std::string& bytes);
  // The facts of the target's plain kernel, built once per process (and cached in the store).
  Result<ObjectFacts> YardstickFacts(const ops::OpSpec& op, const TargetBuild& target);

  CompilerConfig config_;
  store::Store* cache_;
  // The yardsticks' facts by cache key: every candidate of a target is inspected against the
  // same one, and the store's cache may be off or absent.
  std::mutex yardstick_mu_;
  std::map<std::string, ObjectFacts> yardsticks_;  // guarded by yardstick_mu_
  std::string compiler_path_;      // config_.compiler, absolute when found in PATH
  std::string compiler_identity_;  // compiler binary (path, size, mtime) and machine id
};

}  // namespace cannbot::validator
