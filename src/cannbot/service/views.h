// Views: the JSON documents the daemon answers with, built from stored records and the
// registries. Field names here are the API contract (server/openapi.yaml).
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cannbot/ops/op_spec.h"
#include "cannbot/service/job_store.h"
#include "cannbot/skills/skill.h"

namespace cannbot::service {

std::string JobUrl(const std::string& id);  // "/jobs/<id>"

// 202 body of POST /optimize: {job_id, status, status_url, events_url}.
nlohmann::json AcceptedJson(const std::string& id, JobState state);
// One line of GET /jobs.
nlohmann::json JobSummaryJson(const JobRecord& job);
// GET /jobs/{id}: the summary plus options, the attempts of the latest run and the report.
nlohmann::json JobJson(const JobRecord& job, const std::vector<nlohmann::json>& attempts);

// GET /skills.
nlohmann::json SkillJson(const skills::Skill& skill);

}  // namespace cannbot::service
