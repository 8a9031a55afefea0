// Sample: a sample-style Ascend C kernel as the public kernel-launch samples keep it, and what
// cannbot generates to run it on the CPU emulation:
//
//   DIR/<kernel>.cpp   extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, ..., [tiling])
//   DIR/main.cpp       the host program; its CPU-debug branch (ASCENDC_CPU_DEBUG or
//                      __CCE_KT_TEST__) allocates with AscendC::GmAlloc and launches with
//                      ICPU_RUN_KF(add_custom, blockDim, x, y, z, ...), or (a program with
//                      no CPU-debug launch) its board branch allocates with aclrtMalloc and
//                      launches with ACLRT_LAUNCH_KERNEL(add_custom)(blockDim, stream, ...)
//   DIR/*.h            headers either includes; DIR/input/*.bin the data files its scripts write
//
// or a program whose host code launches with `<<<>>>`: the newer single-file form
//
//   DIR/add.asc        template <uint32_t L> __global__ __vector__ void add_custom(...) { ... }
//                      a host function with add_custom<2048><<<blocks, 0, stream>>>(...), main()
//
// or a kernel file's `add_custom_do` wrapper holding the `<<<>>>`, called by main.cpp's board
// branch. The `<<<>>>` is rewritten to a recording call (program_text.h) for discovery; the
// replay builds the kernel file's device part alone.
//
// Nothing in the sample is edited. The host program runs once, confined, in a generated
// discovery program (targets/ascendc/cannbot_sample.h): what it launches (block dim, each
// argument's size, its tiling bytes, each tensor's element type) comes back as SampleLaunch.
// The validation then replays that launch with the op's tensors (SampleReplayFiles); the host
// program is not part of that build. docs/ascendc.md, "Samples".
//
// Thread-safety: plain values and pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cannbot/ascendc/package.h"
#include "cannbot/ops/op_spec.h"
#include "cannbot/util/status.h"

namespace cannbot::ascendc {

struct Sample {
  std::string dir;              // as given, for messages
  PackageFiles files;           // every source and header under DIR
  PackageFiles data;            // DIR/input/*.bin, for the discovery run only
  std::string kernel_file;      // "add_custom.cpp": the file defining the entry
  std::string entry;            // "add_custom"
  std::string entry_params;     // "GM_ADDR x, GM_ADDR y, GM_ADDR z, AddCustomTilingData tiling"
  std::string host_file;        // "main.cpp": the file whose main() launches the kernel
  // How the host program launches: "ICPU_RUN_KF" (its CPU-debug branch runs, the default), or
  // "ACLRT_LAUNCH_KERNEL" when it has no CPU-debug launch: its board branch then runs against
  // cannbot's ACL runtime, with the launch header the vendor's build would generate; or
  // "<<<>>>" when its only launch is a kernel call: its board branch runs with the call
  // rewritten (program_text.h), and the kernel need not be extern "C" nor a plain function.
  std::string host_launch = "ICPU_RUN_KF";
  // The macros the sample's own build defines (its CMakeLists' compile definitions, such as
  // SCENARIO_NUM=1), as "NAME=VALUE" from ParseSampleDefines: on the discovery and replay
  // builds' command lines, and written ahead of the replayed kernel.
  std::vector<std::string> defines;

  std::string Describe() const;  // "sample DIR (kernel add_custom in add_custom.cpp, host main.cpp)"
};

// `-D`-style definitions for a sample's builds: "NAME" (as 1) or "NAME=VALUE", NAME an
// identifier that is not reserved (CANNBOT_*, cannbot*, __*, ASCENDC_*, which cannbot's own
// builds set) and VALUE a number (1, 0x10, 2.5f): a word could spell a name the source check
// refuses where no file shows it. At most 32. Returns them as "NAME=VALUE"; InvalidArgument
// naming the first bad one.
Result<std::vector<std::string>> ParseSampleDefines(const std::vector<std::string>& given);

// Whether PATH looks like a sample: a directory without op_host/ that holds a .cpp, .cc or
// .asc, or one such file that defines main() (one program of a directory that holds several,
// as examples with a program per scenario do).
bool LooksLikeSample(const std::string& path);

// Reads PATH, a directory, or a program file in one: its directory without the other files
// that define main(). InvalidArgument (naming the file and the cause): no kernel entry
// definition or several, no host file with ICPU_RUN_KF or ACLRT_LAUNCH_KERNEL or several,
// files too large or not text, a file that defines no main().
Result<Sample> LoadSample(const std::string& path);
// The same from files already read (`dir` labels it in messages): a sample sent with a job,
// or one with a suggestion's changes applied.
Result<Sample> SampleFromFiles(const std::string& dir, PackageFiles files, PackageFiles data = {});

// One argument of the launch the host program made.
struct SampleArg {
  bool gm = false;     // a GmAlloc allocation; else a by-value argument
  uint64_t bytes = 0;  // the allocation's size, or the value's
  std::string data;    // the value's bytes, or an allocation's past the op's tensors
  std::string dtype;   // a tensor's element type, as the kernel first copied it
};

struct SampleLaunch {
  std::string kernel;
  // A <<<>>> launch's kernel as the compiler resolved it ("add_custom<float, 2048>"); "" else.
  std::string instantiation;
  uint32_t block_dim = 0;
  uint64_t tiling_key = 0;
  std::vector<SampleArg> args;

  // The first `tensors` GM arguments (the op's tensors), their dtypes and element counts.
  std::vector<const SampleArg*> TensorArgs(size_t tensors) const;
  std::vector<std::string> TensorDtypes(size_t tensors) const;
  std::vector<int64_t> TensorElements(size_t tensors) const;
};

// The discovery program (`cannbot_sample_discover.cpp`) for a sample whose op has `tensors`
// tensors; built with the kernel file and run among the sample's files and data.
PackageFiles SampleDiscoveryFiles(const Sample& sample, size_t tensors);
// Parses its output. InvalidArgument naming the problem: no launch, a pointer that is no
// GmAlloc allocation, fewer GM arguments than the op has tensors, a tensor whose type the
// kernel's block 0 never showed, a size that is not whole elements.
// `ended`: how the program ended, for messages ("exit 0", "killed by SIGFPE").
Result<SampleLaunch> ParseSampleLaunch(const std::string& printed, const std::string& ended,
                                       const Sample& sample, size_t tensors);

// The op's shape for the sample's tensors (`elements`, the op's tensors in order): each size
// that a tensor's extent names alone, else the op's own shape case with those counts.
// InvalidArgument when neither fixes every size.
Result<ops::Shape> SampleShape(const ops::OpSpec& op, const std::vector<int64_t>& elements);

// The replay build's kernel translation unit: the kernel file as written, or for a "<<<>>>"
// sample its device part (ProgramText's WithoutHostFunctions: line numbers kept) and the entry
// that launches the recorded instantiation.
std::string SampleReplayKernel(const Sample& sample, const SampleLaunch& launch);

// What the replay build needs beside the kernel file: the headers the kernel file includes
// (transitively, among the sample's files) and the generated `cannbot_sample_replay.inc` (the
// entry's declaration and the recorded launch).
PackageFiles SampleReplayFiles(const Sample& sample, const SampleLaunch& launch);

}  // namespace cannbot::ascendc
