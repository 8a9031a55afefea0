#include "cannbot/config/config.h"

#include <cmath>
#include <cstdlib>
#include <limits>
#include <type_traits>
#include <sstream>

#include <nlohmann/json.hpp>
#include <toml++/toml.h>

#include "cannbot/util/fs.h"

namespace cannbot::config {
namespace {

using Json = nlohmann::json;

// TOML as JSON, so one reader handles both file forms.
Json ToJson(const toml::node& node) {
  if (auto* table = node.as_table()) {
    Json out = Json::object();
    for (const auto& [key, value] : *table) out[std::string(key.str())] = ToJson(value);
    return out;
  }
  if (auto* array = node.as_array()) {
    Json out = Json::array();
    for (const auto& value : *array) out.push_back(ToJson(value));
    return out;
  }
  if (node.is_integer()) return *node.value<int64_t>();
  if (node.is_floating_point()) return *node.value<double>();
  if (node.is_boolean()) return *node.value<bool>();
  if (node.is_string()) return *node.value<std::string>();
  return nullptr;  // dates and times
}

Status Unknown(const std::string& where, const std::string& key) {
  return Status::InvalidArgument("unknown setting '" + where + key + "'");
}

template <typename T>
Status Read(const Json& object, const char* key, T* out, const std::string& where) {
  if (!object.contains(key)) return Status::Ok();
  const Json& value = object.at(key);
  // nlohmann converts 2.5 and true to an int without complaint; a setting should not.
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    if (!value.is_number_integer()) {
      return Status::InvalidArgument("setting '" + where + key + "' must be a whole number");
    }
  }
  if constexpr (std::is_floating_point_v<T>) {
    if (!value.is_number()) {
      return Status::InvalidArgument("setting '" + where + key + "' has the wrong type");
    }
  }
  try {
    *out = object.at(key).get<T>();
  } catch (const Json::exception&) {
    return Status::InvalidArgument("setting '" + where + key + "' has the wrong type");
  }
  return Status::Ok();
}

Status ReadLlm(const Json& j, llm::LlmConfig* llm) {
  for (const auto& [key, value] : j.items()) {
    static const char* kKeys[] = {"url", "model", "api_key_env", "temperature", "max_tokens",
                                  "timeout_seconds", "retries"};
    if (std::find(std::begin(kKeys), std::end(kKeys), key) == std::end(kKeys)) {
      return Unknown("llm.", key);
    }
  }
  CANNBOT_RETURN_IF_ERROR(Read(j, "url", &llm->base_url, "llm."));
  CANNBOT_RETURN_IF_ERROR(Read(j, "model", &llm->model, "llm."));
  CANNBOT_RETURN_IF_ERROR(Read(j, "api_key_env", &llm->api_key_env, "llm."));
  CANNBOT_RETURN_IF_ERROR(Read(j, "temperature", &llm->temperature, "llm."));
  CANNBOT_RETURN_IF_ERROR(Read(j, "max_tokens", &llm->max_tokens, "llm."));
  CANNBOT_RETURN_IF_ERROR(Read(j, "retries", &llm->max_retries, "llm."));
  double timeout = 0;
  CANNBOT_RETURN_IF_ERROR(Read(j, "timeout_seconds", &timeout, "llm."));
  if (timeout > 0) llm->request_timeout = std::chrono::milliseconds(static_cast<long>(timeout * 1000));
  return Status::Ok();
}

Status ReadLoop(const Json& j, optimize::LoopConfig* loop) {
  for (const auto& [key, value] : j.items()) {
    if (key != "samples" && key != "rounds" && key != "good_enough_roofline" &&
        key != "token_budget") {
      return Unknown("loop.", key);
    }
  }
  CANNBOT_RETURN_IF_ERROR(Read(j, "samples", &loop->samples, "loop."));
  CANNBOT_RETURN_IF_ERROR(Read(j, "rounds", &loop->rounds, "loop."));
  CANNBOT_RETURN_IF_ERROR(Read(j, "good_enough_roofline", &loop->good_enough_roofline, "loop."));
  return Read(j, "token_budget", &loop->token_budget, "loop.");
}

Status ReadServer(const Json& j, ServerConfig* server) {
  static const char* kKeys[] = {"host", "port", "tokens", "queue_size", "workers",
                                "max_body_bytes", "retention_days", "retention_jobs",
                                "shutdown_grace_seconds", "http_threads", "llm_urls", "store",
                                "run_jobs", "lease_seconds"};
  for (const auto& [key, value] : j.items()) {
    if (std::find(std::begin(kKeys), std::end(kKeys), key) == std::end(kKeys)) {
      return Unknown("server.", key);
    }
  }
  CANNBOT_RETURN_IF_ERROR(Read(j, "host", &server->host, "server."));
  CANNBOT_RETURN_IF_ERROR(Read(j, "port", &server->port, "server."));
  CANNBOT_RETURN_IF_ERROR(Read(j, "tokens", &server->tokens, "server."));
  CANNBOT_RETURN_IF_ERROR(Read(j, "queue_size", &server->queue_size, "server."));
  CANNBOT_RETURN_IF_ERROR(Read(j, "workers", &server->workers, "server."));
  CANNBOT_RETURN_IF_ERROR(Read(j, "max_body_bytes", &server->max_body_bytes, "server."));
  CANNBOT_RETURN_IF_ERROR(Read(j, "retention_days", &server->retention_days, "server."));
  CANNBOT_RETURN_IF_ERROR(Read(j, "retention_jobs", &server->retention_jobs, "server."));
  CANNBOT_RETURN_IF_ERROR(
      Read(j, "shutdown_grace_seconds", &server->shutdown_grace_seconds, "server."));
  CANNBOT_RETURN_IF_ERROR(Read(j, "http_threads", &server->http_threads, "server."));
  CANNBOT_RETURN_IF_ERROR(Read(j, "store", &server->store, "server."));
  CANNBOT_RETURN_IF_ERROR(Read(j, "run_jobs", &server->run_jobs, "server."));
  CANNBOT_RETURN_IF_ERROR(Read(j, "lease_seconds", &server->lease_seconds, "server."));
  return Read(j, "llm_urls", &server->llm_urls, "server.");
}

Status FromJson(const Json& j, Config* config) {
  if (!j.is_object()) return Status::InvalidArgument("the configuration is not a table/object");
  for (const auto& [key, value] : j.items()) {
    if (key == "db" || key == "min_speedup" || key == "op_memory_limit_mb" ||
        key == "insecure_sandbox" || key == "ascendc_device" || key == "memory_cgroup") {
      continue;
    }
    if (key == "ops_dirs") {
      CANNBOT_RETURN_IF_ERROR(Read(j, "ops_dirs", &config->ops_dirs, ""));
      continue;
    }
    if (!value.is_object()) return Unknown("", key);
    if (key == "llm") {
      CANNBOT_RETURN_IF_ERROR(ReadLlm(value, &config->llm));
    } else if (key == "loop") {
      CANNBOT_RETURN_IF_ERROR(ReadLoop(value, &config->loop));
    } else if (key == "skills") {
      for (const auto& item : value.items()) {
        if (item.key() != "dirs" && item.key() != "model_picks") {
          return Unknown("skills.", item.key());
        }
      }
      CANNBOT_RETURN_IF_ERROR(Read(value, "dirs", &config->skill_dirs, "skills."));
      CANNBOT_RETURN_IF_ERROR(
          Read(value, "model_picks", &config->model_picks_skills, "skills."));
    } else if (key == "server") {
      CANNBOT_RETURN_IF_ERROR(ReadServer(value, &config->server));
    } else if (key == "compiler") {
      for (const auto& item : value.items()) {
        if (item.key() != "command" && item.key() != "flags") return Unknown("compiler.", item.key());
      }
      CANNBOT_RETURN_IF_ERROR(Read(value, "command", &config->compiler, "compiler."));
      CANNBOT_RETURN_IF_ERROR(Read(value, "flags", &config->compiler_flags, "compiler."));
    } else {
      return Unknown("", key);
    }
  }
  CANNBOT_RETURN_IF_ERROR(Read(j, "db", &config->db, ""));
  CANNBOT_RETURN_IF_ERROR(Read(j, "op_memory_limit_mb", &config->op_memory_limit_mb, ""));
  CANNBOT_RETURN_IF_ERROR(Read(j, "insecure_sandbox", &config->insecure_sandbox, ""));
  CANNBOT_RETURN_IF_ERROR(Read(j, "ascendc_device", &config->ascendc_device, ""));
  CANNBOT_RETURN_IF_ERROR(Read(j, "memory_cgroup", &config->memory_cgroup, ""));
  if (config->op_memory_limit_mb < 1) {
    return Status::InvalidArgument("op_memory_limit_mb must be at least 1");
  }
  return Read(j, "min_speedup", &config->min_speedup, "");
}

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

Result<Json> ParseTomlOrJson(const std::string& text, const std::string& name) {
  if (EndsWith(name, ".json")) {
    Json parsed = Json::parse(text, nullptr, false);
    if (parsed.is_discarded()) return Status::InvalidArgument(name + ": not valid JSON");
    return parsed;
  }
  try {  // toml++ reports syntax errors by exception: caught here, at the library's edge
    return ToJson(toml::parse(text, name));
  } catch (const toml::parse_error& e) {
    std::ostringstream why;
    why << e.description() << " (line " << e.source().begin.line << ")";
    return Status::InvalidArgument(name + ": not valid TOML: " + why.str());
  }
}

Status LoadFile(const std::string& path, Config* config) {
  CANNBOT_ASSIGN_OR_RETURN(std::string text, ReadFile(path, 1u << 20));
  CANNBOT_ASSIGN_OR_RETURN(Json json, ParseTomlOrJson(text, path));
  return FromJson(json, config).WithContext(path);
}

Status ApplyEnvironment(Config* config) {
  auto get = [](const char* name) -> std::string {
    const char* v = std::getenv(name);
    return v ? v : "";
  };
  auto number = [&](const char* name, auto* out) -> Status {
    const std::string text = get(name);
    if (text.empty()) return Status::Ok();
    char* end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    if (end == text.c_str() || *end != '\0') {
      return Status::InvalidArgument("environment variable " + std::string(name) +
                                     " is not a number: '" + text + "'");
    }
    using Target = std::remove_pointer_t<decltype(out)>;
    if constexpr (std::is_integral_v<Target>) {
      if (value != std::floor(value) || value < std::numeric_limits<Target>::min() ||
          value > std::numeric_limits<Target>::max()) {
        return Status::InvalidArgument("environment variable " + std::string(name) +
                                       " must be a whole number in range: '" + text + "'");
      }
    }
    *out = static_cast<Target>(value);
    return Status::Ok();
  };
  if (!get("CANNBOT_DB").empty()) config->db = get("CANNBOT_DB");
  if (!get("CANNBOT_LLM_URL").empty()) config->llm.base_url = get("CANNBOT_LLM_URL");
  if (!get("CANNBOT_MODEL").empty()) config->llm.model = get("CANNBOT_MODEL");
  if (!get("CANNBOT_COMPILER").empty()) config->compiler = get("CANNBOT_COMPILER");
  if (!get("CANNBOT_ASCENDC_DEVICE").empty()) {
    config->ascendc_device = get("CANNBOT_ASCENDC_DEVICE");
  }
  if (!get("CANNBOT_MEMORY_CGROUP").empty()) config->memory_cgroup = get("CANNBOT_MEMORY_CGROUP");
  if (!get("CANNBOT_INSECURE_SANDBOX").empty()) {
    const std::string v = get("CANNBOT_INSECURE_SANDBOX");
    if (v != "1" && v != "true" && v != "0" && v != "false") {
      return Status::InvalidArgument("CANNBOT_INSECURE_SANDBOX must be 1, true, 0 or false, not '" +
                                     v + "'");
    }
    config->insecure_sandbox = v == "1" || v == "true";
  }
  CANNBOT_RETURN_IF_ERROR(number("CANNBOT_MIN_SPEEDUP", &config->min_speedup));
  CANNBOT_RETURN_IF_ERROR(number("CANNBOT_SAMPLES", &config->loop.samples));
  CANNBOT_RETURN_IF_ERROR(number("CANNBOT_ROUNDS", &config->loop.rounds));
  CANNBOT_RETURN_IF_ERROR(number("CANNBOT_TEMPERATURE", &config->llm.temperature));
  CANNBOT_RETURN_IF_ERROR(number("CANNBOT_MAX_TOKENS", &config->llm.max_tokens));
  if (!get("CANNBOT_HOST").empty()) config->server.host = get("CANNBOT_HOST");
  if (!get("CANNBOT_STORE").empty()) config->server.store = get("CANNBOT_STORE");
  CANNBOT_RETURN_IF_ERROR(number("CANNBOT_PORT", &config->server.port));
  CANNBOT_RETURN_IF_ERROR(number("CANNBOT_WORKERS", &config->server.workers));
  if (!get("CANNBOT_TOKENS").empty()) {
    config->server.tokens.clear();
    std::stringstream tokens(get("CANNBOT_TOKENS"));
    std::string token;
    while (std::getline(tokens, token, ',')) {
      if (!token.empty()) config->server.tokens.push_back(token);
    }
  }
  const std::string dirs = get("CANNBOT_SKILLS_DIRS");
  std::stringstream in(dirs);
  std::string dir;
  while (std::getline(in, dir, ':')) {
    if (!dir.empty()) config->skill_dirs.push_back(dir);
  }
  std::stringstream ops_dirs(get("CANNBOT_OPS_DIRS"));
  while (std::getline(ops_dirs, dir, ':')) {
    if (!dir.empty()) config->ops_dirs.push_back(dir);
  }
  return Status::Ok();
}

}  // namespace cannbot::config
