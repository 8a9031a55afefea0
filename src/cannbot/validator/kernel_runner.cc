#include "cannbot/validator/kernel_runner.h"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <random>
#include <sstream>

#include "cannbot/util/data_dir.h"
#include "cannbot/util/fs.h"
#include "cannbot/util/utf8.h"
#include "cannbot/validator/proc_status.h"

namespace cannbot::validator {
namespace proto = runner_protocol;

namespace {

std::string Errno() { return std::strerror(errno); }

int LastOnlineCpu() {
  long n = ::sysconf(_SC_NPROCESSORS_ONLN);
  return n > 1 ? static_cast<int>(n - 1) : 0;
}

// RunnerConfig::cpu's default: $CANNBOT_RUNNER_CPU, else the last online CPU.
Result<int> DefaultCpu() {
  const char* text = std::getenv("CANNBOT_RUNNER_CPU");
  if (text == nullptr || *text == '\0') return LastOnlineCpu();
  char* end = nullptr;
  const long cpu = std::strtol(text, &end, 10);
  if (*end != '\0' || cpu < 0 || cpu > LastOnlineCpu()) {
    return Status::InvalidArgument("CANNBOT_RUNNER_CPU must name an online CPU (0-" +
                                   std::to_string(LastOnlineCpu()) + "), not '" + text + "'");
  }
  return static_cast<int>(cpu);
}

uint64_t NewNonce() {
  std::random_device device;
  return (static_cast<uint64_t>(device()) << 32) ^ device();
}

std::string Joined(const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& line : lines) text += (text.empty() ? "" : "; ") + line;
  return text;
}

}  // namespace

int AddressSpaceMb(const RunnerConfig& config, size_t region_bytes) {
  const size_t region_mb = (region_bytes >> 20) + 1;
  return static_cast<int>(std::min<size_t>(static_cast<size_t>(config.address_space_mb),
                                           1024 + 2 * region_mb));
}

Result<int> RunnerCpu(const RunnerConfig& config) {
  return config.cpu >= 0 ? Result<int>(config.cpu) : DefaultCpu();
}

std::string DefaultRunnerPath() {
  std::string beside = ExecutableDir() + "/cannbot-runner";
  if (PathExists(beside)) return beside;
#ifdef CANNBOT_BUILD_DIR
  // Tests and benchmarks run from subfolders of the build tree; an install keeps it beside.
  if (RunningFromBuildTree()) return std::string(CANNBOT_BUILD_DIR) + "/cannbot-runner";
#endif
  return beside;
}

KernelArg KernelArg::Float32(float v) {
  uint32_t bits = 0;
  std::memcpy(&bits, &v, sizeof(bits));
  return {proto::ArgKind::kFloat32, bits};
}

Result<std::unique_ptr<KernelRunner>> KernelRunner::Start(const RunnerConfig& config,
                                                          size_t region_bytes,
                                                          const std::string& work_dir) {
  std::unique_ptr<KernelRunner> runner(new KernelRunner());
  runner->config_ = config;
  if (runner->config_.runner_path.empty()) runner->config_.runner_path = DefaultRunnerPath();
  if (runner->config_.cpu < 0) {
    CANNBOT_ASSIGN_OR_RETURN(runner->config_.cpu, DefaultCpu());
  }
  const std::string& path = runner->config_.runner_path;
  if (::access(path.c_str(), X_OK) != 0) {
    return Status::IoError("the kernel runner " + path + " is missing or not executable");
  }

  region_bytes = std::max<size_t>(region_bytes, 4096);
  runner->memfd_ = ::memfd_create("cannbot-tensors", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (runner->memfd_ < 0 || ::ftruncate(runner->memfd_, static_cast<off_t>(region_bytes)) != 0 ||
      ::fcntl(runner->memfd_, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
    return Status::IoError("cannot create the shared tensor region: " + Errno());
  }
  void* base = ::mmap(nullptr, region_bytes, PROT_READ | PROT_WRITE, MAP_SHARED,
                      runner->memfd_, 0);
  if (base == MAP_FAILED) return Status::IoError("cannot map the tensor region: " + Errno());
  runner->region_ = static_cast<char*>(base);
  runner->region_bytes_ = region_bytes;

  int pair[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
    return Status::IoError("cannot create the runner channel: " + Errno());
  }
  runner->channel_ = pair[0];
  runner->nonce_ = NewNonce();
  char nonce_hex[32];
  std::snprintf(nonce_hex, sizeof(nonce_hex), "%016llx",
                static_cast<unsigned long long>(runner->nonce_));
  runner->output_path_ = work_dir + "/runner-" + nonce_hex + ".out";
  const RunnerConfig& c = runner->config_;
  runner->address_space_mb_ = AddressSpaceMb(c, region_bytes);
  if (c.memory_cgroups.enabled()) {
    CANNBOT_ASSIGN_OR_RETURN(
        runner->cgroup_,
        MemoryCgroup::Create(c.memory_cgroups, std::string("runner-") + nonce_hex,
                             static_cast<uint64_t>(runner->address_space_mb_) << 20));
  }
  SpawnOptions options;
  options.argv = {path,
                  std::string("--nonce=") + nonce_hex,
                  "--cpu=" + std::to_string(c.cpu),
                  "--cpu-seconds=" + std::to_string(c.cpu_seconds),
                  "--address-space-mb=" + std::to_string(runner->address_space_mb_),
                  "--max-output-bytes=" + std::to_string(c.max_output_bytes)};
  if (runner->cgroup_) options.argv.push_back("--cgroup=" + runner->cgroup_->dir());
  // What sends the counts must stay the code that was loaded.
  if (c.count_channel) options.argv.push_back("--immutable-code");
  for (const std::string& layer : c.withheld_layers) options.argv.push_back("--without=" + layer);
  options.inherit_environment = false;  // no LD_PRELOAD or other surprises
  options.working_dir = work_dir;
  options.output_path = runner->output_path_;
  options.inherit_fds = {{runner->memfd_, proto::kSharedMemoryFd}, {pair[1], proto::kChannelFd}};
  int counts[2] = {-1, -1};
  if (c.count_channel) {
    if (::pipe2(counts, O_CLOEXEC) != 0 ||
        ::fcntl(counts[0], F_SETFL, ::fcntl(counts[0], F_GETFL) | O_NONBLOCK) != 0) {
      ::close(pair[1]);
      return Status::IoError("cannot create the count channel: " + Errno());
    }
    runner->counts_ = counts[0];
    options.inherit_fds.push_back({counts[1], proto::kCountChannelFd});
  }
  auto child = ChildProcess::Spawn(options);
  ::close(pair[1]);
  if (counts[1] >= 0) ::close(counts[1]);
  if (!child.ok()) return child.status();
  runner->child_ = std::make_unique<ChildProcess>(std::move(child).value());
  CANNBOT_RETURN_IF_ERROR(runner->AwaitReady());
  return runner;
}

Status KernelRunner::AwaitReady() {
  // The first message arrives once the child has confined itself.
  auto ready = Receive(SteadyClock::now() + config_.load_timeout, "while starting",
                       proto::Type::kReady);
  if (!ready.ok()) {
    return Status::IoError("the kernel runner did not start: " + ready.status().message());
  }
  CANNBOT_RETURN_IF_ERROR(AcceptWarnings(*ready));
  idle_signal_state_ = ReadProcState(child_->pid()).Signals();
  return Status::Ok();
}

std::vector<std::string> KernelRunner::VerifyConfinement() const {
  const ProcState state = ReadProcState(child_->pid());
  if (!state.read()) return {"the runner's confinement could not be read from /proc"};
  std::vector<std::string> missing;
  for (const char* set : {"CapEff", "CapPrm", "CapAmb"}) {
    if (state.Field(set).find_first_not_of('0') != std::string::npos) {
      missing.push_back(std::string("the runner still holds capabilities (") + set + " " +
                        state.Field(set) + ")");
    }
  }
  if (state.Field("NoNewPrivs") != "1") missing.push_back("no_new_privs is not set");
  if (state.Field("Seccomp") != "2") missing.push_back("no seccomp filter is in force");
  return missing;
}

Status KernelRunner::AcceptWarnings(const std::string& text) {
  auto note = [this](const std::string& warning) {
    if (!warning.empty() && std::find(sandbox_warnings_.begin(), sandbox_warnings_.end(),
                                      warning) == sandbox_warnings_.end()) {
      sandbox_warnings_.push_back(warning);
    }
  };
  std::stringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) note(line);
  for (const std::string& missing : VerifyConfinement()) note(missing);
  if (cgroup_ && !cgroup_->Holds(child_->pid())) {
    note("the runner is not in its memory cgroup " + cgroup_->dir());
  }
  if (sandbox_warnings_.empty() || config_.insecure_sandbox) return Status::Ok();
  dead_ = true;
  child_->Kill();
  return Status::Unavailable(
      "refusing to run untrusted code: the sandbox is incomplete on this machine (" +
      Joined(sandbox_warnings_) +
      "); fix the machine, or accept the risk with --insecure-sandbox (config "
      "insecure_sandbox = true), which every report then shows");
}

Status KernelRunner::CheckProcessState() {
  ProcState state = ReadProcState(child_->pid());
  if (!state.read()) return Status::Ok();  // gone: the next request reports how it ended
  std::string problem;
  if (state.Threads() > 1) {
    problem = "the kernel left " + std::to_string(state.Threads() - 1) +
              " extra thread(s) running after it returned";
  } else if (state.Signals() != idle_signal_state_) {
    problem = "the kernel changed the process's signal handling (blocked, ignored or caught "
              "signals) and left it changed";
  }
  if (problem.empty()) return Status::Ok();
  dead_ = true;
  child_->Kill();
  return Status::Aborted(problem);
}

KernelRunner::~KernelRunner() {
  Thaw();
  if (child_ && child_->running() && !dead_) {
    (void)Send(proto::Type::kQuit, "");
    if (!child_->WaitUntil(SteadyClock::now() + std::chrono::milliseconds(200))) child_->Kill();
  }
  child_.reset();  // kills the group if still running
  if (channel_ >= 0) ::close(channel_);
  if (counts_ >= 0) ::close(counts_);
  if (region_ != nullptr) ::munmap(region_, region_bytes_);
  if (memfd_ >= 0) ::close(memfd_);
  if (!output_path_.empty()) ::unlink(output_path_.c_str());
}

void KernelRunner::Thaw() {
  if (!frozen_ || !child_) return;
  ::kill(child_->pid(), SIGCONT);
  frozen_ = false;
}

Status KernelRunner::Freeze() {
  if (frozen_ || !child_ || dead_) return Status::Ok();
  ::kill(child_->pid(), SIGSTOP);
  const auto deadline = SteadyClock::now() + std::chrono::seconds(5);
  while (true) {
    const char state = ProcRunState(child_->pid());
    if (state == 'T' || state == 't' || state == 'Z' || state == '\0') break;  // stopped or gone
    if (SteadyClock::now() > deadline) {
      return Status::IoError("the kernel runner did not stop when told to (state " +
                             std::string(1, state) + ")");
    }
    ::sched_yield();
  }
  frozen_ = true;
  return Status::Ok();
}

Status KernelRunner::Send(proto::Type type, const std::string& payload) {
  Thaw();
  proto::Header header{proto::kMagic, static_cast<uint32_t>(type), nonce_,
                       static_cast<uint32_t>(payload.size()), ++sequence_};
  std::string message(reinterpret_cast<const char*>(&header), sizeof(header));
  message += payload;
  size_t done = 0;
  while (done < message.size()) {
    ssize_t n = ::send(channel_, message.data() + done, message.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Status::Aborted("the runner stopped reading requests");
    done += static_cast<size_t>(n);
  }
  return Status::Ok();
}

Status KernelRunner::ChildFailure(const std::string& doing, bool timed_out,
                                  double limit_seconds) {
  dead_ = true;
  if (timed_out) {
    child_->Kill();
    char text[160];
    std::snprintf(text, sizeof(text), "the kernel ran past the %.1f s time limit and was killed",
                  limit_seconds);
    return Status::Timeout(text);
  }
  auto exit = child_->WaitUntil(SteadyClock::now() + std::chrono::milliseconds(500));
  ExitInfo info = exit ? *exit : child_->Kill();
  if (!info.exited && info.signal == SIGXFSZ) {
    return Status::Aborted("the kernel wrote more than " +
                           std::to_string(config_.max_output_bytes) +
                           " bytes to stdout/stderr " + doing + " and was killed");
  }
  if (!info.exited && info.signal == SIGSYS) {
    // The sandbox's trap could not report (signals were blocked, as glibc does around clone).
    return Status::Aborted("the kernel made a forbidden system call with signals blocked and "
                           "was killed by SIGSYS (which call cannot be told: a blocked trap "
                           "cannot report it; glibc blocks signals while starting threads or "
                           "processes) " + doing);
  }
  if (cgroup_ && cgroup_->OomKilled()) {
    return Status::Aborted("the kernel used more memory than its job may (" +
                           cgroup_->Describe() + ") " + doing + " and was killed");
  }
  if (!info.exited && info.signal == SIGXCPU) {
    return Status::Aborted("the kernel used more than " + std::to_string(config_.cpu_seconds) +
                           " s of CPU time " + doing + " and was killed");
  }
  if (!info.exited) return Status::Aborted("the kernel " + info.Describe() + " " + doing);
  return Status::Aborted("the kernel ended the process (" + info.Describe() + ") " + doing);
}

Result<std::string> KernelRunner::Receive(SteadyClock::time_point deadline,
                                          const std::string& doing, proto::Type expected) {
  const double limit = std::chrono::duration<double>(deadline - SteadyClock::now()).count();
  std::string buffer;
  auto read_exactly = [&](size_t want) -> int {  // 1 ok, 0 closed, -1 timeout
    size_t start = buffer.size();
    buffer.resize(start + want);
    size_t got = 0;
    while (got < want) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline -
                                                                        SteadyClock::now());
      if (left.count() < 0) return -1;
      // The count channel is emptied as the kernel fills it, or a full pipe would stall it.
      pollfd p[2] = {{channel_, POLLIN, 0}, {counts_, POLLIN, 0}};
      int ready = ::poll(p, counts_ >= 0 ? 2 : 1, static_cast<int>(left.count()) + 1);
      if (ready < 0 && errno == EINTR) continue;
      if (counts_ >= 0 && p[1].revents != 0) {
        if (!DrainCounts()) return 0;
        if ((p[1].revents & (POLLHUP | POLLERR)) != 0) {  // no writer left: stop watching
          ::close(counts_);
          counts_ = -1;
        }
      }
      if ((p[0].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      ssize_t n = ::recv(channel_, buffer.data() + start + got, want - got, 0);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return 0;
      got += static_cast<size_t>(n);
    }
    return 1;
  };
  int rc = read_exactly(sizeof(proto::Header));
  if (rc != 1) return ChildFailure(doing, rc < 0, limit);
  proto::Header header{};
  std::memcpy(&header, buffer.data(), sizeof(header));
  if (header.magic != proto::kMagic || header.nonce != nonce_ || header.sequence != sequence_ ||
      header.size > proto::kMaxPayload) {
    dead_ = true;
    child_->Kill();
    return Status::Aborted("the kernel corrupted the runner's reply channel " + doing);
  }
  buffer.clear();
  if (header.size > 0) {
    rc = read_exactly(header.size);
    if (rc != 1) return ChildFailure(doing, rc < 0, limit);
  }
  if (static_cast<proto::Type>(header.type) == proto::Type::kError) {
    // A correct parent never provokes an error reply: the kernel broke a rule or the
    // shared object could not be loaded. Either way this child is finished.
    dead_ = true;
    child_->Kill();
    // The runner's own reports begin "the kernel"; anything else came from the kernel, which
    // can write to the channel itself, and is shown as its words, bounded.
    std::string report = ShowableText(buffer, 1024);
    if (report.rfind("the kernel", 0) != 0) report = "the kernel's process reported: " + report;
    return Status::Aborted(report);
  }
  if (static_cast<proto::Type>(header.type) != expected) {
    dead_ = true;
    child_->Kill();
    return Status::Aborted("the runner sent an unknown reply " + doing);
  }
  CANNBOT_RETURN_IF_ERROR(Freeze());
  return buffer;
}

Status KernelRunner::Load(int slot, const std::string& shared_object, const std::string& symbol,
                          const std::vector<proto::ArgKind>& kinds) {
  if (dead_) return Status::Aborted("the runner has already stopped");
  proto::LoadRequest request{static_cast<uint32_t>(slot),
                             static_cast<uint32_t>(shared_object.size()),
                             static_cast<uint32_t>(symbol.size()),
                             static_cast<uint32_t>(kinds.size())};
  std::string payload(reinterpret_cast<const char*>(&request), sizeof(request));
  payload += shared_object;
  payload += symbol;
  for (proto::ArgKind kind : kinds) {
    uint32_t k = static_cast<uint32_t>(kind);
    payload.append(reinterpret_cast<const char*>(&k), sizeof(k));
  }
  CANNBOT_RETURN_IF_ERROR(Send(proto::Type::kLoad, payload));
  auto reply = Receive(SteadyClock::now() + config_.load_timeout, "while being loaded");
  if (!reply.ok()) return reply.status();
  return CheckProcessState();  // static constructors ran just now
}

Status KernelRunner::Seal() {
  if (dead_) return Status::Aborted("the runner has already stopped");
  CANNBOT_RETURN_IF_ERROR(Send(proto::Type::kSeal, ""));
  auto reply = Receive(SteadyClock::now() + config_.load_timeout, "while sealing the sandbox");
  if (!reply.ok()) return reply.status();
  return AcceptWarnings(*reply);
}

Result<CallTiming> KernelRunner::Call(int slot, const std::vector<std::vector<KernelArg>>& sets,
                                      uint32_t repetitions, std::chrono::milliseconds timeout,
                                      CallMode mode) {
  if (dead_) return Status::Aborted("the runner has already stopped");
  if (sets.empty()) return Status::Internal("Call needs at least one argument set");
  proto::CallRequest request{static_cast<uint32_t>(slot),
                             repetitions,
                             static_cast<uint32_t>(sets.size()),
                             static_cast<uint32_t>(sets[0].size()),
                             mode.flush_denormals ? proto::kCallFlushDenormals : 0u,
                             0};
  std::string payload(reinterpret_cast<const char*>(&request), sizeof(request));
  for (const auto& set : sets) {
    for (const KernelArg& arg : set) {
      proto::Arg wire{static_cast<uint32_t>(arg.kind), 0, arg.value};
      payload.append(reinterpret_cast<const char*>(&wire), sizeof(wire));
    }
  }
  Thaw();  // before the clock starts
  const auto start = SteadyClock::now();
  CANNBOT_RETURN_IF_ERROR(Send(proto::Type::kCall, payload));
  auto reply = Receive(start + timeout, "while running");
  const auto end = SteadyClock::now();
  if (!reply.ok()) return reply.status();
  CANNBOT_RETURN_IF_ERROR(CheckProcessState());
  // Whatever the calls sent before their reply is in the pipe now.
  if (counts_ >= 0 && !DrainCounts()) {
    return Status::Aborted("the kernel flooded the emulation's count channel");
  }
  CallTiming timing;
  timing.wall_seconds = std::chrono::duration<double>(end - start).count();
  if (reply->size() == sizeof(proto::CallReply)) {
    proto::CallReply body{};
    std::memcpy(&body, reply->data(), sizeof(body));
    timing.child_seconds = static_cast<double>(body.elapsed_ns) * 1e-9;
    timing.fp_exceptions = body.fp_exceptions;
  }
  return timing;
}

bool KernelRunner::DrainCounts() {
  // Far more than any emulated launch on a perf shape sends (2.8 million 24-byte records;
  // the bundled examples send a few thousand), and small beside this process's own memory,
  // which the job's memory limit does not bound (a kernel that sent 500 MiB of junk grew the
  // validator past 1 GiB when the cap was 512 MiB).
  constexpr size_t kMaxCountBytes = size_t{64} << 20;
  char chunk[65536];
  while (true) {
    const ssize_t n = ::read(counts_, chunk, sizeof(chunk));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return true;  // empty for now (EAGAIN) or closed
    count_records_.append(chunk, static_cast<size_t>(n));
    if (count_records_.size() > kMaxCountBytes) {
      dead_ = true;
      child_->Kill();
      return false;
    }
  }
}

std::string KernelRunner::TakeCountRecords() {
  if (counts_ >= 0 && !DrainCounts()) return "";
  std::string records;
  records.swap(count_records_);
  return records;
}

std::string KernelRunner::DescribeMemoryLimit() const {
  const std::string rlimit = "an address-space limit of " + std::to_string(address_space_mb_) + " MiB";
  if (cgroup_) return cgroup_->Describe() + " and " + rlimit;
  return rlimit + " (no memory cgroup: " +
         (config_.memory_cgroups.why_not.empty() ? std::string("none configured")
                                                 : config_.memory_cgroups.why_not) +
         ")";
}

size_t KernelRunner::ChildOutputBytes() const {
  struct stat st {};
  return ::stat(output_path_.c_str(), &st) == 0 ? static_cast<size_t>(st.st_size) : 0;
}

std::string KernelRunner::ChildOutputSince(size_t offset) const {
  auto text = ReadFile(output_path_, 1u << 30);
  if (!text.ok() || text->size() <= offset) return "";
  return ValidUtf8(text->substr(offset));
}

std::string KernelRunner::ChildOutput(size_t max_bytes) const {
  auto text = ReadFile(output_path_, 1u << 30);
  if (!text.ok()) return "";
  if (text->size() > max_bytes) return ValidUtf8(text->substr(0, max_bytes)) + "\n[... truncated]";
  return ValidUtf8(*text);
}

}  // namespace cannbot::validator
