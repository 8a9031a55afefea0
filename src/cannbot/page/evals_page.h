// EvalsPage: the leaderboard of model evaluations (GET /evals for a browser): one row per
// stored `cannbot eval` run, best fast_1 first, with the cheat classes a model was caught in.
//
// Thread-safety: pure function.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace cannbot::page {

// `rows`: eval::EvalSummary::ToJson() documents, in leaderboard order.
std::string RenderEvalsPage(const nlohmann::json& rows);

}  // namespace cannbot::page
