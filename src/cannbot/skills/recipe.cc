#include "cannbot/skills/recipe.h"

#include "cannbot/skills/elementwise_kernel.h"
#include "cannbot/skills/reduce_kernel.h"

#include <algorithm>
#include <cctype>
#include <sstream>

namespace cannbot::skills {
namespace {

bool ValidName(const std::string& name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

bool ValidValue(const std::string& value) {
  if (value.empty()) return false;
  for (char c : value) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != '-') {
      return false;
    }
  }
  return true;
}

Status ParseParams(const std::string& text, const std::string& where,
                   std::vector<RecipeParam>* params) {
  std::istringstream in(text);
  std::string item;
  while (in >> item) {
    auto eq = item.find('=');
    RecipeParam p;
    p.name = item.substr(0, eq);
    if (eq == std::string::npos || !ValidName(p.name)) {
      return Status::InvalidArgument(where + ": bad parameter '" + item + "' (want NAME=v1,v2)");
    }
    std::stringstream values(item.substr(eq + 1));
    std::string v;
    while (std::getline(values, v, ',')) {
      if (!ValidValue(v)) return Status::InvalidArgument(where + ": bad value '" + v + "' of " + p.name);
      p.values.push_back(v);
    }
    if (p.values.empty()) return Status::InvalidArgument(where + ": no values for " + p.name);
    params->push_back(p);
  }
  return Status::Ok();
}

// "a, b ,c" -> {"a", "b", "c"}.
std::vector<std::string> SplitList(const std::string& text) {
  std::vector<std::string> items;
  std::istringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    item.erase(0, item.find_first_not_of(' '));
    item.erase(item.find_last_not_of(' ') + 1);
    if (!item.empty()) items.push_back(item);
  }
  return items;
}

}  // namespace

Result<Recipe> ParseRecipe(const std::string& text, const std::string& path) {
  std::istringstream in(text);
  std::string line;
  if (!std::getline(in, line) || line.rfind("// cannbot-recipe", 0) != 0) {
    return Status::InvalidArgument(path + ": a recipe must start with '// cannbot-recipe'");
  }
  Recipe recipe;
  recipe.path = path;
  int number = 1;
  bool closed = false;
  while (std::getline(in, line)) {
    ++number;
    const std::string where = path + ":" + std::to_string(number);
    if (line.rfind("// ---", 0) == 0) {
      closed = true;
      break;
    }
    if (line.rfind("// ", 0) != 0) return Status::InvalidArgument(where + ": header line must start with '// '");
    const std::string body = line.substr(3);
    auto colon = body.find(':');
    if (colon == std::string::npos) return Status::InvalidArgument(where + ": expected 'key: value'");
    const std::string key = body.substr(0, colon);
    std::string value = body.substr(colon + 1);
    value.erase(0, value.find_first_not_of(' '));
    if (key == "name") recipe.name = value;
    else if (key == "op") recipe.ops = SplitList(value);
    else if (key == "target") recipe.target = value;
    else if (key == "families") recipe.families = SplitList(value);
    else if (key == "dtypes") recipe.dtypes = SplitList(value);
    else if (key == "summary") recipe.summary = value;
    else if (key == "generated") recipe.generated = value;
    else if (key == "params") CANNBOT_RETURN_IF_ERROR(ParseParams(value, where, &recipe.params));
    else return Status::InvalidArgument(where + ": unknown key '" + key + "'");
  }
  if (!closed) return Status::InvalidArgument(path + ": the header is not closed by '// ---'");
  if (!recipe.generated.empty() && recipe.generated != "elementwise" &&
      recipe.generated != "reduce") {
    return Status::InvalidArgument(path + ": 'generated' must be 'elementwise' or 'reduce' (got '" +
                                   recipe.generated + "')");
  }
  if (recipe.name.empty() || recipe.ops.empty() == recipe.families.empty()) {
    return Status::InvalidArgument(path + ": a recipe needs 'name' and either 'op' or 'families'");
  }
  recipe.source = text;
  return recipe;
}

bool Recipe::NamesOp(const std::string& op) const {
  return std::find(ops.begin(), ops.end(), op) != ops.end();
}

ParamValues Defaults(const Recipe& recipe) {
  ParamValues values;
  for (const RecipeParam& p : recipe.params) values[p.name] = p.values.front();
  return values;
}

std::string DescribeValues(const Recipe& recipe, const ParamValues& values) {
  std::string text;
  for (const RecipeParam& p : recipe.params) {
    auto it = values.find(p.name);
    if (it == values.end()) continue;
    text += (text.empty() ? "" : " ") + p.name + "=" + it->second;
  }
  return text.empty() ? "no parameters" : text;
}

std::string Instantiate(const Recipe& recipe, const ParamValues& values,
                        const std::string& kernel, const ops::OpSpec* op) {
  std::string out = "// instantiated from recipe " + recipe.name + ": " +
                    DescribeValues(recipe, values) + "\n";
  for (const RecipeParam& p : recipe.params) {
    auto it = values.find(p.name);
    out += "#define " + p.name + " " + (it == values.end() ? p.values.front() : it->second) + "\n";
  }
  if (op != nullptr) out += "#define CANNBOT_OP_" + op->name + " 1\n";
  if (!recipe.generated.empty()) {  // the op's own kernel, written from its spec
    Result<std::string> generated = Status::InvalidArgument("no op given");
    if (op != nullptr && recipe.generated == "reduce") generated = RowReduceKernel(*op, "LANES");
    if (op != nullptr && recipe.generated == "elementwise") {
      generated = ElementwiseKernel(*op, Math::kVector, "UNROLL", "STREAM");
    }
    if (!generated.ok()) {  // fails the compile layer with the reason, never silently
      return out + "#error \"recipe " + recipe.name + ": " + generated.status().message() +
             "\"\n";
    }
    return out + recipe.source + "\n" + *generated;
  }
  if (recipe.families.empty()) return out + recipe.source;
  return out + recipe.source + "\n// the kernel as written\n" + kernel;
}

}  // namespace cannbot::skills
