// The CI bot's pull-request comment: one markdown document for the whole change.
//
//   <!-- cannbot-ci -->                       hidden marker: the bot finds and updates its own
//   **cannbot** · summary line                comment instead of adding another on every push
//   ### one section per changed kernel        verdict, diagnosis (top findings with evidence),
//                                             before/after table (time, speedup with its 95% CI,
//                                             GB/s, roofline fraction), the suggested kernel as
//                                             a collapsible diff; or the numeric mismatch when
//                                             the change itself broke the kernel
//   footer                                    revisions, provider
//
// The renderer works on KernelSection, a flat view of one kernel's outcome, so the comment
// does not depend on where the optimisation ran (this process or the daemon). Everything that
// came from the repository or the validator is escaped: no file name or compiler message can
// inject markup, close a code block, or forge the marker.
//
// Thread-safety: pure functions over values.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "cannbot/validator/layer.h"

namespace cannbot::ci {

// The first line of every comment the bot writes; the bot only ever edits a comment that
// begins with it.
inline constexpr const char* kCommentMarker = "<!-- cannbot-ci -->";

enum class KernelStatus {
  kFaster,          // a validated faster kernel was found
  kNoFasterKernel,  // the kernel is correct; nothing cleared the perf gate
  kBroken,          // the change made the kernel fail to compile or compute the right numbers
  kError,           // the bot could not judge it (unreadable profile, optimiser failure)
};

struct FindingSummary {
  std::string title;                  // "memory-bandwidth bound"
  std::string severity;               // "info", "warning", "critical"
  std::string summary;                // one sentence
  std::vector<std::string> evidence;  // "dram_gbps = 21.3 GB/s (>= 18.0 GB/s; ...)"
};

struct Timing {
  double ms = 0;  // median time per call
  double gbps = 0;
  double roofline_fraction = 0;  // 0..1
};

struct KernelSection {
  std::string path;
  std::string op;
  bool added = false;  // a new file in this change
  KernelStatus status = KernelStatus::kError;

  std::string profile_source;            // "msprof op_summary CSV (profiles/add.csv)", "none given"
  std::vector<FindingSummary> findings;  // most important first
  std::vector<std::string> unjudged;

  // kBroken
  validator::Layer broken_layer = validator::Layer::kNone;  // compile, sandbox or numeric
  std::string broken_reason;              // one sentence
  std::vector<std::string> broken_cases;  // "odd n=1037: 312 of 1037 elements differ ..."
  std::string compile_log;                // for compile failures, as the compiler printed it

  // kFaster, and kNoFasterKernel when some candidate reached the perf gate
  bool has_timing = false;
  std::string shape;  // the perf shape, "n=16777216"
  Timing before, after;
  double speedup = 0, ci_low = 0, ci_high = 0;
  double min_speedup = 0;   // the bar the lower bound had to clear
  std::string origin;       // where the candidate came from ("recipe add-stream (...)")
  std::string explanation;  // what the provider said it changed
  std::string diff;         // unified diff: this change's kernel -> the suggestion

  // kNoFasterKernel
  int attempts = 0;
  std::string closest;  // the nearest miss, one sentence

  // kError
  std::string error;

  std::vector<std::string> notes;
  double seconds = 0;
};

struct CommentInput {
  std::string base;  // short commit ids
  std::string head;
  std::string provider;  // "offline recipes", "LLM qwen2.5-coder"
  std::vector<KernelSection> kernels;
  std::vector<std::string> deferred;  // changed kernels beyond the per-run limit
  std::vector<std::string> warnings;
};

struct RenderOptions {
  size_t max_chars = 60000;  // GitHub refuses bodies over 65,536 characters
  size_t max_findings = 3;   // per kernel
  size_t max_evidence = 3;   // per finding
  size_t max_log_chars = 3000;
};

// The whole comment, at most options.max_chars bytes: diffs are shortened first, evenly.
std::string RenderComment(const CommentInput& input, const RenderOptions& options = {});

// The one-line summary at the top, without markup ("2 changed kernels: 1 faster kernel
// found, 1 breaks numeric equivalence"); also what the CLI prints.
std::string SummaryText(const CommentInput& input);

// Whether a comment body is one the bot wrote (it begins with the marker).
bool IsBotComment(const std::string& body);

}  // namespace cannbot::ci
