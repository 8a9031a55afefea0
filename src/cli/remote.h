// The CLI as a client of a cannbot daemon (remote.cc): `cannbot suggest --server URL`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "cannbot/optimize/loop.h"

namespace cannbot::cli {

// What `suggest` was asked, in the terms of POST /optimize. Unset numbers (0, or -1 for
// rounds) leave the daemon's defaults.
struct RemoteSuggest {
  std::string server;  // http://host:port[/prefix]
  std::string token;   // bearer token; "" = $CANNBOT_TOKEN, if set
  std::string file;
  std::string op;
  std::string profile;  // a file to upload, "" = none
  std::string format = "auto";
  std::string kernel;  // which kernel of the profile
  std::string llm;     // "" = the daemon's default, "offline", or a URL the daemon allows
  std::string model;
  int samples = 0;
  int rounds = -1;
  double min_speedup = 0;
  int budget = 0;
  double time_budget = 0;
  std::optional<uint64_t> seed;
  bool json = false;
  std::string out;  // write the accepted kernel here
};

// Submits, follows the job's events through `progress`, prints the report; returns the exit
// code of `cannbot suggest` (0 found, 1 nothing accepted, 2 error or incorrect kernel).
int RunRemoteSuggest(const RemoteSuggest& args, const optimize::ProgressFn& progress);

}  // namespace cannbot::cli
