#include "cannbot/ascendc/package.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <set>
#include <regex>

#include <nlohmann/json.hpp>

#include "cannbot/ascendc/package_operators.h"
#include "cannbot/util/fs.h"

namespace cannbot::ascendc {
namespace {

namespace fs = std::filesystem;

bool IsSourceName(const std::string& name) {
  for (const char* ext : {".cpp", ".cc", ".h", ".hpp", ".inc", ".asc"}) {
    const std::string e = ext;
    if (name.size() > e.size() && name.compare(name.size() - e.size(), e.size(), e) == 0) {
      return true;
    }
  }
  return false;
}

bool EndsWith(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

bool IsPackageSourceName(const std::string& name) { return IsSourceName(name); }

std::string WithoutComments(const std::string& text) {
  std::string out = text;
  for (size_t i = 0; i + 1 < out.size(); ++i) {
    if (out[i] == '"') {  // skip string literals
      for (++i; i < out.size() && out[i] != '"' && out[i] != '\n'; ++i) {
        if (out[i] == '\\') ++i;
      }
      continue;
    }
    if (out[i] == '/' && out[i + 1] == '/') {
      for (; i < out.size() && out[i] != '\n'; ++i) out[i] = ' ';
    } else if (out[i] == '/' && out[i + 1] == '*') {
      size_t j = i;
      for (; j + 1 < out.size() && !(out[j] == '*' && out[j + 1] == '/'); ++j) {
        if (out[j] != '\n') out[j] = ' ';
      }
      for (size_t k = j; k < std::min(j + 2, out.size()); ++k) out[k] = ' ';
      i = j + 1;
    }
  }
  return out;
}

Status ReadSourceTree(const std::string& dir, const std::string& sub, PackageFiles* files) {
  std::error_code error;
  const fs::path root = fs::path(dir) / sub;
  if (!fs::is_directory(root, error)) {
    return Status::InvalidArgument("the package " + dir + " has no " + sub +
                                   "/ directory (an operator package keeps its host code in "
                                   "op_host/ and its kernel in op_kernel/)");
  }
  std::vector<std::string> names;
  for (auto it = fs::recursive_directory_iterator(root, error); it != fs::end(it);
       it.increment(error)) {
    if (error) break;
    if (!it->is_regular_file(error) || !IsSourceName(it->path().filename().string())) continue;
    names.push_back(fs::relative(it->path(), dir, error).generic_string());
    if (names.size() > kMaxFiles) {
      return Status::InvalidArgument("the package " + dir + " has more than " +
                                     std::to_string(kMaxFiles) + " source files under " + sub);
    }
  }
  if (error) return Status::IoError("cannot list " + root.string() + ": " + error.message());
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) {
    if (!IsPlainRelativePath(name)) {
      return Status::InvalidArgument("the package file " + name + " has an unusable name");
    }
    auto text = ReadFile((fs::path(dir) / name).string(), kMaxFileBytes);
    if (!text.ok()) return text.status().WithContext("the package file " + name);
    if (text->find('\0') != std::string::npos) {
      return Status::InvalidArgument("the package file " + name + " is not text");
    }
    files->push_back({name, std::move(text).value()});
  }
  return Status::Ok();
}

namespace {

// The SoC cannbot emulates (the device profile's Ascend910B), as packages name its variants:
// its AI Core config (AddConfig("ascend910b")) and its architecture folders (op_host/arch22/;
// arch35/ holds the Ascend950 variant of the newer repositories).
constexpr const char* kEmulatedArch = "arch22";

// Whether `name` lies in an architecture folder of another SoC (op_host/arch35/...).
bool InOtherArchFolder(const std::string& name) {
  static const std::regex kArch(R"(^op_(host|kernel)/(arch\d+)/)");
  std::smatch m;
  return std::regex_search(name, m, kArch) && m[2].str() != kEmulatedArch;
}

struct Entry {
  std::string file, name;
  int arity = 0;
  std::vector<TemplateParam> template_params;  // a templated entry's
};

// Counts an entry's parameters, each of which must be GM_ADDR.
Status CountParams(const std::string& file, const std::string& params, Entry* e) {
  size_t start = 0;
  while (start <= params.size()) {
    const size_t comma = std::min(params.find(',', start), params.size());
    const std::string param = params.substr(start, comma - start);
    if (param.find_first_not_of(" \t\r\n") != std::string::npos) {
      if (param.find("GM_ADDR") == std::string::npos && param.find("__gm__") == std::string::npos) {
        return Status::InvalidArgument(
            file + ": the kernel entry " + e->name + " has a parameter that is not GM_ADDR (\"" +
            param.substr(param.find_first_not_of(" \t\r\n")) +
            "\"); a kernel receives every tensor, the workspace and the tiling as GM_ADDR");
      }
      ++e->arity;
    }
    start = comma + 1;
  }
  return Status::Ok();
}

// extern "C" entries, and template entries (`template <...> __global__ __aicore__ void op(`).
Result<std::vector<Entry>> FindEntries(const PackageFiles& files) {
  static const std::regex kEntry(
      R"((extern\s+"C"|template\s*<)[^;{]*?((?:__global__|__aicore__|__vector__|__cube__)\s+)+void\s+(\w+)\s*\(([^)]*)\))");
  std::vector<Entry> entries;
  for (const auto& [name, text] : files) {
    if (name.rfind("op_kernel/", 0) != 0 || InOtherArchFolder(name)) continue;
    const std::string code = WithoutComments(text);
    for (std::sregex_iterator it(code.begin(), code.end(), kEntry), end; it != end; ++it) {
      Entry e{name, (*it)[3].str(), 0, {}};
      if ((*it)[1].str().rfind("template", 0) == 0) {
        // A device function template (`template <typename T> __aicore__ void Helper(`) is not
        // an entry: entries are __global__.
        if (it->str().find("__global__") == std::string::npos) continue;
        const size_t open = static_cast<size_t>(it->position(1)) + (*it)[1].length() - 1;
        Result<std::vector<TemplateParam>> params =
            ParseTemplateParams(TemplateParamText(code, open));
        if (!params.ok()) return Status::InvalidArgument(name + ": " + params.status().message());
        e.template_params = std::move(params).value();
      }
      CANNBOT_RETURN_IF_ERROR(CountParams(name, (*it)[4].str(), &e));
      entries.push_back(std::move(e));
    }
  }
  return entries;
}

// The aclnn interface a package may carry beside its host code (op_host/op_api/, aclnn_*.cpp,
// the level-0 op API *_l0.cpp): built for the graph runtime's two-phase calls, not for the
// tiling or the kernel, and against headers that are not part of operator development.
bool IsAclnnInterface(const std::string& name) {
  const std::string base = name.substr(name.rfind('/') + 1);
  return name.rfind("op_host/op_api/", 0) == 0 || base.rfind("aclnn_", 0) == 0 ||
         EndsWith(base, "_l0.cpp") || EndsWith(base, "_l0.cc") || EndsWith(base, "_l0.h");
}

// A package may keep one kernel per SoC: the default op_kernel/<op>.cpp, and others that a
// SoC's config names (ExtendCfgInfo("opFile.value", "sigmoid_apt") for the Ascend950). When
// several entries remain, those in files some config names are the other SoCs': the default
// is the emulated SoC's.
std::vector<Entry> EmulatedSocEntries(const PackageFiles& files, std::vector<Entry> entries) {
  if (entries.size() < 2) return entries;
  static const std::regex kOpFile(R"(ExtendCfgInfo\s*\(\s*"opFile\.value"\s*,\s*"(\w+)\")");
  std::set<std::string> named;
  for (const auto& [name, text] : files) {
    if (name.rfind("op_host/", 0) != 0) continue;
    const std::string code = WithoutComments(text);
    for (std::sregex_iterator it(code.begin(), code.end(), kOpFile), end; it != end; ++it) {
      named.insert("op_kernel/" + (*it)[1].str() + ".cpp");
    }
  }
  std::vector<Entry> kept;
  for (const Entry& e : entries) {
    if (named.count(e.file) == 0) kept.push_back(e);
  }
  return kept.empty() ? entries : kept;
}

// Appends `item` to `list` unless it is there already.
void AddOnce(std::vector<std::string>* list, const std::string& item) {
  if (std::find(list->begin(), list->end(), item) == list->end()) list->push_back(item);
}

// The registrations outside the OpDef a host file makes (IMPL_OP_OPTILING ...), its tiling
// classes (REGISTER_TILING_TEMPLATE), and the tiling structs it registers
// (REGISTER_TILING_DATA_CLASS), the first being the default.
void NoteRegistrations(const std::string& code, const OperatorChoice& choice, Package* p) {
  static const std::regex kImpl(R"(\bIMPL_OP(_OPTILING|_INFERSHAPE)?\s*\()");
  static const std::regex kRegister(R"(REGISTER_TILING_DATA_CLASS\s*\(\s*(\w+)\s*,\s*(\w+)\s*\))");
  for (std::sregex_iterator it(code.begin(), code.end(), kImpl), end; it != end; ++it) {
    AddOnce(&p->impl_registrations, (*it)[1].length() > 0 ? (*it)[1].str().substr(1) : "OP");
  }
  static const std::regex kTemplate(
      R"re(\bREGISTER_(?:OPS_)?TILING_TEMPLATE\s*\(\s*"?(\w+)"?\s*,\s*([\w:]+)\s*,\s*([\w:+*() -]+?)\s*\))re");
  for (std::sregex_iterator it(code.begin(), code.end(), kTemplate), end; it != end; ++it) {
    const size_t line = code.rfind('\n', static_cast<size_t>(it->position())) + 1;
    if (code.compare(code.find_first_not_of(" \t", line), 7, "#define") == 0) continue;
    if (!choice.Owns((*it)[1].str())) continue;
    p->tiling_templates.push_back({(*it)[1].str(), (*it)[2].str(), (*it)[3].str()});
  }
  const bool in_optiling = code.find("namespace optiling") != std::string::npos;
  for (std::sregex_iterator it(code.begin(), code.end(), kRegister), end; it != end; ++it) {
    if (!choice.Owns((*it)[1].str())) continue;
    const std::string type = (in_optiling ? "optiling::" : "") + (*it)[2].str();
    AddOnce(&p->tiling_structs, type);
  }
}

bool IsHostUnit(const std::string& name) {
  return name.rfind("op_host/", 0) == 0 && !IsAclnnInterface(name) && !InOtherArchFolder(name) &&
         (EndsWith(name, ".cpp") || EndsWith(name, ".cc"));
}

// The host translation units (those of the chosen operator), the tiling headers and
// registrations, and the op_kernel header that declares a template entry's parameters.
void FindHostParts(const PackageFiles& files, const OperatorChoice& choice, Package* p) {
  for (const auto& [name, text] : files) {
    const auto& left_out = choice.left_out;
    if (std::find(left_out.begin(), left_out.end(), name) != left_out.end()) continue;
    const std::string code = WithoutComments(text);
    const bool unit = EndsWith(name, ".cpp") || EndsWith(name, ".cc");
    if (name.rfind("op_kernel/", 0) == 0 && !unit && p->template_header.empty() &&
        code.find("ASCENDC_TPL_ARGS_DECL") != std::string::npos) {
      p->template_header = name;
    }
    if (name.rfind("op_host/", 0) != 0 || IsAclnnInterface(name) || InOtherArchFolder(name)) {
      continue;
    }
    if (unit) p->host_units.push_back(name);
    const bool header = EndsWith(name, ".h") || EndsWith(name, ".hpp");
    if (header && code.find("BEGIN_TILING_DATA_DEF") != std::string::npos) {
      p->tiling_headers.push_back(name);
    }
    NoteRegistrations(code, choice, p);
  }
}

// ge::DataType numbers (cannbot_host_api.h) by dtype name.
const std::map<int, std::string>& DtypeNames() {
  static const std::map<int, std::string> names = {
      {0, "float32"}, {1, "float16"}, {2, "int8"},   {3, "int32"},  {4, "uint8"},
      {6, "int16"},   {7, "uint16"},  {8, "uint32"}, {9, "int64"},  {10, "uint64"},
      {11, "float64"}, {12, "bool"},  {16, "complex64"}, {17, "complex128"}, {27, "bfloat16"}};
  return names;
}

}  // namespace

std::string Package::Describe() const {
  return "package " + dir + " (kernel " + entry + " in " + kernel_file + ")";
}

Result<Package> LoadPackage(const std::string& dir, const std::string& operator_name) {
  PackageFiles files;
  CANNBOT_RETURN_IF_ERROR(ReadSourceTree(dir, "op_host", &files));
  CANNBOT_RETURN_IF_ERROR(ReadSourceTree(dir, "op_kernel", &files));
  return PackageFromFiles(dir, std::move(files), operator_name);
}

Result<Package> PackageFromFiles(const std::string& label, PackageFiles files,
                                 const std::string& operator_name) {
  if (files.size() > 2 * kMaxFiles) {
    return Status::InvalidArgument("the package " + label + " has more than " +
                                   std::to_string(2 * kMaxFiles) + " files");
  }
  bool host = false, kernel = false;
  for (const auto& [name, text] : files) {
    const bool in_host = name.rfind("op_host/", 0) == 0, in_kernel = name.rfind("op_kernel/", 0) == 0;
    if (!IsPlainRelativePath(name) || !(in_host || in_kernel) || !IsSourceName(name)) {
      return Status::InvalidArgument(
          "the package file \"" + name + "\" of " + label + " is not a source file (.cpp, .cc, .h, "
          ".hpp, .inc, .asc) under op_host/ or op_kernel/");
    }
    if (text.size() > kMaxFileBytes || text.find('\0') != std::string::npos) {
      return Status::InvalidArgument("the package file " + name + " of " + label +
                                     " is larger than 1 MiB or not text");
    }
    host = host || in_host;
    kernel = kernel || in_kernel;
  }
  for (const auto& [present, sub] : {std::pair{host, "op_host"}, std::pair{kernel, "op_kernel"}}) {
    if (!present) {
      return Status::InvalidArgument("the package " + label + " has no " + sub +
                                     "/ directory (an operator package keeps its host code in "
                                     "op_host/ and its kernel in op_kernel/)");
    }
  }
  std::sort(files.begin(), files.end());
  Package p;
  p.dir = label;
  p.files = std::move(files);
  std::vector<std::pair<std::string, std::string>> units;
  for (const auto& [name, text] : p.files) {
    if (IsHostUnit(name)) units.emplace_back(name, WithoutComments(text));
  }
  CANNBOT_ASSIGN_OR_RETURN(const OperatorChoice choice,
                           ChooseOperator(units, operator_name, label));
  if (choice.several) p.chosen_operator = choice.type;
  FindHostParts(p.files, choice, &p);
  if (p.host_units.empty()) {
    return Status::InvalidArgument("the package " + label +
                                   " has no .cpp file in op_host/ (the OpDef and tiling function)");
  }
  CANNBOT_ASSIGN_OR_RETURN(std::vector<Entry> entries, FindEntries(p.files));
  entries = EmulatedSocEntries(p.files, std::move(entries));
  if (entries.size() > 1 || !p.chosen_operator.empty()) {  // the chosen operator's entry
    const auto it = std::find_if(entries.begin(), entries.end(),
                                 [&](const Entry& e) { return e.name == choice.entry; });
    if (it != entries.end()) {
      entries = {*it};
    } else if (!p.chosen_operator.empty()) {
      return Status::InvalidArgument("the package " + label + " has no kernel entry " +
                                     choice.entry + " in op_kernel/ for its operator " +
                                     choice.type);
    }
  }
  if (entries.empty()) {
    return Status::InvalidArgument(
        "the package " + label + " has no kernel entry point in op_kernel/ (extern \"C\" "
        "__global__ __aicore__ void <op>(GM_ADDR ...), or a template entry)");
  }
  if (entries.size() > 1) {
    std::string names;
    for (const Entry& e : entries) names += (names.empty() ? "" : ", ") + e.name + " in " + e.file;
    return Status::InvalidArgument("the package " + label + " has several kernel entry points (" +
                                   names + "); cannbot launches one");
  }
  p.kernel_file = entries[0].file;
  p.entry = entries[0].name;
  p.entry_arity = entries[0].arity;
  p.entry_template = entries[0].template_params;
  if (!p.entry_template.empty() && p.template_header.empty()) {
    return Status::InvalidArgument(
        "the package " + label + " has a template kernel entry (" + p.entry + " in " +
        p.kernel_file + ") but no op_kernel header declares its parameters "
        "(ASCENDC_TPL_ARGS_DECL)");
  }
  return p;
}

size_t OpDefinition::Combinations() const {
  size_t n = 0;
  for (const auto* list : {&inputs, &outputs}) {
    for (const OpDefTensor& t : *list) n = std::max(n, t.dtypes.size());
  }
  return n;
}

Result<OpDefinition> ParseOpDefinition(const std::string& printed, const std::string& package) {
  const std::string marker = "cannbot-opdef: ";
  const size_t at = printed.rfind(marker);
  if (at == std::string::npos) {
    return Status::InvalidArgument("the OpDef of " + package + " could not be read: its host "
                                   "code printed no definition");
  }
  const size_t end = printed.find('\n', at);
  const nlohmann::json j = nlohmann::json::parse(
      printed.substr(at + marker.size(), end == std::string::npos ? std::string::npos : end - at - marker.size()),
      nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    return Status::InvalidArgument("the OpDef of " + package + " printed an unreadable line");
  }
  OpDefinition def;
  def.type = j.value("type", "");
  def.has_tiling = j.value("tiling", false);
  for (const auto& a : j.value("attrs", nlohmann::json::array())) def.attrs.push_back(a.get<std::string>());
  for (const auto& s : j.value("socs", nlohmann::json::array())) def.socs.push_back(s.get<std::string>());
  std::vector<bool> lists;
  for (const char* side : {"inputs", "outputs"}) {
    for (const auto& t : j.value(side, nlohmann::json::array())) {
      OpDefTensor tensor;
      tensor.name = t.value("name", "");
      for (const auto& code : t.value("dtypes", nlohmann::json::array())) {
        const auto name = DtypeNames().find(code.get<int>());
        if (name == DtypeNames().end()) {
          return Status::InvalidArgument("the OpDef of " + package + " gives " + tensor.name +
                                         " a data type cannbot does not know (ge::DataType " +
                                         std::to_string(code.get<int>()) + ")");
        }
        tensor.dtypes.push_back(name->second);
      }
      if (tensor.dtypes.empty()) {
        return Status::InvalidArgument("the OpDef of " + package + " gives " + tensor.name +
                                       " no DataType list");
      }
      lists.push_back(t.value("list", false));
      (std::string(side) == "inputs" ? def.inputs : def.outputs).push_back(std::move(tensor));
    }
  }
  if (def.outputs.empty()) {
    return Status::InvalidArgument("the OpDef of " + package + " declares no Output");
  }
  const size_t n = def.Combinations();
  size_t i = 0;
  for (auto* side : {&def.inputs, &def.outputs}) {
    for (OpDefTensor& t : *side) {
      const bool list = lists[i++];
      if (t.dtypes.size() == n) continue;
      if (list && t.dtypes.size() == 1) {  // DataTypeList: one type in every combination
        t.dtypes.assign(n, t.dtypes[0]);
        continue;
      }
      return Status::InvalidArgument(
          "the OpDef of " + package + " lists " + std::to_string(t.dtypes.size()) +
          " data types for " + t.name + " but " + std::to_string(n) +
          " for another tensor; each combination is one column of every list");
    }
  }
  return def;
}

std::string DtypeCombo::Describe() const {
  std::string out;
  for (const auto& [name, dtype] : dtypes) out += (out.empty() ? "" : " ") + name + "=" + dtype;
  return out;
}

std::string DtypeCombo::Uniform() const {
  if (dtypes.empty()) return "";
  for (const auto& d : dtypes) {
    if (d.second != dtypes.front().second) return "";
  }
  return dtypes.front().second;
}

std::vector<DtypeCombo> Combinations(const OpDefinition& def) {
  std::vector<DtypeCombo> combos;
  for (size_t i = 0; i < def.Combinations(); ++i) {
    DtypeCombo c;
    c.index = i;
    for (const auto* side : {&def.inputs, &def.outputs}) {
      for (const OpDefTensor& t : *side) c.dtypes.push_back({t.name, t.dtypes[i]});
    }
    combos.push_back(std::move(c));
  }
  return combos;
}

std::string CheckAgainstOp(const Package& package, const OpDefinition& def,
                           const ops::OpSpec& op) {
  size_t inputs = 0, outputs = 0;
  for (const ops::Param& p : op.params) {
    inputs += p.kind == ops::ParamKind::kInput;
    outputs += p.kind == ops::ParamKind::kOutput;
  }
  auto names = [](const std::vector<OpDefTensor>& ts) {
    std::string out;
    for (const OpDefTensor& t : ts) out += (out.empty() ? "" : ", ") + t.name;
    return out;
  };
  if (def.inputs.size() != inputs || def.outputs.size() != outputs) {
    return "the OpDef of " + def.type + " declares " + std::to_string(def.inputs.size()) +
           " inputs (" + names(def.inputs) + ") and " + std::to_string(def.outputs.size()) +
           " outputs (" + names(def.outputs) + "), but op " + op.name + " has " +
           std::to_string(inputs) + " and " + std::to_string(outputs) + " (" + op.CSignature() + ")";
  }
  const int tensors = static_cast<int>(inputs + outputs);
  if (package.entry_arity < tensors || package.entry_arity > tensors + 2) {
    return "the kernel entry " + package.entry + " in " + package.kernel_file + " takes " +
           std::to_string(package.entry_arity) + " GM_ADDR parameters, but the OpDef of " +
           def.type + " has " + std::to_string(tensors) + " tensors: expected " +
           std::to_string(tensors) + " (tensors), " + std::to_string(tensors + 1) +
           " (+ tiling) or " + std::to_string(tensors + 2) + " (+ workspace, tiling)";
  }
  return "";
}

}  // namespace cannbot::ascendc
