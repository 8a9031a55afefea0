#include "cannbot/ascendc/sample.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "cannbot/ascendc/launch_dtype.h"
#include "cannbot/ascendc/program_text.h"
#include "cannbot/util/fs.h"

namespace cannbot::ascendc {
namespace {

namespace fs = std::filesystem;

constexpr size_t kMaxDataFileBytes = 4u << 20;
constexpr size_t kMaxDataBytes = 32u << 20;

bool IsUnit(const std::string& name) {
  for (const char* ext : {".cpp", ".cc", ".asc"}) {
    const std::string e = ext;
    if (name.size() > e.size() && name.compare(name.size() - e.size(), e.size(), e) == 0) {
      return true;
    }
  }
  return false;
}

// Whether a unit's code (comments removed) defines or declares main().
bool HasMain(const std::string& code) {
  static const std::regex kMain(R"(\bmain\s*\()");
  return std::regex_search(code, kMain);
}

// The host program's data files (input/*.bin), which its CPU-debug branch reads.
Status ReadData(const std::string& dir, PackageFiles* data) {
  std::error_code error;
  const fs::path input = fs::path(dir) / "input";
  if (!fs::is_directory(input, error)) return Status::Ok();
  size_t total = 0;
  for (const auto& entry : fs::directory_iterator(input, error)) {
    const std::string name = entry.path().filename().string();
    if (!entry.is_regular_file(error) || entry.path().extension() != ".bin") continue;
    if (!IsPlainRelativePath(name)) continue;
    CANNBOT_ASSIGN_OR_RETURN(std::string bytes,
                             ReadFile(entry.path().string(), kMaxDataFileBytes));
    total += bytes.size();
    if (total > kMaxDataBytes) {
      return Status::InvalidArgument("the sample's input/ holds more than " +
                                     std::to_string(kMaxDataBytes >> 20) + " MiB of data");
    }
    data->push_back({"input/" + name, std::move(bytes)});
  }
  return Status::Ok();
}

// The discovery program's hex ("-": none). Its output is the sample's to forge: anything but
// pairs of hex digits is an error, never an exception.
Result<std::string> FromHex(const std::string& hex) {
  if (hex == "-") return std::string();
  auto digit = [](char c) {
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
  };
  if (hex.size() % 2 != 0) return Status::InvalidArgument("odd hex");
  std::string out;
  for (size_t i = 0; i < hex.size(); i += 2) {
    const int hi = digit(hex[i]), lo = digit(hex[i + 1]);
    if (hi < 0 || lo < 0) return Status::InvalidArgument("not hex");
    out += static_cast<char>(hi * 16 + lo);
  }
  return out;
}

// A kernel function's definition: qualifiers, `void`, its name (2) and parameters (3), its body.
constexpr char kKernelDefinition[] =
    R"(((?:__global__|__aicore__|__vector__|__cube__)\s+)+void\s+(\w+)\s*\(([^)]*)\)\s*\{)";

// The kernel (__global__) functions `code` defines, whatever their linkage: {name, params}.
std::vector<std::pair<std::string, std::string>> KernelsDefined(const std::string& code) {
  static const std::regex kAnyKernel(kKernelDefinition);
  std::vector<std::pair<std::string, std::string>> found;
  for (auto it = std::sregex_iterator(code.begin(), code.end(), kAnyKernel);
       it != std::sregex_iterator(); ++it) {
    if ((*it)[0].str().find("__global__") != std::string::npos) {
      found.push_back({(*it)[2].str(), (*it)[3].str()});
    }
  }
  return found;
}

std::string List(const std::vector<std::string>& v) {
  std::string out;
  for (const std::string& x : v) out += (out.empty() ? "" : ", ") + x;
  return out;
}

// A program whose only launch is `<<<>>>`: the one file with main() runs; the first kernel
// launched is the entry, defined (any linkage, a template too) in one of the units.
Status FindChevronProgram(const std::vector<std::string>& mains,
                          const std::vector<std::pair<std::string, std::string>>& launches,
                          const std::map<std::string, std::pair<std::string, std::string>>& defined,
                          Sample* s) {
  if (mains.size() != 1) {
    return Status::InvalidArgument(
        "the sample " + s->dir + " launches " + launches.front().second + " with <<<>>> in " +
        launches.front().first + (mains.empty() ? " but no file defines main(), the host "
                                                  "program cannbot runs to learn the launch"
                                                : " and several files define main(): " +
                                                      List(mains)));
  }
  const auto kernel = defined.find(launches.front().second);
  if (kernel == defined.end()) {
    return Status::InvalidArgument(
        "the sample " + s->dir + " launches " + launches.front().second + " with <<<>>> in " +
        launches.front().first + ", but none of its files defines a __global__ function of "
        "that name");
  }
  // The replay appends CANNBOT_SAMPLE_PROGRAM_ENTRY to the kernel file; a file that defines
  // or undefines cannbot's macros could make that entry something else.
  static const std::regex kReserved(R"(\bCANNBOT_\w*)");
  for (const auto& [name, text] : s->files) {
    std::smatch m;
    const std::string code = WithoutComments(text);
    if (std::regex_search(code, m, kReserved)) {
      return Status::InvalidArgument("the sample " + s->dir + " uses cannbot's reserved name " +
                                     m[0].str() + " in " + name);
    }
  }
  s->host_launch = "<<<>>>";
  s->host_file = mains.front();
  s->entry = kernel->first;
  s->kernel_file = kernel->second.first;
  s->entry_params = kernel->second.second;
  return Status::Ok();
}

}  // namespace

Result<std::vector<std::string>> ParseSampleDefines(const std::vector<std::string>& given) {
  static const std::regex kName(R"([A-Za-z_][A-Za-z0-9_]{0,63})");
  static const std::regex kReserved(R"((CANNBOT_|cannbot|__|ASCENDC_).*)");
  static const std::regex kNumber(R"([+-]?(?:[0-9][0-9A-Za-z_.']{0,62}|\.[0-9][0-9A-Za-z_]{0,61}))");
  constexpr size_t kMaxDefines = 32;
  if (given.size() > kMaxDefines) {
    return Status::InvalidArgument("at most " + std::to_string(kMaxDefines) +
                                   " definitions for a sample's builds, not " +
                                   std::to_string(given.size()));
  }
  std::vector<std::string> out;
  for (const std::string& d : given) {
    const size_t eq = d.find('=');
    const std::string name = d.substr(0, eq);
    const std::string value = eq == std::string::npos ? "1" : d.substr(eq + 1);
    const std::string quoted = "the definition '" + d.substr(0, 100) + "'";
    if (!std::regex_match(name, kName)) {
      return Status::InvalidArgument(quoted + ": NAME must be a C identifier (NAME or NAME=VALUE)");
    }
    if (std::regex_match(name, kReserved)) {
      return Status::InvalidArgument(quoted + ": names starting CANNBOT_, cannbot, __ or ASCENDC_ "
                                     "are set by cannbot's own builds");
    }
    if (!std::regex_match(value, kNumber)) {
      return Status::InvalidArgument(quoted + ": VALUE must be a number (1, 0x10, 2.5f); a word "
                                     "could spell a name the source check refuses where no "
                                     "file shows it");
    }
    out.push_back(name + "=" + value);
  }
  return out;
}

std::string Sample::Describe() const {
  return "sample " + dir + " (kernel " + entry + " in " + kernel_file + ", host " + host_file +
         ")";
}

// One program file of a directory that holds several (a program per scenario, each with its
// main()): the directory, without the other units that define main().
Result<Sample> LoadSampleProgram(const fs::path& file) {
  const std::string dir = file.has_parent_path() ? file.parent_path().string() : ".";
  const std::string name = file.filename().string();
  PackageFiles files, data;
  CANNBOT_RETURN_IF_ERROR(ReadSourceTree(dir, ".", &files));
  CANNBOT_RETURN_IF_ERROR(ReadData(dir, &data));
  const auto self = std::find_if(files.begin(), files.end(),
                                 [&](const auto& f) { return f.first == name; });
  if (self == files.end() || !HasMain(WithoutComments(self->second))) {
    return Status::InvalidArgument("the sample program " + file.string() +
                                   " is not a .cpp, .cc or .asc file that defines main()");
  }
  files.erase(std::remove_if(files.begin(), files.end(),
                             [&](const auto& f) {
                               return f.first != name && IsUnit(f.first) &&
                                      HasMain(WithoutComments(f.second));
                             }),
              files.end());
  return SampleFromFiles(dir, std::move(files), std::move(data));
}

bool LooksLikeSample(const std::string& dir) {
  std::error_code error;
  if (fs::is_regular_file(dir, error) && IsUnit(fs::path(dir).filename().string())) {
    auto text = ReadFile(dir, kMaxFileBytes);  // a program file: one that defines main()
    return text.ok() && HasMain(WithoutComments(*text));
  }
  if (!fs::is_directory(dir, error) || fs::exists(fs::path(dir) / "op_host", error)) return false;
  for (const auto& entry : fs::directory_iterator(dir, error)) {
    if (IsUnit(entry.path().filename().string())) return true;
  }
  return false;
}

Result<Sample> LoadSample(const std::string& dir) {
  std::error_code error;
  if (fs::is_regular_file(dir, error)) return LoadSampleProgram(dir);
  if (!fs::is_directory(dir, error)) {
    return Status::InvalidArgument("the sample " + dir + " is not a directory");
  }
  PackageFiles files, data;
  CANNBOT_RETURN_IF_ERROR(ReadSourceTree(dir, ".", &files));
  CANNBOT_RETURN_IF_ERROR(ReadData(dir, &data));
  return SampleFromFiles(dir, std::move(files), std::move(data));
}

Result<Sample> SampleFromFiles(const std::string& dir, PackageFiles files, PackageFiles data) {
  // Files a job or a model sent are checked as a directory's would have been read.
  if (files.size() > kMaxFiles) {
    return Status::InvalidArgument("the sample " + dir + " has more than " +
                                   std::to_string(kMaxFiles) + " files");
  }
  for (const auto& [name, text] : files) {
    if (!IsPlainRelativePath(name) || !IsPackageSourceName(name) || text.size() > kMaxFileBytes ||
        text.find('\0') != std::string::npos) {
      return Status::InvalidArgument("the sample file \"" + name + "\" of " + dir +
                                     " is not a source file (.cpp, .cc, .h, .hpp, .inc, .asc) "
                                     "at a relative path, of text under 1 MiB");
    }
  }
  std::sort(files.begin(), files.end());
  Sample s;
  s.dir = dir;
  s.files = std::move(files);
  s.data = std::move(data);
  static const std::regex kDefinition(std::string(R"(extern\s+"C"\s+)") + kKernelDefinition);
  std::vector<std::string> kernels, hosts, unlinked, mains;
  std::vector<std::pair<std::string, std::string>> launches;  // {file, kernel} per <<<>>>
  std::map<std::string, std::pair<std::string, std::string>> defined;  // name: {file, params}
  for (const auto& [name, text] : s.files) {
    if (!IsUnit(name)) continue;
    const std::string code = WithoutComments(text);
    std::smatch m;
    const auto all = KernelsDefined(code);
    for (const auto& [kernel, params] : all) defined.insert({kernel, {name, params}});
    for (const std::string& k : ChevronLaunched(text)) launches.push_back({name, k});
    if (std::regex_search(code, m, kDefinition)) {
      kernels.push_back(name + " (" + m[2].str() + ")");
      s.kernel_file = name;
      s.entry = m[2].str();
      s.entry_params = m[3].str();
    } else if (!all.empty()) {
      unlinked.push_back(name + " (" + all.front().first + ")");
    }
    const bool has_main = HasMain(code);
    if (has_main) mains.push_back(name);
    const bool cpu_debug = code.find("ICPU_RUN_KF") != std::string::npos;
    const bool board = code.find("ACLRT_LAUNCH_KERNEL") != std::string::npos;
    if ((cpu_debug || board) && has_main) {
      hosts.push_back(name);
      s.host_file = name;
      s.host_launch = cpu_debug ? "ICPU_RUN_KF" : "ACLRT_LAUNCH_KERNEL";
    }
  }
  if (hosts.empty() && !launches.empty()) {
    CANNBOT_RETURN_IF_ERROR(FindChevronProgram(mains, launches, defined, &s));
    return s;
  }
  if (kernels.empty() && !unlinked.empty()) {
    return Status::InvalidArgument(
        "the sample " + dir + " defines its kernel without extern \"C\": " + List(unlinked) +
        " (a template or C++-linkage entry; cannbot launches one extern \"C\" __global__ "
        "__aicore__ void <op>(GM_ADDR ...) { ... }, the way the kernel-launch samples declare it)");
  }
  if (kernels.size() != 1) {
    return Status::InvalidArgument(
        "the sample " + dir + (kernels.empty() ? " defines no kernel entry point"
                                               : " defines several kernel entry points: " +
                                                     List(kernels)) +
        " (a sample has one extern \"C\" __global__ __aicore__ void <op>(GM_ADDR ...) { ... })");
  }
  if (hosts.size() != 1) {
    return Status::InvalidArgument(
        "the sample " + dir +
        (hosts.empty() ? " has no host program that launches with ICPU_RUN_KF, "
                         "ACLRT_LAUNCH_KERNEL or <<<>>>"
                       : " has several host programs: " + List(hosts)) +
        " (cannbot runs the CPU-debug branch of the sample's main.cpp, AscendC::GmAlloc and "
        "ICPU_RUN_KF under ASCENDC_CPU_DEBUG, or without one its aclrtMalloc and "
        "ACLRT_LAUNCH_KERNEL or <<<>>>)");
  }
  if (s.host_file == s.kernel_file) {
    return Status::InvalidArgument("the sample " + dir + " keeps its host program and kernel in "
                                   "one file (" + s.kernel_file + "); cannbot runs samples whose "
                                   "kernel has a file of its own");
  }
  return s;
}

std::vector<const SampleArg*> SampleLaunch::TensorArgs(size_t tensors) const {
  std::vector<const SampleArg*> out;
  for (const SampleArg& a : args) {
    if (a.gm && out.size() < tensors) out.push_back(&a);
  }
  return out;
}

std::vector<std::string> SampleLaunch::TensorDtypes(size_t tensors) const {
  std::vector<std::string> out;
  for (const SampleArg* a : TensorArgs(tensors)) out.push_back(a->dtype);
  return out;
}

std::vector<int64_t> SampleLaunch::TensorElements(size_t tensors) const {
  std::vector<int64_t> out;
  for (const SampleArg* a : TensorArgs(tensors)) {
    const uint32_t bits = DtypeBits(a->dtype);
    out.push_back(bits == 0 ? 0 : static_cast<int64_t>(a->bytes * 8 / bits));
  }
  return out;
}

Result<SampleLaunch> ParseSampleLaunch(const std::string& printed, const std::string& ended,
                                       const Sample& sample, size_t tensors) {
  const std::string who = sample.Describe();
  SampleLaunch launch;
  bool launched = false, finished = false;
  std::string violation, no_launch;
  std::istringstream lines(printed);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string tag;
    words >> tag;
    if (tag == "cannbot-sample-error:") {
      return Status::InvalidArgument(who + ": " + line.substr(tag.size() + 1));
    } else if (tag == "cannbot-sample-launch:") {
      size_t count = 0;
      words >> launch.kernel >> launch.block_dim >> count;
      launched = true;
    } else if (tag == "cannbot-sample-entry:") {
      // __PRETTY_FUNCTION__ of the launch: "... [with auto K = add_custom<float, 2048>]"
      // (GCC) or "... [K = &add_custom<float, 2048U>]" (Clang).
      const size_t at = line.find("K = ");
      const size_t end = line.rfind(']');
      if (at != std::string::npos && end != std::string::npos && end > at) {
        launch.instantiation = line.substr(at + 4, end - at - 4);
        if (!launch.instantiation.empty() && launch.instantiation[0] == '&') {
          launch.instantiation.erase(0, 1);
        }
      }
    } else if (tag == "cannbot-sample-key:") {
      words >> launch.tiling_key;
    } else if (tag == "cannbot-sample-arg:") {
      size_t index = 0;
      std::string kind, hex;
      SampleArg a;
      words >> index >> kind >> a.bytes >> hex;
      a.gm = kind == "gm";
      auto bytes = FromHex(hex);
      if (!bytes.ok()) return Status::Internal(who + ": unreadable discovery line: " + line);
      a.data = std::move(bytes).value();
      launch.args.push_back(std::move(a));
    } else if (tag == "cannbot-sample-type:") {
      size_t ordinal = 0;
      std::string dtype;
      words >> ordinal >> dtype;
      size_t gm = 0;
      for (SampleArg& a : launch.args) {
        if (a.gm && gm++ == ordinal && a.dtype.empty()) a.dtype = dtype;
      }
    } else if (tag == "cannbot-ascendc-violation:") {
      violation = line.substr(tag.size() + 1);
    } else if (tag == "cannbot-sample-end") {
      finished = true;
    } else if (tag == "cannbot-sample-no-launch:") {
      no_launch = line.substr(tag.size() + 1);
    }
  }
  if (!launched) {
    return Status::InvalidArgument(
        who + ": its host program " +
        (no_launch.empty() ? "stopped before it launched the kernel"
                           : "returned " + no_launch + " without launching the kernel") +
        (sample.host_launch == "ICPU_RUN_KF"
             ? " (cannbot runs its CPU-debug branch, ASCENDC_CPU_DEBUG, up to ICPU_RUN_KF)"
             : " (cannbot runs its board branch, without ASCENDC_CPU_DEBUG, up to "
               "ACLRT_LAUNCH_KERNEL)"));
  }
  if (sample.host_launch == "<<<>>>") {
    const std::string& name = launch.instantiation;
    if (!IsInstantiationName(name) || name.compare(0, launch.kernel.size(), launch.kernel) != 0 ||
        (name.size() > launch.kernel.size() && name[launch.kernel.size()] != '<')) {
      return Status::InvalidArgument(who + ": its <<<>>> launch of " + launch.kernel +
                                     " resolved to an instantiation cannbot cannot name (\"" +
                                     name.substr(0, 80) + "\")");
    }
  }
  size_t buffers = 0;
  for (const SampleArg& a : launch.args) buffers += a.gm;
  if (buffers < tensors) {
    return Status::InvalidArgument(who + ": its launch of " + launch.kernel + " passes " +
                                   std::to_string(buffers) + " GM buffers; the op has " +
                                   std::to_string(tensors) + " tensors");
  }
  if (launch.block_dim == 0) {
    return Status::InvalidArgument(who + ": its launch has a block dim of 0");
  }
  // Arguments past the tensors the host program left all zero: most often a tiling its
  // scripts write to input/.
  const std::vector<const SampleArg*> tensor_args = launch.TensorArgs(tensors);
  std::string zeros;
  for (size_t i = 0; i < launch.args.size(); ++i) {
    const SampleArg& a = launch.args[i];
    const bool tensor = std::find(tensor_args.begin(), tensor_args.end(), &a) != tensor_args.end();
    if (!tensor && !a.data.empty() && a.data.find_first_not_of('\0') == std::string::npos) {
      zeros += " argument " + std::to_string(i) + " (" + std::to_string(a.bytes) + " bytes) is all "
               "zeros: if the host program reads it from a file its scripts write (input/*.bin), "
               "run them once so the file is in the sample's directory.";
    }
  }
  for (size_t t = 0; t < tensor_args.size(); ++t) {
    const SampleArg& a = *tensor_args[t];
    const uint32_t bits = DtypeBits(a.dtype);
    if (bits != 0 && (a.bytes * 8 % bits != 0 || a.bytes * 8 < bits)) {
      return Status::InvalidArgument(who + ": tensor " + std::to_string(t) + " is a " +
                                     std::to_string(a.bytes) + "-byte allocation, not a whole "
                                     "number (at least one) of its " + a.dtype + " elements");
    }
    if (!a.dtype.empty() && a.dtype != "unknown") {
      if (IsLaunchable(a.dtype)) continue;
      return Status::InvalidArgument(who + ": tensor " + std::to_string(t) + " is " + a.dtype +
                                     ", which cannbot's launch does not run");
    }
    return Status::InvalidArgument(
        who + ": block 0 of the kernel never copied tensor " + std::to_string(t) +
        ", so its element type is unknown (the run " +
        (violation.empty() ? (finished ? "finished" : "stopped early; it " + ended)
                           : "stopped at: " + violation) +
        ")." + zeros);
  }
  return launch;
}

}  // namespace cannbot::ascendc
