// JobSpec: one optimisation as a value; ToJson/FromJson round-trip exactly (what a remote
// client sends is what the daemon runs), and FromJson is the edge that refuses bad fields.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "cannbot/engine/job_spec.h"
#include "cannbot/target/registry.h"

namespace cannbot::engine {
namespace {

using Json = nlohmann::json;

class SpecGenerator {
 public:
  explicit SpecGenerator(uint32_t seed) : rng_(seed) {}

  JobSpec Next() {
    JobSpec s;
    s.op = Text(1);
    s.source = Text(0) + "\nextern \"C\" void f() {}  // \"quotes\" \\ and \xc3\xa9\n";
    s.name = Pick<std::string>({"kernel.cpp", "naive.cpp", "ops/relu/naive.cpp", "a b.cc"});
    if (Coin()) {
      s.profile = Text(1) + ",1\n";
      s.profile_format = Pick<profile::Format>({profile::Format::kAuto, profile::Format::kMsprof,
                                                profile::Format::kNcu, profile::Format::kJson});
      if (Coin()) s.profile_name = "prof/" + Text(1) + ".csv";
    }
    if (Coin()) s.profile_kernel = Text(1);
    s.target = target::All()[Int(0, static_cast<int>(target::All().size()) - 1)];
    if (s.target->name() == "ascendc" && Coin()) {  // a package instead of the kernel
      s.source.clear();
      s.package = ascendc::PackageFiles{{"op_host/" + Text(1) + ".cpp", Text(0) + "\n\"q\""},
                                        {"op_kernel/k.cpp", Text(0)}};
      std::sort(s.package->begin(), s.package->end());  // a JSON object's order
      s.package_is_sample = Coin();  // the same files, sent as a sample
    }
    JobOptions& o = s.options;
    if (Coin()) o.samples = Int(1, 16);
    if (Coin()) o.rounds = Int(0, 20);
    if (Coin()) o.budget = Int(1, 256);
    if (Coin()) o.min_speedup = Real(0.001, 100);
    if (Coin()) o.time_budget_seconds = Real(0.5, 86400);
    if (Coin()) o.seed = std::uniform_int_distribution<uint64_t>()(rng_);
    if (Coin()) o.good_enough_roofline = Real(0.01, 2);
    if (Coin()) o.llm = Coin() ? LlmChoice{true, "", ""} : LlmChoice{false, Text(0), Text(0)};
    return s;
  }

 private:
  bool Coin() { return Int(0, 1) == 1; }
  int Int(int low, int high) { return std::uniform_int_distribution<int>(low, high)(rng_); }
  double Real(double low, double high) {
    return std::uniform_real_distribution<double>(low, high)(rng_);
  }
  template <typename T>
  T Pick(std::initializer_list<T> values) {
    return *(values.begin() + Int(0, static_cast<int>(values.size()) - 1));
  }
  std::string Text(int min_length) {
    static const char kChars[] = "abcdefghijklmnopqrstuvwxyz_0123456789";
    std::string out;
    const int length = Int(min_length, 12);
    for (int i = 0; i < length; ++i) out += kChars[Int(0, sizeof(kChars) - 2)];
    return out;
  }

  std::mt19937 rng_;
};

TEST(JobSpecTest, EveryGeneratedSpecRoundTripsThroughItsJsonText) {
  SpecGenerator generate(20261125);
  for (int i = 0; i < 500; ++i) {
    const JobSpec spec = generate.Next();
    // Through the text form, as it crosses HTTP and the job store.
    const Json wire = Json::parse(spec.ToJson().dump());
    auto back = JobSpec::FromJson(wire);
    ASSERT_TRUE(back.ok()) << back.status().ToString() << "\n" << wire.dump(1);
    EXPECT_TRUE(*back == spec) << "spec " << i << " changed:\n"
                               << Json::diff(spec.ToJson(), back->ToJson()).dump(1);
  }
}

TEST(JobSpecTest, AMinimalRequestGetsTheDefaults) {
  auto spec = JobSpec::FromJson({{"op", "relu"}, {"source", "x"}});
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->target, &target::Default());
  EXPECT_EQ(spec->name, "kernel.cpp");
  EXPECT_EQ(spec->profile_format, profile::Format::kAuto);
  EXPECT_EQ(spec->options, JobOptions{});
}

std::string ErrorOf(const Json& body) {
  auto spec = JobSpec::FromJson(body);
  return spec.ok() ? "(accepted)" : spec.status().message();
}

TEST(JobSpecTest, BadFieldsAreRefusedNamingTheFieldAndWhatItAllows) {
  const Json base = {{"op", "relu"}, {"source", "x"}};
  struct Case {
    const char* key;
    Json value;
    const char* expected;
  };
  const Case cases[] = {
      {"target", "cuda", "field 'target' must be one of: cpu, ascendc (got \"cuda\")"},
      {"target", 3, "field 'target' must be a string"},
      {"profile_format", "vtune", "field 'profile_format': unknown profile format 'vtune'"},
      {"name", "/etc/passwd", "field 'name' must be a plain file name or a relative path"},
      {"options", {{"good_enough_roofline", 0}}, "field 'options.good_enough_roofline' must be"},
      {"options", {{"samples", 17}}, "field 'options.samples' must be an integer from 1 to 16"},
      {"options", {{"llm", 5}}, "field 'options.llm' must be \"offline\" or an object"},
      {"options", {{"seeed", 1}}, "unknown field 'options.seeed'"},
      {"targte", "cpu", "unknown field 'targte'"},
  };
  for (const Case& c : cases) {
    Json body = base;
    body[c.key] = c.value;
    EXPECT_NE(ErrorOf(body).find(c.expected), std::string::npos)
        << c.key << "=" << c.value.dump() << ": " << ErrorOf(body);
  }
  EXPECT_NE(ErrorOf(Json::array()).find("must be a JSON object"), std::string::npos);
}

// A package: its files under "package" (the shape POST /validate takes), target ascendc
// (implied when absent), never beside a kernel source.
TEST(JobSpecTest, APackageTakesThePlaceOfTheSource) {
  const Json files = {{"files", {{"op_host/a.cpp", "host"}, {"op_kernel/a.cpp", "kernel"}}}};
  auto spec = JobSpec::FromJson({{"op", "add"}, {"package", files}});
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  ASSERT_TRUE(spec->package.has_value());
  EXPECT_EQ(spec->package->size(), 2u);
  EXPECT_EQ(spec->target->name(), "ascendc");
  EXPECT_EQ(spec->name, "package");
  EXPECT_TRUE(spec->source.empty());
  EXPECT_EQ(spec->ToJson()["package"], files);

  const std::pair<Json, const char*> refused[] = {
      {{{"op", "add"}, {"source", "x"}, {"package", files}}, "either 'source'"},
      {{{"op", "add"}, {"target", "cpu"}, {"package", files}}, "'target' must be \"ascendc\""},
      {{{"op", "add"}, {"package", {{"files", {{"op_kernel/a.cpp", 3}}}}}}, "is not a string"},
      {{{"op", "add"}, {"package", Json::array()}}, "field 'package' must be {\"files\""},
      {{{"op", "add"}}, "field 'source'"},
  };
  for (const auto& [body, expected] : refused) {
    EXPECT_NE(ErrorOf(body).find(expected), std::string::npos) << body.dump() << ": "
                                                                << ErrorOf(body);
  }
}

// A package that defines several operators says which to run: "operator" beside its files,
// kept through the round trip; a sample has no operators.
TEST(JobSpecTest, APackageNamesTheOperatorToRun) {
  Json package = {{"files", {{"op_host/a.cpp", "host"}, {"op_kernel/a.cpp", "kernel"}}},
                  {"operator", "AddCustom"}};
  auto spec = JobSpec::FromJson({{"op", "add"}, {"package", package}});
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->package_operator, "AddCustom");
  EXPECT_EQ(spec->ToJson()["package"], package);
  EXPECT_NE(ErrorOf({{"op", "add"}, {"package", {{"files", package["files"]}, {"operator", 3}}}})
                .find("\"operator\" must be an OpDef type or kernel entry name"),
            std::string::npos);
  EXPECT_NE(ErrorOf({{"op", "add"}, {"sample", package}}).find("field 'sample' must be"),
            std::string::npos);
}

// A kernel-launch sample: its files under "sample", carried in `package` and marked as a sample;
// never beside a package.
TEST(JobSpecTest, ASampleTravelsAsItsFiles) {
  const Json files = {{"files", {{"add_custom.cpp", "kernel"}, {"main.cpp", "host"}}}};
  auto spec = JobSpec::FromJson({{"op", "add"}, {"sample", files}});
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  ASSERT_TRUE(spec->package.has_value());
  EXPECT_TRUE(spec->package_is_sample);
  EXPECT_EQ(spec->target->name(), "ascendc");
  EXPECT_EQ(spec->name, "sample");
  EXPECT_EQ(spec->ToJson()["sample"], files);
  EXPECT_FALSE(spec->ToJson().contains("package"));
  EXPECT_NE(ErrorOf({{"op", "add"}, {"sample", files}, {"package", files}}).find("not both"),
            std::string::npos);
  EXPECT_NE(ErrorOf({{"op", "add"}, {"target", "cpu"}, {"sample", files}}).find("'sample'"),
            std::string::npos);
}

// A sample's "defines" (its own build's macros) travel with it, checked as the CLI's are.
TEST(JobSpecTest, ASampleCarriesItsBuildsDefinitions) {
  const Json files = {{"add_custom.cpp", "kernel"}, {"main.cpp", "host"}};
  const Json sample = {{"files", files}, {"defines", {"SCENARIO_NUM=2", "FAST"}}};
  auto spec = JobSpec::FromJson({{"op", "add"}, {"sample", sample}});
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->sample_defines, (std::vector<std::string>{"SCENARIO_NUM=2", "FAST=1"}));
  const Json back = spec->ToJson()["sample"];
  EXPECT_EQ(back["defines"], Json({"SCENARIO_NUM=2", "FAST=1"}));
  auto again = JobSpec::FromJson({{"op", "add"}, {"sample", back}});
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->sample_defines, spec->sample_defines);
  EXPECT_NE(ErrorOf({{"op", "add"}, {"sample", {{"files", files}, {"defines", {"N=system"}}}}})
                .find("VALUE must be a number"),
            std::string::npos);
  EXPECT_NE(ErrorOf({{"op", "add"}, {"sample", {{"files", files}, {"defines", "N=1"}}}})
                .find("\"defines\" must be an array"),
            std::string::npos);
  // A package has no "defines": its build defines what its kernel reads.
  EXPECT_NE(ErrorOf({{"op", "add"},
                     {"package", {{"files", {{"op_host/a.cpp", "h"}, {"op_kernel/a.cpp", "k"}}},
                                  {"defines", {"N=1"}}}}})
                .find("field 'package' must be"),
            std::string::npos);
}

TEST(JobSpecTest, CommandLineProviderFlags) {
  EXPECT_FALSE(LlmChoiceFromFlags("", "").has_value());
  EXPECT_TRUE(LlmChoiceFromFlags("offline", "")->offline);
  auto llm = LlmChoiceFromFlags("http://127.0.0.1:8000/v1", "m");
  EXPECT_EQ(llm, (LlmChoice{false, "http://127.0.0.1:8000/v1", "m"}));
}

}  // namespace
}  // namespace cannbot::engine
