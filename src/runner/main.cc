// cannbot-runner: the child process that loads and calls untrusted kernels.
//
// It confines itself first (resource limits, one CPU), then loads kernels only when the
// parent asks, and answers requests over the descriptors described in runner_protocol.h.
// It links nothing from the core library: the less code shares an address space with an
// untrusted kernel, the less there is to subvert.
#include <dlfcn.h>
#include <fcntl.h>
#include <ffi.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xmmintrin.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "cannbot/validator/runner_protocol.h"
#include "runner/sandbox.h"

namespace proto = cannbot::runner_protocol;

namespace {

constexpr int kUsageExit = 64;
constexpr int kSandboxUnavailableExit = 71;  // EX_OSERR

struct Limits {
  uint64_t nonce = 0;
  int cpu = -1;
  long cpu_seconds = 60;
  long address_space_mb = 8192;
  long max_output_bytes = 1 << 20;
  long open_files = 64;
  std::vector<std::string> withheld;  // sandbox layers left out (tests of failing closed)
  std::string cgroup;  // a memory cgroup directory to join first ("" = none)
  bool immutable_code = false;  // --immutable-code: no new executable memory after Seal
};

struct Kernel {
  void* handle = nullptr;
  void* entry = nullptr;
  ffi_cif cif{};
  std::vector<ffi_type*> types;
  std::vector<proto::ArgKind> kinds;
};

[[noreturn]] void Die(const char* what) {
  std::fprintf(stderr, "cannbot-runner: %s\n", what);
  std::_Exit(kUsageExit);
}

bool ParseFlag(const char* arg, const char* name, long* out) {
  size_t len = std::strlen(name);
  if (std::strncmp(arg, name, len) != 0 || arg[len] != '=') return false;
  char* end = nullptr;
  *out = std::strtol(arg + len + 1, &end, 0);
  if (*end != '\0') Die("bad number in flag");
  return true;
}

Limits ParseArgs(int argc, char** argv) {
  Limits limits;
  for (int i = 1; i < argc; ++i) {
    long value = 0;
    const char* arg = argv[i];
    if (std::strncmp(arg, "--nonce=", 8) == 0) {
      limits.nonce = std::strtoull(arg + 8, nullptr, 16);
    } else if (ParseFlag(arg, "--cpu", &value)) {
      limits.cpu = static_cast<int>(value);
    } else if (ParseFlag(arg, "--cpu-seconds", &value)) {
      limits.cpu_seconds = value;
    } else if (ParseFlag(arg, "--address-space-mb", &value)) {
      limits.address_space_mb = value;
    } else if (ParseFlag(arg, "--max-output-bytes", &value)) {
      limits.max_output_bytes = value;
    } else if (std::strncmp(arg, "--without=", 10) == 0) {
      limits.withheld.push_back(arg + 10);
    } else if (std::strncmp(arg, "--cgroup=", 9) == 0) {
      limits.cgroup = arg + 9;
    } else if (std::strcmp(arg, "--immutable-code") == 0) {
      limits.immutable_code = true;
    } else if (ParseFlag(arg, "--open-files", &value)) {
      limits.open_files = value;
    } else {
      Die("unknown flag");
    }
  }
  return limits;
}

// Sets both limits to `value`, or to the hard limit already in force where that is lower
// (a lower limit is as strict; raising it would need a privilege the runner should not have).
bool SetLimit(int resource, rlim_t value) {
  rlimit current{};
  if (getrlimit(resource, &current) == 0 && current.rlim_max != RLIM_INFINITY &&
      current.rlim_max < value) {
    value = current.rlim_max;
  }
  rlimit limit{value, value};
  return setrlimit(resource, &limit) == 0;
}

// Moves this process into the memory cgroup at `dir` (memory_cgroup.h), before anything
// untrusted runs; "" or what failed.
std::string JoinCgroup(const std::string& dir) {
  if (dir.empty()) return "";
  const std::string path = dir + "/cgroup.procs";
  const int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
  const std::string pid = std::to_string(getpid());
  const bool joined = fd >= 0 && write(fd, pid.data(), pid.size()) == static_cast<ssize_t>(pid.size());
  const int error = errno;
  if (fd >= 0) close(fd);
  return joined ? "" : "cannot join the memory cgroup " + dir + ": " + std::strerror(error);
}

// Returns warnings for the limits that could not be set.
std::vector<std::string> Confine(const Limits& limits) {
  // Nothing but our channels and stdio may be inherited.
  close_range(proto::kCountChannelFd + 1, ~0u, 0);
  // Unbuffered: what a kernel prints reaches the file at once, where the parent looks after
  // every call (buffered, a print without fflush stayed in this process until it was killed).
  // It also keeps stdio from asking fstat (newfstatat) about a stream at its first write,
  // which stage two traps.
  std::setvbuf(stdout, nullptr, _IONBF, 0);
  std::setvbuf(stderr, nullptr, _IONBF, 0);
  const bool limited =
      SetLimit(RLIMIT_CORE, 0) &&
      SetLimit(RLIMIT_CPU, static_cast<rlim_t>(limits.cpu_seconds)) &&
      SetLimit(RLIMIT_AS, static_cast<rlim_t>(limits.address_space_mb) << 20) &&
      // stdout/stderr go to a file: past this size the kernel gets SIGXFSZ.
      SetLimit(RLIMIT_FSIZE, static_cast<rlim_t>(limits.max_output_bytes)) &&
      SetLimit(RLIMIT_NOFILE, static_cast<rlim_t>(limits.open_files));
  std::vector<std::string> warnings;
  if (!limited) warnings.push_back(std::string("resource limits failed: ") + std::strerror(errno));
  const std::string cgroup = JoinCgroup(limits.cgroup);
  if (!cgroup.empty()) warnings.push_back(cgroup);
  if (limits.cpu >= 0) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(limits.cpu, &set);
    sched_setaffinity(0, sizeof(set), &set);
  }
  return warnings;
}

// The floating-point control state every call starts from (the x86-64 ABI's defaults).
constexpr uint32_t kDefaultMxcsr = 0x1F80;
constexpr uint16_t kDefaultX87Control = 0x037F;
constexpr uint32_t kMxcsrStatusFlags = 0x3F;  // sticky exception flags: not control state

constexpr uint32_t kFlushDenormals = 0x8040;  // flush-to-zero | denormals-are-zero

// Sets the control state a call starts from and clears the exception flags.
void ResetFloatingPointControl(uint32_t mxcsr) {
  _mm_setcsr(mxcsr);
  uint16_t control = kDefaultX87Control;
  asm volatile("fldcw %0" : : "m"(control));
}

// "" when the control state is still `expected`, else what changed, e.g. "MXCSR 0x1f80 ->
// 0x9fc0 (flush-to-zero, denormals-are-zero)".
std::string FloatingPointControlChange(uint32_t expected) {
  const uint32_t mxcsr = _mm_getcsr() & ~kMxcsrStatusFlags;
  uint16_t control = 0;
  asm volatile("fnstcw %0" : "=m"(control));
  if (mxcsr == expected && control == kDefaultX87Control) return "";
  char text[160];
  std::snprintf(text, sizeof(text), "MXCSR 0x%04x -> 0x%04x%s%s%s, x87 control 0x%04x -> 0x%04x",
                expected, mxcsr, (mxcsr & 0x8000) ? " flush-to-zero" : "",
                (mxcsr & 0x40) ? " denormals-are-zero" : "",
                (mxcsr & 0x6000) != 0 ? " rounding-mode" : "", kDefaultX87Control, control);
  return text;
}

bool ReadAll(int fd, void* data, size_t size) {
  auto* p = static_cast<char*>(data);
  while (size > 0) {
    ssize_t n = read(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

void WriteAll(int fd, const void* data, size_t size) {
  auto* p = static_cast<const char*>(data);
  while (size > 0) {
    ssize_t n = write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) std::_Exit(kUsageExit);  // the parent is gone
    p += n;
    size -= static_cast<size_t>(n);
  }
}

class Server {
 public:
  Server(uint64_t nonce, char* base, size_t size, cannbot::runner::SandboxOptions* sandbox)
      : nonce_(nonce), base_(base), size_(size), sandbox_(sandbox) {}

  void Run() {
    while (true) {
      proto::Header header{};
      if (!ReadAll(proto::kChannelFd, &header, sizeof(header))) return;  // parent closed
      if (header.magic != proto::kMagic || header.nonce != nonce_ ||
          header.size > proto::kMaxPayload) {
        Die("malformed request");
      }
      payload_.resize(header.size);
      if (header.size > 0 && !ReadAll(proto::kChannelFd, payload_.data(), header.size)) return;
      sequence_ = header.sequence;
      switch (static_cast<proto::Type>(header.type)) {
        case proto::Type::kLoad: Load(); break;
        case proto::Type::kCall: Call(); break;
        case proto::Type::kSeal: Seal(); break;
        case proto::Type::kQuit: return;
        default: Reply(proto::Type::kError, "unknown request", 15);
      }
    }
  }

  // The first message: the sandbox is in place; `warnings` lists what it could not apply.
  void Ready(const std::vector<std::string>& warnings) {
    std::string text;
    for (const std::string& w : warnings) text += w + "\n";
    Reply(proto::Type::kReady, text.data(), text.size());
  }

  const uint32_t* sequence() const { return &sequence_; }

 private:
  void Reply(proto::Type type, const void* data, size_t size) {
    proto::Header header{proto::kMagic, static_cast<uint32_t>(type), nonce_,
                         static_cast<uint32_t>(size), sequence_};
    std::string message(reinterpret_cast<const char*>(&header), sizeof(header));
    message.append(static_cast<const char*>(data), size);
    WriteAll(proto::kChannelFd, message.data(), message.size());
  }
  void Error(const std::string& text) { Reply(proto::Type::kError, text.data(), text.size()); }

  // A forbidden call the kernel survived ends the runner, after telling the parent.
  bool ReportViolation() {
    std::string violation = cannbot::runner::TakePendingViolation();
    if (violation.empty()) return false;
    Error(violation);
    std::_Exit(proto::kForbiddenSyscallExit);
  }

  void Seal() {
    std::vector<std::string> warnings = cannbot::runner::EnterStageTwo(*sandbox_);
    std::string text;
    for (const std::string& w : warnings) text += w + "\n";
    Reply(proto::Type::kOk, text.data(), text.size());
  }

  void Load() {
    proto::LoadRequest request{};
    if (payload_.size() < sizeof(request)) return Error("short load request");
    std::memcpy(&request, payload_.data(), sizeof(request));
    size_t need = sizeof(request) + request.path_size + request.symbol_size +
                  size_t{request.arg_count} * sizeof(uint32_t);
    if (payload_.size() != need || request.slot >= proto::kMaxSlots ||
        request.arg_count > proto::kMaxArgs) {
      return Error("malformed load request");
    }
    const char* p = payload_.data() + sizeof(request);
    std::string path(p, request.path_size);
    std::string symbol(p + request.path_size, request.symbol_size);
    Kernel& kernel = kernels_[request.slot];
    kernel = Kernel{};
    const char* kinds = p + request.path_size + request.symbol_size;
    for (uint32_t i = 0; i < request.arg_count; ++i) {
      uint32_t kind = 0;
      std::memcpy(&kind, kinds + i * sizeof(uint32_t), sizeof(kind));
      kernel.kinds.push_back(static_cast<proto::ArgKind>(kind));
      switch (static_cast<proto::ArgKind>(kind)) {
        case proto::ArgKind::kTensor: kernel.types.push_back(&ffi_type_pointer); break;
        case proto::ArgKind::kInt64: kernel.types.push_back(&ffi_type_sint64); break;
        case proto::ArgKind::kFloat32: kernel.types.push_back(&ffi_type_float); break;
        default: return Error("unknown argument kind");
      }
    }
    // Static constructors of the kernel run here.
    kernel.handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (ReportViolation()) return;
    if (kernel.handle == nullptr) return Error(std::string("cannot load: ") + dlerror());
    kernel.entry = dlsym(kernel.handle, symbol.c_str());
    if (kernel.entry == nullptr) {
      return Error("the shared object does not export the symbol '" + symbol + "'");
    }
    if (ffi_prep_cif(&kernel.cif, FFI_DEFAULT_ABI, request.arg_count, &ffi_type_void,
                     kernel.types.data()) != FFI_OK) {
      return Error("cannot prepare the call");
    }
    Reply(proto::Type::kOk, nullptr, 0);
  }

  void Call() {
    proto::CallRequest request{};
    if (payload_.size() < sizeof(request)) return Error("short call request");
    std::memcpy(&request, payload_.data(), sizeof(request));
    if (request.slot >= proto::kMaxSlots || kernels_[request.slot].entry == nullptr) {
      return Error("no kernel loaded in that slot");
    }
    Kernel& kernel = kernels_[request.slot];
    size_t count = size_t{request.set_count} * request.arg_count;
    if (request.arg_count != kernel.kinds.size() || request.set_count == 0 ||
        payload_.size() != sizeof(request) + count * sizeof(proto::Arg)) {
      return Error("malformed call request");
    }
    // Decode every argument set up front so the timed loop does only the calls.
    std::vector<uint64_t> storage(count);
    std::vector<void*> pointers(count);
    const char* args = payload_.data() + sizeof(request);
    for (size_t i = 0; i < count; ++i) {
      proto::Arg arg{};
      std::memcpy(&arg, args + i * sizeof(arg), sizeof(arg));
      if (static_cast<proto::ArgKind>(arg.kind) == proto::ArgKind::kTensor) {
        if (arg.value >= size_) return Error("tensor offset outside the shared region");
        void* pointer = base_ + arg.value;
        std::memcpy(&storage[i], &pointer, sizeof(pointer));
      } else {
        storage[i] = arg.value;  // int64 and float bits are both read from the low bytes
      }
      pointers[i] = &storage[i];
    }
    const uint32_t mxcsr = (request.flags & proto::kCallFlushDenormals) != 0
                               ? kDefaultMxcsr | kFlushDenormals
                               : kDefaultMxcsr;
    timespec start{}, end{};
    std::string fp_change;
    uint32_t exceptions = 0;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (uint32_t r = 0; r < request.repetitions && fp_change.empty(); ++r) {
      void** set = pointers.data() + (r % request.set_count) * request.arg_count;
      ResetFloatingPointControl(mxcsr);
      ffi_call(&kernel.cif, FFI_FN(kernel.entry), nullptr, set);
      exceptions |= _mm_getcsr() & kMxcsrStatusFlags;
      fp_change = FloatingPointControlChange(mxcsr);
    }
    clock_gettime(CLOCK_MONOTONIC, &end);
    ResetFloatingPointControl(kDefaultMxcsr);
    if (ReportViolation()) return;
    if (!fp_change.empty()) {
      // Its own results are judged under the state it chose; leaving it changed would
      // change whatever runs next, so it is a violation in itself.
      Error("the kernel changed the floating-point control state and left it changed (" +
            fp_change + ")");
      std::_Exit(proto::kForbiddenSyscallExit);
    }
    proto::CallReply reply{static_cast<uint64_t>((end.tv_sec - start.tv_sec) * 1000000000LL +
                                                 (end.tv_nsec - start.tv_nsec)),
                           exceptions, 0};
    Reply(proto::Type::kOk, &reply, sizeof(reply));
  }

  uint64_t nonce_;
  char* base_;
  size_t size_;
  cannbot::runner::SandboxOptions* sandbox_;
  uint32_t sequence_ = 0;
  std::vector<char> payload_;
  Kernel kernels_[proto::kMaxSlots];
};

// `cannbot-runner exec --work-dir=D [--cpu-seconds=N] [--address-space-mb=N]
// [--max-file-mb=N] [--cgroup=DIR] [--insecure] -- PROGRAM ARGS...`: runs a program (the
// compiler) in memory cgroup DIR (memory_cgroup.h) where given, confined
// to the system's program directories and D, without network, under resource limits. Where
// a layer cannot be applied it refuses, unless --insecure.
int ExecMode(int argc, char** argv) {
  std::string work_dir, cgroup;
  long cpu_seconds = 120, address_space_mb = 8192, max_file_mb = 256;
  bool insecure = false;
  int i = 2;
  for (; i < argc && std::strcmp(argv[i], "--") != 0; ++i) {
    if (std::strncmp(argv[i], "--work-dir=", 11) == 0) {
      work_dir = argv[i] + 11;
    } else if (std::strcmp(argv[i], "--insecure") == 0) {
      insecure = true;
    } else if (std::strncmp(argv[i], "--cgroup=", 9) == 0) {
      cgroup = argv[i] + 9;
    } else if (!ParseFlag(argv[i], "--cpu-seconds", &cpu_seconds) &&
               !ParseFlag(argv[i], "--address-space-mb", &address_space_mb) &&
               !ParseFlag(argv[i], "--max-file-mb", &max_file_mb)) {
      Die("unknown exec flag");
    }
  }
  if (work_dir.empty() || i + 1 >= argc) Die("exec needs --work-dir and a program after --");
  close_range(3, ~0u, 0);
  const bool limited = SetLimit(RLIMIT_CORE, 0) &&
                       SetLimit(RLIMIT_CPU, static_cast<rlim_t>(cpu_seconds)) &&
                       SetLimit(RLIMIT_AS, static_cast<rlim_t>(address_space_mb) << 20) &&
                       SetLimit(RLIMIT_FSIZE, static_cast<rlim_t>(max_file_mb) << 20);
  const std::string joined = JoinCgroup(cgroup);  // before Landlock hides /sys
  std::vector<std::string> warnings = cannbot::runner::ConfineCompiler(work_dir);
  if (!limited) warnings.push_back(std::string("resource limits failed: ") + std::strerror(errno));
  if (!joined.empty()) warnings.push_back(joined);
  for (const std::string& warning : warnings) {
    std::fprintf(stderr, "cannbot-runner: %s: %s\n", insecure ? "warning" : "error",
                 warning.c_str());
  }
  if (!warnings.empty() && !insecure) {
    std::fprintf(stderr, "cannbot-runner: refusing to run the compiler on untrusted source "
                         "without its sandbox (an insecure sandbox must be asked for)\n");
    return kSandboxUnavailableExit;
  }
  execvp(argv[i + 1], argv + i + 1);
  std::fprintf(stderr, "cannbot-runner: cannot run %s: %s\n", argv[i + 1], std::strerror(errno));
  return 127;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "exec") == 0) return ExecMode(argc, argv);
  Limits limits = ParseArgs(argc, argv);
  std::vector<std::string> warnings = Confine(limits);
  struct stat st {};
  if (fstat(proto::kSharedMemoryFd, &st) != 0 || st.st_size <= 0) Die("no shared region");
  void* base = mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ | PROT_WRITE,
                    MAP_SHARED, proto::kSharedMemoryFd, 0);
  if (base == MAP_FAILED) Die("cannot map the shared region");
  close(proto::kSharedMemoryFd);  // the mapping is all a kernel gets: nothing to resize
  cannbot::runner::SandboxOptions sandbox;
  Server server(limits.nonce, static_cast<char*>(base), static_cast<size_t>(st.st_size),
                &sandbox);
  char cwd[4096];
  sandbox.work_dir = getcwd(cwd, sizeof(cwd)) ? cwd : ".";
  sandbox.channel = {proto::kChannelFd, limits.nonce, server.sequence()};
  sandbox.withheld = limits.withheld;
  sandbox.immutable_code = limits.immutable_code;
  for (const std::string& w : cannbot::runner::EnterStageOne(sandbox)) warnings.push_back(w);
  server.Ready(warnings);
  server.Run();
  return 0;
}
