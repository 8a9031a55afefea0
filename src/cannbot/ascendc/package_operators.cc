#include "cannbot/ascendc/package_operators.h"

#include <algorithm>
#include <cctype>
#include <regex>

namespace cannbot::ascendc {
namespace {

// The OP_ADD types a unit defines, in order (a `#define` of OP_ADD is not a use).
std::vector<std::string> DefinedTypes(const std::string& code) {
  static const std::regex kOpAdd(R"(\bOP_ADD\s*\(\s*(\w+))");
  std::vector<std::string> types;
  for (std::sregex_iterator it(code.begin(), code.end(), kOpAdd), end; it != end; ++it) {
    const size_t line = code.rfind('\n', static_cast<size_t>(it->position())) + 1;
    const size_t first = code.find_first_not_of(" \t", line);
    if (first != std::string::npos && code[first] == '#') continue;
    types.push_back((*it)[1].str());
  }
  return types;
}

std::string Listed(const std::vector<std::pair<std::string, std::string>>& defined) {
  std::string out;
  for (const auto& [type, unit] : defined) {
    out += (out.empty() ? "" : ", ") + type + " (kernel " + KernelEntryName(type) + ", " + unit +
           ")";
  }
  return out;
}

}  // namespace

std::string KernelEntryName(const std::string& op_type) {
  std::string out;
  for (size_t i = 0; i < op_type.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(op_type[i]);
    if (std::isupper(c) && i > 0) {
      const unsigned char prev = static_cast<unsigned char>(op_type[i - 1]);
      const bool next_lower =
          i + 1 < op_type.size() && std::islower(static_cast<unsigned char>(op_type[i + 1]));
      if (std::islower(prev) || ((std::isupper(prev) || std::isdigit(prev)) && next_lower)) {
        out += '_';
      }
    }
    out += static_cast<char>(std::tolower(c));
  }
  return out;
}

bool OperatorChoice::Owns(const std::string& op) const {
  if (!several) return true;
  return op == type || (op.size() > type.size() && op.compare(0, type.size(), type) == 0 &&
                        op[type.size()] == '_');
}

Result<OperatorChoice> ChooseOperator(
    const std::vector<std::pair<std::string, std::string>>& host_units, const std::string& wanted,
    const std::string& label) {
  std::vector<std::vector<std::string>> types_of;  // per unit
  std::vector<std::pair<std::string, std::string>> defined;  // type, unit
  for (const auto& [unit, code] : host_units) {
    types_of.push_back(DefinedTypes(code));
    for (const std::string& type : types_of.back()) defined.emplace_back(type, unit);
  }
  OperatorChoice choice;
  choice.several = std::any_of(defined.begin(), defined.end(),
                               [&](const auto& d) { return d.first != defined.front().first; });
  const auto named = std::find_if(defined.begin(), defined.end(), [&](const auto& d) {
    return d.first == wanted || KernelEntryName(d.first) == wanted;
  });
  if (!wanted.empty() && named == defined.end()) {
    return Status::InvalidArgument(
        "the package " + label + " defines no operator " + wanted +
        (defined.empty() ? " (no OP_ADD in op_host/)" : "; it defines " + Listed(defined)));
  }
  if (wanted.empty() && choice.several) {
    return Status::InvalidArgument(
        "the package " + label + " defines several operators: " + Listed(defined) +
        "; cannbot runs one: name it with --operator (a JobSpec's package and a CI package rule "
        "take \"operator\")");
  }
  if (defined.empty()) return choice;
  choice.type = (named != defined.end() ? named : defined.begin())->first;
  choice.entry = KernelEntryName(choice.type);
  for (size_t u = 0; u < host_units.size(); ++u) {
    const std::vector<std::string>& types = types_of[u];
    if (!types.empty() && std::find(types.begin(), types.end(), choice.type) == types.end()) {
      choice.left_out.push_back(host_units[u].first);
    }
  }
  return choice;
}

}  // namespace cannbot::ascendc
