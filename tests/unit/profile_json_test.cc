// cannbot profile JSON: the round trip import -> canonical JSON -> import is lossless for
// every fixture, and every fixture's canonical JSON validates against docs/profile.schema.json.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "cannbot/profile/import.h"

namespace cannbot::profile {
namespace {

using nlohmann::json;

std::string SourcePath(const std::string& relative) {
  return std::string(CANNBOT_SOURCE_DIR) + "/" + relative;
}

// The good fixtures: every file under tests/fixtures/profiles except bad/.
std::vector<std::string> GoodFixtures() {
  std::vector<std::string> paths;
  const std::string root = SourcePath("tests/fixtures/profiles");
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    const std::string path = entry.path().string();
    if (!entry.is_regular_file() || path.find("/bad/") != std::string::npos ||
        (path.size() >= 4 && path.substr(path.size() - 4) == ".tsv")) {
      continue;
    }
    paths.push_back(path);
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

// A validator for the subset of JSON Schema (2020-12) that docs/profile.schema.json uses.
// It refuses schemas with other keywords, so the schema cannot outgrow what is checked.
class SchemaValidator {
 public:
  explicit SchemaValidator(json root) : root_(std::move(root)) {}

  // "" when `instance` is valid, else "PATH: problem" for the first violation found.
  std::string Validate(const json& instance) const { return Check(root_, instance, "$"); }

 private:
  static bool HasType(const json& v, const std::string& type) {
    if (type == "object") return v.is_object();
    if (type == "array") return v.is_array();
    if (type == "string") return v.is_string();
    if (type == "boolean") return v.is_boolean();
    if (type == "null") return v.is_null();
    if (type == "number") return v.is_number();
    if (type == "integer") {
      return v.is_number_integer() ||
             (v.is_number_float() && std::floor(v.get<double>()) == v.get<double>());
    }
    return false;
  }

  std::string Check(const json& schema, const json& v, const std::string& path) const {
    static const std::set<std::string> kKnown = {
        "$schema", "$id", "title", "description", "$defs", "$ref", "type", "const", "enum",
        "minimum", "minLength", "required", "properties", "additionalProperties", "items",
        "oneOf"};
    for (const auto& [key, unused] : schema.items()) {
      if (kKnown.count(key) == 0) return path + ": schema uses unsupported keyword " + key;
    }
    if (auto ref = schema.find("$ref"); ref != schema.end()) {
      const std::string target = ref->get<std::string>();
      if (target.rfind("#/$defs/", 0) != 0) return path + ": unsupported $ref " + target;
      return Check(root_["$defs"][target.substr(8)], v, path);
    }
    if (auto type = schema.find("type"); type != schema.end()) {
      bool ok = false;
      if (type->is_string()) ok = HasType(v, *type);
      for (const json& t : type->is_array() ? *type : json::array()) ok = ok || HasType(v, t);
      if (!ok) return path + ": expected type " + type->dump() + ", got " + v.dump();
    }
    if (auto c = schema.find("const"); c != schema.end() && *c != v) {
      return path + ": expected " + c->dump();
    }
    if (auto e = schema.find("enum"); e != schema.end() &&
                                      std::find(e->begin(), e->end(), v) == e->end()) {
      return path + ": not one of " + e->dump();
    }
    if (auto min = schema.find("minimum"); min != schema.end() && v.is_number() &&
                                           v.get<double>() < min->get<double>()) {
      return path + ": below the minimum " + min->dump();
    }
    if (auto min = schema.find("minLength"); min != schema.end() && v.is_string() &&
                                             v.get<std::string>().size() < min->get<size_t>()) {
      return path + ": shorter than " + min->dump();
    }
    if (auto one = schema.find("oneOf"); one != schema.end()) {
      int matches = 0;
      for (const json& option : *one) matches += Check(option, v, path).empty() ? 1 : 0;
      if (matches != 1) {
        return path + ": matches " + std::to_string(matches) + " of the oneOf alternatives";
      }
    }
    if (v.is_object()) return CheckObject(schema, v, path);
    if (v.is_array() && schema.contains("items")) {
      for (size_t i = 0; i < v.size(); ++i) {
        std::string problem = Check(schema["items"], v[i], path + "[" + std::to_string(i) + "]");
        if (!problem.empty()) return problem;
      }
    }
    return "";
  }

  std::string CheckObject(const json& schema, const json& v, const std::string& path) const {
    for (const json& key : schema.value("required", json::array())) {
      if (!v.contains(key.get<std::string>())) return path + ": missing " + key.dump();
    }
    const json properties = schema.value("properties", json::object());
    for (const auto& [key, value] : v.items()) {
      const std::string where = path + "." + key;
      std::string problem;
      if (properties.contains(key)) {
        problem = Check(properties[key], value, where);
      } else if (auto extra = schema.find("additionalProperties"); extra != schema.end()) {
        if (extra->is_boolean()) {
          if (!extra->get<bool>()) problem = where + ": not allowed";
        } else {
          problem = Check(*extra, value, where);
        }
      }
      if (!problem.empty()) return problem;
    }
    return "";
  }

  json root_;
};

SchemaValidator LoadSchema() {
  std::ifstream in(SourcePath("docs/profile.schema.json"));
  return SchemaValidator(json::parse(in));
}

TEST(ProfileJsonTest, EveryFixtureRoundTripsLosslessly) {
  const auto fixtures = GoodFixtures();
  ASSERT_GE(fixtures.size(), 15u);
  for (const std::string& path : fixtures) {
    auto first = ImportProfileFile(path, {});
    ASSERT_TRUE(first.ok()) << path << ": " << first.status().ToString();
    const std::string text = first->ToJson().dump(2);
    Format used = Format::kAuto;
    auto second = ImportProfileText(text, "canonical.json", {}, &used);
    ASSERT_TRUE(second.ok()) << path << ": " << second.status().ToString();
    EXPECT_EQ(used, Format::kJson);
    EXPECT_TRUE(*second == *first) << path;
    EXPECT_EQ(second->ToJson().dump(2), text) << path;
  }
}

TEST(ProfileJsonTest, EveryFixtureValidatesAgainstTheSchema) {
  const SchemaValidator schema = LoadSchema();
  for (const std::string& path : GoodFixtures()) {
    auto profile = ImportProfileFile(path, {});
    ASSERT_TRUE(profile.ok()) << path;
    EXPECT_EQ(schema.Validate(profile->ToJson()), "") << path;
  }
}

TEST(ProfileJsonTest, TheSchemaValidatorRejectsWhatFromJsonRejects) {
  const SchemaValidator schema = LoadSchema();
  const char* invalid[] = {
      R"({"kernels": [{"name": ""}]})",
      R"({"kernels": [{"name": "k", "launches": -1}]})",
      R"({"kernels": [{"name": "k", "launches": 1.5}]})",
      R"({"kernels": [{"name": "k", "duration_us": "5"}]})",
      R"({"kernels": [{"name": "k", "metrics": {"vec_ratio": {"value": "0.3"}}}]})",
      R"({"kernels": [{"name": "k", "metrics": {"vec_ratio": {"unit": "ratio"}}}]})",
      R"({"kernels": [{"name": "k", "metrics": {"vec_ratio": {"value": 1, "u": "x"}}}]})",
      R"({"kernels": [{"name": "k", "kernal": 1}]})",
      R"({"format": "other", "kernels": []})",
      R"({"version": 2, "kernels": []})",
      R"({"kernels": {}})",
      R"({"notes": [1], "kernels": []})",
      R"({})",
  };
  for (const char* text : invalid) {
    json document = json::parse(text);
    EXPECT_NE(schema.Validate(document), "") << text;
    EXPECT_FALSE(Profile::FromJson(document).ok()) << text;
  }
  const char* valid[] = {
      R"({"kernels": []})",
      R"({"kernels": [{"name": "k", "block_dim": null, "metrics": {"vec_ratio": 0.3}}]})",
      R"({"format": "cannbot-profile", "version": 1, "source_tool": "perf", "device": "",
          "kernels": [{"name": "k", "launches": 2, "duration_us": 3.5, "block_dim": 40,
                       "metrics": {"gflops": {"value": 12, "unit": "GFLOP/s"}}}],
          "notes": ["n"]})",
  };
  for (const char* text : valid) {
    json document = json::parse(text);
    EXPECT_EQ(schema.Validate(document), "") << text;
    EXPECT_TRUE(Profile::FromJson(document).ok()) << text;
  }
}

TEST(ProfileJsonTest, BareNumberMetricsGetTheirUnitFromTheName) {
  auto p = Profile::FromJson(json::parse(
      R"({"kernels": [{"name": "k", "metrics": {"vec_ratio": 0.3, "memory_bandwidth": 85,
          "duration_ci95_low_us": 4, "custom": 1}}]})"));
  ASSERT_TRUE(p.ok());
  const KernelProfile& k = p->kernels[0];
  EXPECT_EQ(k.Find("vec_ratio")->unit, "ratio");
  EXPECT_EQ(k.Find("memory_bandwidth")->unit, "GB/s");
  EXPECT_EQ(k.Find("duration_ci95_low_us")->unit, "us");
  EXPECT_EQ(k.Find("custom")->unit, "");
}

TEST(ProfileJsonTest, PickByNameSubstringOrMostTime) {
  auto kernel = [](const char* name, double us, const char* core = "") {
    KernelProfile k;
    k.name = name;
    k.core_type = core;
    k.launches = 1;
    k.duration_us = us;
    return k;
  };
  Profile p;
  p.kernels = {kernel("hcom_allReduce_1", 900, "COMMUNICATION"), kernel("MatMul_1", 300),
               kernel("MatMul_2", 500), kernel("Add_1", 10)};
  std::string why;
  auto top = p.Pick("", &why);
  ASSERT_TRUE(top.ok());
  EXPECT_EQ((*top)->name, "MatMul_2");  // communication is never picked by time
  EXPECT_NE(why.find("the most total time of 3 kernels"), std::string::npos) << why;
  EXPECT_NE(why.find("communication tasks not counted"), std::string::npos) << why;
  EXPECT_EQ((*p.Pick("Add", &why))->name, "Add_1");
  EXPECT_EQ((*p.Pick("MatMul_1", &why))->name, "MatMul_1");
  EXPECT_EQ((*p.Pick("hcom_allReduce_1", &why))->name, "hcom_allReduce_1");
  EXPECT_EQ(p.Pick("MatMul", &why).status().code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(p.Pick("Conv", &why).status().code(), Status::Code::kNotFound);
  EXPECT_FALSE(Profile().Pick("", &why).ok());
}

}  // namespace
}  // namespace cannbot::profile
