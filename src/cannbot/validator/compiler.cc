#include "cannbot/validator/compiler.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <iterator>
#include <regex>
#include <sstream>

#include "cannbot/util/fs.h"
#include "cannbot/util/hash.h"
#include "cannbot/util/subprocess.h"
#include "cannbot/validator/kernel_runner.h"
#include "cannbot/validator/machine_model.h"
#include "cannbot/validator/object_inspector.h"
#include "cannbot/validator/source_check.h"

namespace cannbot::validator {
namespace {

// Added to every build. -fopenmp-simd honours `#pragma omp simd` (and `declare simd`) as a
// vectorisation hint; other OpenMP pragmas compile to single-threaded code, since nothing
// links the OpenMP runtime (source_check.h rejects calls into it).
const char* const kFixedFlags[] = {"-fopenmp-simd"};

// Yardstick facts kept in memory (each holds the plain build's exported symbols).
constexpr size_t kMaxYardsticks = 64;

// The compiler child's PATH. Fixed rather than the daemon's: the confined compiler may only
// run programs from the system directories anyway, and the compiler itself is resolved to
// an absolute path with the daemon's PATH (ResolveCompiler), so a compiler installed
// elsewhere still works unconfined. Its helpers (as, ld) are found here.
constexpr const char* kChildPath = "/usr/local/bin:/usr/bin:/bin";

// The configured compiler as an absolute path, looked up in the daemon's PATH; unchanged
// when not found (the build then fails with a clear log).
std::string ResolveCompiler(const std::string& compiler) {
  const std::string found = FindInPath(compiler, kChildPath);
  return found.empty() ? compiler : found;
}

// The resolved compiler's path, size and time, so the cache notices an upgrade.
std::string CompilerIdentity(const std::string& resolved) {
  struct stat st {};
  if (::stat(resolved.c_str(), &st) != 0) return resolved;
  return resolved + ":" + std::to_string(st.st_size) + ":" + std::to_string(st.st_mtime);
}

// "SoftMax (op_kernel/x.cpp:81), WholeReduceMax (op_kernel/x.cpp:82)": each name GCC said
// was not declared or not a member of a namespace, once, in order, at most eight.
std::string UndeclaredNames(const std::string& log) {
  static const std::regex kUndeclared(
      R"(([^\s:]+:\d+):\d+: error: '([A-Za-z_][A-Za-z0-9_:]*)' )"
      R"((was not declared in this scope|is not a member of))");
  std::vector<std::string> seen;
  std::string out;
  for (auto it = std::sregex_iterator(log.begin(), log.end(), kUndeclared);
       it != std::sregex_iterator() && seen.size() < 8; ++it) {
    const std::string name = (*it)[2];
    if (std::find(seen.begin(), seen.end(), name) != seen.end()) continue;
    seen.push_back(name);
    if (!out.empty()) out += ", ";
    out += name + " (" + (*it)[1].str() + ")";
  }
  return out;
}

// One sentence a person can act on, from what the compiler printed.
std::string ExplainFailure(const TargetBuild& target, const CommandResult& run) {
  const std::string& log = run.output;
  const std::string contract = "`" + target.contract + "`";
  if (log.find("conflicting declaration of C function") != std::string::npos ||
      log.find("conflicting types for") != std::string::npos) {
    return "the kernel's signature does not match the contract " + contract;
  }
  for (const std::string& symbol : target.required_symbols) {
    if (log.find("undefined reference to `" + symbol + "'") != std::string::npos) {
      return "the kernel does not define the extern \"C\" function " + symbol +
             " (expected " + contract + ")";
    }
  }
  if (log.find("undefined reference to") != std::string::npos) {
    return "the kernel does not link: " + FirstErrorLine(log);
  }
  if (!target.undeclared_names_note.empty()) {
    const std::string names = UndeclaredNames(log);
    if (!names.empty()) {
      return "compilation failed: not declared: " + names + ". " + target.undeclared_names_note;
    }
  }
  std::string first = FirstErrorLine(log);
  if (first.empty()) first = "the compiler " + run.exit.Describe();
  return "compilation failed: " + first;
}

std::string Join(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) {
    if (!out.empty()) out += ' ';
    out += p;
  }
  return out;
}

}  // namespace

std::string FirstErrorLine(const std::string& log) {
  std::stringstream lines(log);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.find("error") != std::string::npos) return line;
  }
  return "";
}

Compiler::Compiler(CompilerConfig config, store::Store* cache)
    : config_(std::move(config)), cache_(cache), compiler_path_(ResolveCompiler(config_.compiler)),
      // The machine is part of the identity: -march=native objects must not travel.
      compiler_identity_(CompilerIdentity(compiler_path_) + "|" + CurrentMachineId()) {}

namespace {

// The storage types of docs/kernel-abi.md's 16-bit floats. `half` is the compiler's
// _Float16 (arithmetic in float, native with AVX512-FP16); `bfloat16` is two bytes with
// conversions to and from float (round to nearest even), since GCC 12 has no __bf16.
constexpr const char* kDTypePrelude = R"(typedef _Float16 half;
struct bfloat16 {
  uint16_t bits;
  bfloat16() = default;
  bfloat16(float value) {
    uint32_t u;
    __builtin_memcpy(&u, &value, 4);
    bits = (u & 0x7fffffffu) > 0x7f800000u ? static_cast<uint16_t>((u >> 16) | 0x40u)
                                           : static_cast<uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
  }
  operator float() const {
    const uint32_t u = static_cast<uint32_t>(bits) << 16;
    float value;
    __builtin_memcpy(&value, &u, 4);
    return value;
  }
};
)";

}  // namespace

std::string Compiler::Prelude(const ops::OpSpec& op) {
  return "// Generated by cannbot: the contract of op '" + op.name + "'.\n"
         "#include <cstdint>\n" + std::string(kDTypePrelude) +
         "extern \"C\" " + op.CSignature() + ";\n"
         "// Taking the address makes the link fail when the kernel never defines it.\n"
         "static void* const cannbot_contract_entry_ __attribute__((used)) =\n"
         "    reinterpret_cast<void*>(&" + op.name + ");\n";
}

TargetBuild Compiler::Resolve(const ops::OpSpec& op, const TargetBuild& target) {
  TargetBuild resolved = target;
  if (resolved.prelude.empty()) resolved.prelude = Prelude(op);
  if (resolved.required_symbols.empty()) resolved.required_symbols = {op.name};
  if (resolved.contract.empty()) resolved.contract = op.CSignature();
  if (resolved.plain_source.empty()) {
    // The object check's yardstick must itself run no code at load: only cannbot's own
    // reference is known to; a user's op gets an empty body.
    resolved.plain_source = op.reference_kind == ops::ReferenceKind::kBuiltIn
                                ? op.ReferenceAsKernel()
                                : "extern \"C\" " + op.CSignature() + " {}\n";
  }
  return resolved;
}

std::string Compiler::CacheKey(const TargetBuild& target, const std::string& source,
                               const SourceFiles& files) const {
  // Bumped whenever how cannbot builds changes (environment, prelude, fixed flags) or explains
  // a failure (the reason is cached with the result), so old entries are never served.
  constexpr const char* kBuildRecipeVersion = "build-recipe-5";
  std::string material = kBuildRecipeVersion;
  material += '\0';
  material += compiler_identity_;
  material += '\0';
  // A confined and an unconfined build of the same source can log different things
  // (`#include "/etc/passwd"`): they must never share a cache entry.
  material += config_.sandbox ? "sandboxed:" + std::to_string(config_.address_space_mb)
                              : "unconfined";
  material += '\0';
  material += Join(config_.flags);
  material += '\0';
  material += target.name + '\0' + Join(target.flags) + '\0' + target.prelude + '\0' +
              target.wrapper + '\0' + target.undeclared_names_note + '\0';
  for (const auto& [name, text] : target.files) material += name + '\0' + text + '\0';
  for (const auto& [name, text] : files) material += "file:" + name + '\0' + text + '\0';
  material += source;
  return Sha256Hex(material);
}

Result<CompileResult> Compiler::Build(const TargetBuild& target, const std::string& source,
                                      const SourceFiles& files, std::string* shared_object_bytes) {
  CANNBOT_ASSIGN_OR_RETURN(TempDir dir, TempDir::Create("cannbot-compile"));
  CANNBOT_RETURN_IF_ERROR(WriteFile(dir.File("kernel.cpp"), source));
  CANNBOT_RETURN_IF_ERROR(WriteFile(dir.File("cannbot_contract.h"), target.prelude));
  // The confined compiler reads only the system and this directory: the target's headers
  // come here.
  CANNBOT_RETURN_IF_ERROR(WriteFilesUnder(dir.path(), target.files));
  CANNBOT_RETURN_IF_ERROR(WriteFilesUnder(dir.path(), files));  // a kernel's own replace them
  if (!target.wrapper.empty()) {
    CANNBOT_RETURN_IF_ERROR(WriteFile(dir.File("cannbot_wrapper.cpp"), target.wrapper));
  }
  std::vector<std::string> command = {compiler_path_};
  for (const std::string& flag : config_.flags) command.push_back(flag);
  for (const std::string& flag : target.flags) command.push_back(flag);
  for (const char* flag : kFixedFlags) command.push_back(flag);
  for (const char* extra : {"-include", "cannbot_contract.h", "kernel.cpp"}) {
    command.push_back(extra);
  }
  if (!target.wrapper.empty()) command.push_back("cannbot_wrapper.cpp");
  for (const char* extra : {"-o", "kernel.so", "-Wl,--no-undefined"}) command.push_back(extra);
  CompileResult result;
  // As configured, not as resolved: the command is for people, and for its flags.
  result.command = Join(command);
  result.command.replace(0, compiler_path_.size(), config_.compiler);
  std::unique_ptr<MemoryCgroup> cgroup;
  CANNBOT_ASSIGN_OR_RETURN(const SpawnOptions options,
                           ConfinedToolOptions(dir.path(), std::move(command), &cgroup));
  CANNBOT_ASSIGN_OR_RETURN(CommandResult run,
                           RunCommand(options, config_.timeout, config_.max_log_bytes));
  result.log = run.output;
  if (run.output_truncated) result.log += "\n[... compiler output truncated]";
  result.seconds = run.seconds;
  if (run.timed_out) {
    result.timed_out = true;
    result.reason = "the compiler did not finish within " +
                    std::to_string(config_.timeout.count() / 1000) + " s and was killed";
    return result;
  }
  if (!run.exit.Success()) {
    result.reason = ExplainFailure(target, run);
    return result;
  }
  auto bytes = ReadFile(dir.File("kernel.so"), 256u << 20);
  if (!bytes.ok()) {
    result.reason = "the compiler succeeded but produced no shared object";
    return result;
  }
  *shared_object_bytes = std::move(bytes).value();
  result.ok = true;
  return result;
}

Result<SpawnOptions> Compiler::ConfinedToolOptions(const std::string& work_dir,
                                                   std::vector<std::string> command,
                                                   std::unique_ptr<MemoryCgroup>* cgroup) const {
  SpawnOptions options;
  if (config_.sandbox && config_.memory_cgroups.enabled()) {
    const std::string name = "tool-" + work_dir.substr(work_dir.rfind('/') + 1);
    CANNBOT_ASSIGN_OR_RETURN(
        *cgroup, MemoryCgroup::Create(config_.memory_cgroups, name,
                                      static_cast<uint64_t>(config_.address_space_mb) << 20));
  }
  if (config_.sandbox) {
    const std::string runner =
        config_.runner_path.empty() ? DefaultRunnerPath() : config_.runner_path;
    options.argv = {runner, "exec", "--work-dir=" + work_dir,
                    "--cpu-seconds=" + std::to_string(config_.timeout.count() / 1000 + 1),
                    "--address-space-mb=" + std::to_string(config_.address_space_mb)};
    if (*cgroup) options.argv.push_back("--cgroup=" + (*cgroup)->dir());
    if (config_.insecure_sandbox) options.argv.push_back("--insecure");
    options.argv.push_back("--");
  }
  options.argv.insert(options.argv.end(), command.begin(), command.end());
  options.working_dir = work_dir;
  // Nothing of the daemon's environment (API keys, tokens) reaches the tool, whose output a
  // kernel's author sees. Scratch files and any dotfiles go to the private directory;
  // LC_ALL=C keeps messages plain ASCII, for logs, reasons and repair prompts.
  options.inherit_environment = false;
  options.environment = {std::string("PATH=") + kChildPath, "LANG=C", "LC_ALL=C",
                         "HOME=" + work_dir, "TMPDIR=" + work_dir};
  return options;
}

Result<std::string> Compiler::CachedOutput(const std::string& kind, const SourceFiles& files,
                                           const std::function<Result<std::string>()>& produce) const {
  if (cache_ == nullptr || !config_.use_cache) return produce();
  TargetBuild keyed;
  keyed.name = "output-of:" + kind;
  const std::string key = CacheKey(keyed, "", files);
  auto found = cache_->FindCompiled(key);  // a broken cache only costs a rebuild
  if (found.ok() && found->has_value() && (*found)->ok) return std::move((*found)->log);
  CANNBOT_ASSIGN_OR_RETURN(std::string output, produce());
  (void)cache_->PutCompiled(key, {true, "", output, "", 0});
  return output;
}

Result<CommandResult> Compiler::RunConfinedTool(const std::string& work_dir,
                                                std::vector<std::string> command,
                                                size_t max_output_bytes) const {
  if (!command.empty()) {
    const std::string found = FindInPath(command[0], kChildPath);
    if (found.empty()) return Status::NotFound(command[0] + " is not installed");
    command[0] = found;
  }
  std::unique_ptr<MemoryCgroup> cgroup;
  CANNBOT_ASSIGN_OR_RETURN(const SpawnOptions options,
                           ConfinedToolOptions(work_dir, std::move(command), &cgroup));
  return RunCommand(options, config_.timeout, max_output_bytes);
}

Result<CompileResult> Compiler::BuildCached(const TargetBuild& target, const std::string& source,
                                            const SourceFiles& files, std::string* bytes) {
  const std::string key = CacheKey(target, source, files);
  if (cache_ != nullptr && config_.use_cache) {
    auto found = cache_->FindCompiled(key);  // a broken cache only costs a rebuild
    if (found.ok() && found->has_value()) {
      store::CompiledEntry& hit = **found;
      CompileResult result;
      result.ok = hit.ok;
      result.cached = true;
      result.log = std::move(hit.log);
      result.reason = std::move(hit.reason);
      *bytes = std::move(hit.shared_object);
      return result;
    }
  }
  CANNBOT_ASSIGN_OR_RETURN(CompileResult result, Build(target, source, files, bytes));
  if (cache_ != nullptr && config_.use_cache && !result.timed_out) {
    (void)cache_->PutCompiled(key, {result.ok, *bytes, result.log, result.reason, result.seconds});
  }
  return result;
}

Result<std::string> Compiler::InspectObject(const ops::OpSpec& op, const TargetBuild& target,
                                            const std::string& bytes) {
  auto candidate = InspectSharedObject(bytes);
  if (!candidate.ok()) return "the compiler produced an unreadable object: " +
                              candidate.status().message();
  CANNBOT_ASSIGN_OR_RETURN(ObjectFacts plain_facts, YardstickFacts(op, target));
  return CheckObjectFacts(*candidate, plain_facts, target.runtime_symbol_markers);
}

Result<ObjectFacts> Compiler::YardstickFacts(const ops::OpSpec& op, const TargetBuild& target) {
  // A kernel known to run nothing at load, built the same way, shows what the toolchain (and
  // the target's own headers) add.
  TargetBuild yardstick = target;
  if (!target.plain_wrapper.empty()) yardstick.wrapper = target.plain_wrapper;
  const std::string key = CacheKey(yardstick, yardstick.plain_source, {});
  {
    std::lock_guard<std::mutex> lock(yardstick_mu_);
    auto found = yardsticks_.find(key);
    if (found != yardsticks_.end()) return found->second;
  }
  std::string plain_bytes;
  CANNBOT_ASSIGN_OR_RETURN(CompileResult plain,
                           BuildCached(yardstick, yardstick.plain_source, {}, &plain_bytes));
  if (!plain.ok) {
    return Status::Internal("the plain kernel of " + op.name + " does not build: " + plain.reason);
  }
  CANNBOT_ASSIGN_OR_RETURN(ObjectFacts facts, InspectSharedObject(plain_bytes));
  std::lock_guard<std::mutex> lock(yardstick_mu_);
  // A daemon meets many ops and packages: keep the memory bounded (the store still caches).
  if (yardsticks_.size() >= kMaxYardsticks) yardsticks_.clear();
  yardsticks_.emplace(key, facts);
  return facts;
}

Result<CompileResult> Compiler::Compile(const ops::OpSpec& op, const std::string& source,
                                        const std::string& work_dir, const std::string& name,
                                        const TargetBuild& target, const SourceFiles& files) {
  return CompileChecked(op, source, work_dir, name, Resolve(op, target), /*trusted=*/false,
                        files);
}

Result<CompileResult> Compiler::CompileReference(const ops::OpSpec& op,
                                                 const std::string& work_dir,
                                                 const std::string& name) {
  return CompileChecked(op, op.ReferenceAsKernel(), work_dir, name, Resolve(op, TargetBuild()),
                        /*trusted=*/true);
}

Result<CompileResult> Compiler::CompileChecked(const ops::OpSpec& op, const std::string& source,
                                               const std::string& work_dir,
                                               const std::string& name,
                                               const TargetBuild& target, bool trusted,
                                               const SourceFiles& files) {
  CompileResult result;
  if (source.find_first_not_of(" \t\r\n") == std::string::npos) {
    result.reason = "the kernel source is empty";
    return result;
  }
  if (source.size() > config_.max_source_bytes) {
    result.reason = "the kernel source is larger than " +
                    std::to_string(config_.max_source_bytes) + " bytes";
    return result;
  }
  size_t total_bytes = source.size();
  for (const auto& [file, text] : files) total_bytes += text.size();
  if (total_bytes > config_.max_source_bytes) {
    result.reason = "the kernel's sources are larger than " +
                    std::to_string(config_.max_source_bytes) + " bytes together";
    return result;
  }
  if (config_.source_check && !trusted) {
    std::vector<SourceFinding> findings = CheckSource(source);
    if (!findings.empty()) {
      result.reason = DescribeFindings(findings);
      return result;
    }
    for (const auto& [file, text] : files) {
      findings = CheckSource(text);
      if (!findings.empty()) {
        result.reason = file + ": " + DescribeFindings(findings);
        return result;
      }
    }
  }
  const auto start = SteadyClock::now();
  std::string bytes;
  CANNBOT_ASSIGN_OR_RETURN(result, BuildCached(target, source, files, &bytes));
  if (result.command.empty()) {
    std::vector<std::string> argv = {config_.compiler};
    argv.insert(argv.end(), config_.flags.begin(), config_.flags.end());
    argv.insert(argv.end(), target.flags.begin(), target.flags.end());
    argv.insert(argv.end(), std::begin(kFixedFlags), std::end(kFixedFlags));
    result.command = Join(argv) +
                     " -include cannbot_contract.h kernel.cpp -o kernel.so -Wl,--no-undefined";
  }
  if (result.ok && config_.object_check && !trusted) {
    CANNBOT_ASSIGN_OR_RETURN(std::string problem, InspectObject(op, target, bytes));
    if (!problem.empty()) {
      result.ok = false;
      result.reason = problem;
    }
  }
  if (result.ok) {
    result.shared_object_path = work_dir + "/" + name + ".so";
    CANNBOT_RETURN_IF_ERROR(WriteFile(result.shared_object_path, bytes));
  }
  result.seconds = std::chrono::duration<double>(SteadyClock::now() - start).count();
  return result;
}

}  // namespace cannbot::validator
