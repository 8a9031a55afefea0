// The job store's schema on PostgreSQL: the same tables and columns as the SQLite store's
// job tables (store/store.cc, versions 3 and 5), in PostgreSQL's types. Append only: version
// i+1 is reached by running PostgresJobMigrations()[i].
#pragma once

#include <string>
#include <vector>

namespace cannbot::service {

const std::vector<std::string>& PostgresJobMigrations();

// The NOTIFY channel on which every job event and every new job is announced (the payload
// is the job id): front ends wake their event streams, idle workers try to claim.
inline constexpr const char* kJobsChannel = "cannbot_jobs";

}  // namespace cannbot::service
