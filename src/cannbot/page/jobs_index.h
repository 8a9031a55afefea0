// JobsIndex: the daemon's front page (GET / for a browser): recent jobs, newest first, with
// filters by op and by status, each linking to its job page.
//
// Thread-safety: pure function.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace cannbot::page {

struct JobsFilter {
  std::string op;      // "" = every op
  std::string status;  // "" = every status
};

// `jobs`: summaries as GET /jobs lists them (service/views.h JobSummaryJson), already
// filtered by status; `ops`: the names offered in the op filter.
std::string RenderJobsIndex(const std::vector<nlohmann::json>& jobs, const JobsFilter& filter,
                            const std::vector<std::string>& ops);

}  // namespace cannbot::page
