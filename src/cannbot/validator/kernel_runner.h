// KernelRunner: the validating process's handle on one sandboxed cannbot-runner child.
//
// The parent owns a shared-memory region holding every tensor; the child maps it, loads
// kernels into numbered slots and calls them on request (runner_protocol.h). Nothing the
// child says is trusted: callers verify outputs themselves, and Call() reports the parent's
// own wall-clock time of each batch.
//
// Between requests the child is stopped, so nothing it does happens outside the calls the
// parent makes and times (see Freeze).
//
// Failure semantics: when the child crashes, exceeds a limit, hangs past a deadline, makes a
// forbidden system call, leaves threads running, changes its signal handling or breaks the
// protocol, the call returns Status::Aborted (or Timeout) with one sentence saying what
// happened ("the kernel was killed by SIGSEGV (segmentation fault)"); the child is then dead
// and the runner unusable. Infrastructure failures (cannot spawn, cannot map) are IoError.
// After each call the parent reads the child's /proc status itself: threads and signal masks
// are facts the kernel cannot forge. So are the confinement's: before any kernel is loaded
// the parent checks there that the child has no capabilities, no_new_privs and a seccomp
// filter, and refuses to go on (IoError naming the layer) when a layer is missing, unless
// RunnerConfig::insecure_sandbox. The region is a sealed memfd (it cannot shrink or grow),
// so nothing a child does to its own mapping reaches the parent's.
//
// Ownership: the runner owns the child process (killed with its whole process group on
// destruction) and the region. Thread-safety: one thread at a time.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cannbot/util/status.h"
#include "cannbot/util/subprocess.h"
#include "cannbot/validator/memory_cgroup.h"
#include "cannbot/validator/runner_protocol.h"

namespace cannbot::validator {

// True when a runner call failed because of the kernel (the child crashed, broke a rule or
// ran out of time: Aborted or Timeout, see above), not because of cannbot itself.
inline bool KernelFailed(const Status& s) {
  return s.code() == Status::Code::kAborted || s.code() == Status::Code::kTimeout;
}

struct RunnerConfig {
  std::string runner_path;  // "" = cannbot-runner next to this executable, else the build's
  // CPU the child is pinned to; -1 = $CANNBOT_RUNNER_CPU where set (an online CPU's number:
  // lets a test group or a second validator on one machine keep off the CPU that times), else
  // the last online CPU.
  int cpu = -1;
  int cpu_seconds = 300;    // RLIMIT_CPU of the child
  // RLIMIT_AS of the child: what the job needs (AddressSpaceMb: its tensors twice over plus
  // 1 GiB for code and scratch), never more than this cap.
  int address_space_mb = 8192;
  size_t max_output_bytes = 1u << 20;  // stdout+stderr cap (RLIMIT_FSIZE)
  std::chrono::milliseconds load_timeout{10000};  // dlopen, static constructors included
  // Run untrusted code even where a sandbox layer cannot be applied (each is then listed in
  // sandbox_warnings() and in every report). Off: such a machine refuses to validate.
  bool insecure_sandbox = false;
  // Where the child's memory cgroup goes (memory_cgroup.h), limited like its address space;
  // not enabled: rlimits alone bound its memory.
  MemoryCgroups memory_cgroups;
  // Give the child the count channel (runner_protocol::kCountChannelFd), which the ascendc
  // emulation sends its counts down; TakeCountRecords() returns what arrived. After Seal the
  // child may then make no memory executable, so the code that sends stays the code loaded.
  bool count_channel = false;
  // Layers the runner leaves out on purpose (see runner/sandbox.h): for tests only.
  std::vector<std::string> withheld_layers;
};

// The child's address-space limit for a shared region of `region_bytes`, in MiB.
int AddressSpaceMb(const RunnerConfig& config, size_t region_bytes);

// The CPU a runner of `config` is pinned to (RunnerConfig::cpu, resolved).
Result<int> RunnerCpu(const RunnerConfig& config);

// Resolves RunnerConfig::runner_path's default.
std::string DefaultRunnerPath();

struct KernelArg {
  runner_protocol::ArgKind kind;
  uint64_t value;  // tensor: byte offset in the region; int64; float bits

  static KernelArg Tensor(size_t offset) { return {runner_protocol::ArgKind::kTensor, offset}; }
  static KernelArg Int64(int64_t v) {
    return {runner_protocol::ArgKind::kInt64, static_cast<uint64_t>(v)};
  }
  static KernelArg Float32(float v);
};

struct CallTiming {
  double wall_seconds = 0;   // parent's clock, request sent to reply received
  double child_seconds = 0;  // the child's claim, informative only
  // MXCSR exception flags the calls raised (runner_protocol::kFp*): the child's claim, for
  // diagnosis only (a subnormal result raises kFpUnderflow, a subnormal operand
  // kFpDenormalOperand).
  uint32_t fp_exceptions = 0;
};

// How the calls of one batch run.
struct CallMode {
  // Flush-to-zero and denormals-are-zero set for every call (the kernel must leave them so):
  // a kernel slower without them pays for subnormal numbers.
  bool flush_denormals = false;
};

class KernelRunner {
 public:
  static Result<std::unique_ptr<KernelRunner>> Start(const RunnerConfig& config,
                                                     size_t region_bytes,
                                                     const std::string& work_dir);
  ~KernelRunner();
  KernelRunner(const KernelRunner&) = delete;
  KernelRunner& operator=(const KernelRunner&) = delete;

  char* region() { return region_; }
  size_t region_bytes() const { return region_bytes_; }

  Status Load(int slot, const std::string& shared_object, const std::string& symbol,
              const std::vector<runner_protocol::ArgKind>& kinds);
  // Every kernel is loaded: from now on the child may not open files.
  Status Seal();
  // Calls the kernel in `slot` `repetitions` times, rotating over `sets` of arguments.
  Result<CallTiming> Call(int slot, const std::vector<std::vector<KernelArg>>& sets,
                          uint32_t repetitions, std::chrono::milliseconds timeout,
                          CallMode mode = {});

  // The first `max_bytes` the child wrote to stdout/stderr.
  std::string ChildOutput(size_t max_bytes = 4096) const;
  // Bytes the child wrote to stdout/stderr so far.
  size_t ChildOutputBytes() const;
  // What the child wrote after the first `offset` bytes.
  std::string ChildOutputSince(size_t offset) const;
  // Everything that arrived on the count channel so far (empty without one), then cleared.
  std::string TakeCountRecords();
  // What bounds the child's memory: "a cgroup v1 memory limit of 1.3 GiB and an address-space
  // limit of 1352 MiB", or the address-space limit alone and why.
  std::string DescribeMemoryLimit() const;
  // Sandbox mechanisms the child could not apply (empty when fully confined).
  const std::vector<std::string>& sandbox_warnings() const { return sandbox_warnings_; }

 private:
  KernelRunner() = default;
  Status Send(runner_protocol::Type type, const std::string& payload);
  // Waits for the reply to the last request; on a dead or silent child, kills it and
  // explains why.
  Result<std::string> Receive(SteadyClock::time_point deadline, const std::string& doing,
                              runner_protocol::Type expected = runner_protocol::Type::kOk);
  Status ChildFailure(const std::string& doing, bool timed_out, double limit_seconds);
  // After a call: the kernel must not have left threads or changed its signal state.
  Status CheckProcessState();
  Status AwaitReady();
  // Warnings for confinement the child's /proc status does not show.
  std::vector<std::string> VerifyConfinement() const;
  // Fails closed on any warning unless the config allows an insecure sandbox.
  Status AcceptWarnings(const std::string& text);
  // Between requests the child is stopped (SIGSTOP, confirmed in /proc): a kernel runs only
  // while the parent waits for its reply, so it can neither work on after replying (its
  // outputs are checked while it is stopped) nor take the CPU from the other kernel's timed
  // batch. Thaw before a request; Freeze after its reply.
  void Thaw();
  Status Freeze();
  // Moves what the count channel holds into count_records_; false when the child sent more
  // than any emulation would (then it is killed).
  bool DrainCounts();

  RunnerConfig config_;
  std::unique_ptr<MemoryCgroup> cgroup_;  // outlives the child: removed once it is gone
  int address_space_mb_ = 0;
  std::unique_ptr<ChildProcess> child_;
  int channel_ = -1;
  int counts_ = -1;  // the count channel's read end (non-blocking), or -1
  std::string count_records_;
  int memfd_ = -1;
  char* region_ = nullptr;
  size_t region_bytes_ = 0;
  uint64_t nonce_ = 0;
  uint32_t sequence_ = 0;
  std::string output_path_;
  bool dead_ = false;
  bool frozen_ = false;
  std::vector<std::string> sandbox_warnings_;
  std::string idle_signal_state_;  // SigBlk/SigIgn/SigCgt of the confined, idle child
};

}  // namespace cannbot::validator
