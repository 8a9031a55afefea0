#include "cannbot/ci/comment.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <limits>
#include <utility>

namespace cannbot::ci {
namespace {

// Prose from the repository, the validator or an LLM: no raw HTML, no links or images (an
// image would be fetched by every reader's browser), one line.
std::string Escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '[':
        out += "\\[";
        break;
      case ']':
        out += "\\]";
        break;
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '\n':
      case '\r':
        out += ' ';
        break;
      default:
        out += c;
    }
  }
  return out;
}

// A table cell: escaped prose that cannot end the cell.
std::string Cell(const std::string& text) {
  std::string out;
  for (char c : Escape(text)) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

size_t LongestBacktickRun(const std::string& text) {
  size_t longest = 0, run = 0;
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  return longest;
}

// An inline code span that holds any text, backticks included.
std::string Code(std::string text) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  const std::string ticks(LongestBacktickRun(text) + 1, '`');
  const bool pad = !text.empty() && (text.front() == '`' || text.back() == '`');
  return ticks + (pad ? " " : "") + text + (pad ? " " : "") + ticks;
}

// A fenced block longer than any backtick run inside, so the content cannot close it.
std::string Fenced(const std::string& text, const std::string& language) {
  const std::string fence(std::max<size_t>(3, LongestBacktickRun(text) + 1), '`');
  std::string out = fence + language + "\n" + text;
  if (!out.empty() && out.back() != '\n') out += '\n';
  return out + fence + "\n";
}

std::string Format(const char* format, double a, double b = 0, double c = 0) {
  char text[128];
  std::snprintf(text, sizeof(text), format, a, b, c);
  return text;
}

// At most `cap` bytes, never ending inside a UTF-8 sequence.
std::string Clip(const std::string& text, size_t cap) {
  if (text.size() <= cap) return text;
  while (cap > 0 && (static_cast<unsigned char>(text[cap]) & 0xC0) == 0x80) --cap;
  return text.substr(0, cap) + "...";
}

// Keeps whole lines up to `cap` bytes and says how much was left out.
std::string Shorten(const std::string& text, size_t cap, const std::string& what) {
  if (text.size() <= cap) return text;
  size_t cut = text.rfind('\n', cap);
  cut = cut == std::string::npos ? 0 : cut + 1;
  const size_t lines =
      static_cast<size_t>(std::count(text.begin() + static_cast<long>(cut), text.end(), '\n'));
  return text.substr(0, cut) + "... (" + std::to_string(lines) + " more lines of the " + what +
         " left out to fit the comment)\n";
}

std::string Plural(size_t n, const std::string& one, const std::string& many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

const char* BrokenWhat(validator::Layer layer) {
  if (layer == validator::Layer::kCompile) return "does not compile";
  if (layer == validator::Layer::kSandbox) return "crashes or misbehaves when run";
  return "breaks numeric equivalence";
}

// Capitalised and ending in a full stop, however the validator phrased it.
std::string Sentence(std::string text) {
  if (text.empty()) return text;
  text[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(text[0])));
  if (text.back() != '.') text += '.';
  return text;
}

std::string Headline(const KernelSection& k) {
  switch (k.status) {
    case KernelStatus::kFaster:
      return "faster kernel found: " + Format("%.2fx", k.speedup);
    case KernelStatus::kNoFasterKernel:
      return "correct; no faster kernel found";
    case KernelStatus::kBroken:
      return std::string("**this change ") + BrokenWhat(k.broken_layer) + "**";
    case KernelStatus::kError:
      return "could not be checked";
  }
  return "";
}

std::string Verdict(const KernelSection& k) {
  switch (k.status) {
    case KernelStatus::kFaster:
      return "**Verdict: accepted.** A suggested kernel compiles, computes the reference's "
             "numbers on every test shape, and is " +
             Format("%.2fx faster (95%% CI %.2fx-%.2fx", k.speedup, k.ci_low, k.ci_high) +
             Format("; the bar is a lower bound of %.2fx).", k.min_speedup);
    case KernelStatus::kNoFasterKernel:
      return "**Verdict: correct, no faster kernel.** The kernel matches its reference; " +
             Plural(static_cast<size_t>(k.attempts), "candidate was", "candidates were") +
             " tried and none cleared all three layers." +
             (k.closest.empty() ? "" : " Closest: " + Escape(k.closest));
    case KernelStatus::kBroken:
      return "**Verdict: rejected at the " + Escape(validator::LayerName(k.broken_layer)) + " layer.** " +
             Escape(Sentence(k.broken_reason)) +
             " The kernel as changed here is not correct, so it was not optimised.";
    case KernelStatus::kError:
      return "**Could not be checked:** " + Escape(k.error);
  }
  return "";
}

std::string Diagnosis(const KernelSection& k, const RenderOptions& options) {
  std::string out =
      "**Diagnosis** (profile: " + Escape(k.profile_source.empty() ? "none" : k.profile_source) +
      ")\n\n";
  if (k.findings.empty() && k.profile_source == "none given") {
    return out +
           "No profile is configured for this kernel: add `profile = \"...\"` to its "
           "`[[kernels]]` entry in the repository config for a diagnosis.\n\n";
  }
  if (k.findings.empty()) {
    out += "No bottleneck could be established";
    if (!k.unjudged.empty()) out += ": " + Escape(k.unjudged.front());
    return out + ".\n\n";
  }
  for (size_t i = 0; i < k.findings.size() && i < options.max_findings; ++i) {
    const FindingSummary& f = k.findings[i];
    out +=
        "- **" + Escape(f.title) + "** (" + Escape(f.severity) + "): " + Escape(f.summary) + "\n";
    for (size_t e = 0; e < f.evidence.size() && e < options.max_evidence; ++e) {
      out += "  - " + Code(f.evidence[e]) + "\n";
    }
  }
  return out + "\n";
}

std::string Table(const KernelSection& k) {
  const bool accepted = k.status == KernelStatus::kFaster;
  std::string out =
      "| kernel | time/call | speedup (95% CI) | GB/s | roofline |\n"
      "|---|---:|---:|---:|---:|\n";
  auto row = [&](const std::string& name, const Timing& t, const std::string& speedup) {
    return "| " + name + " | " + Format("%.4g ms", t.ms) + " | " + speedup + " | " +
           Format("%.2f", t.gbps) + " | " + Format("%.1f%%", t.roofline_fraction * 100) + " |\n";
  };
  out += row("before (this change)", k.before, "1.00x");
  const std::string speedup = Format(accepted ? "**%.2fx** (%.2fx-%.2fx)" : "%.2fx (%.2fx-%.2fx)",
                                     k.speedup, k.ci_low, k.ci_high);
  out += row(accepted ? "after (suggested)" : "closest candidate (rejected)", k.after, speedup);
  return out + "\nPerf shape: " + Code(k.shape) + "\n\n";
}

// "odd (n=1037): 312 of 1037 differ" -> {"odd (n=1037)", "312 of 1037 differ"}.
std::pair<std::string, std::string> SplitCase(const std::string& text) {
  const size_t colon = text.find(": ");
  if (colon == std::string::npos) return {text, ""};
  return {text.substr(0, colon), text.substr(colon + 2)};
}

std::string Broken(const KernelSection& k, const RenderOptions& options) {
  std::string out;
  // A single failing case is already told by the verdict's reason.
  const bool told = k.broken_cases.size() == 1 &&
                    k.broken_reason.find(SplitCase(k.broken_cases[0]).second) != std::string::npos;
  if (!k.broken_cases.empty() && !told) {
    out += "| failing case | what the validator saw |\n|---|---|\n";
    for (const std::string& c : k.broken_cases) {
      const auto [label, problem] = SplitCase(c);
      out += "| " + Cell(label) + " | " + Cell(problem) + " |\n";
    }
    out += "\n";
  }
  if (!k.compile_log.empty()) {
    out += "<details><summary>Compiler output</summary>\n\n" +
           Fenced(Shorten(k.compile_log, options.max_log_chars, "log"), "text") +
           "\n</details>\n\n";
  }
  return out;
}

std::string Section(const KernelSection& k, const RenderOptions& options, size_t diff_cap) {
  std::string out = "### " + Code(k.path) + " · op " + Code(k.op) + (k.added ? " (new)" : "") +
                    " · " + Headline(k) + "\n\n" + Verdict(k) + "\n\n";
  if (k.status == KernelStatus::kBroken) {
    out += Broken(k, options);
  } else if (k.status != KernelStatus::kError) {
    out += Diagnosis(k, options);
    if (k.has_timing) out += Table(k);
  }
  if (k.status == KernelStatus::kFaster) {
    if (!k.origin.empty()) out += "Found by: " + Escape(k.origin) + ".";
    if (!k.explanation.empty()) out += " " + Escape(Clip(k.explanation, 600));
    if (!k.origin.empty() || !k.explanation.empty()) out += "\n\n";
    out += "<details><summary>Suggested kernel (diff against this change)</summary>\n\n" +
           Fenced(Shorten(k.diff, diff_cap, "diff"), "diff") + "\n</details>\n\n";
  }
  for (const std::string& note : k.notes) out += "> Note: " + Escape(note) + "\n";
  if (!k.notes.empty()) out += "\n";
  return out;
}

std::string Header(const CommentInput& input) {
  std::string out =
      std::string(kCommentMarker) + "\n**cannbot** · " + Escape(SummaryText(input)) + "\n\n";
  for (const std::string& w : input.warnings) out += "> Warning: " + Escape(w) + "\n";
  if (!input.warnings.empty()) out += "\n";
  return out;
}

std::string Footer(const CommentInput& input) {
  std::string out;
  if (!input.deferred.empty()) {
    out += "Not checked in this run (over the per-run limit): ";
    for (size_t i = 0; i < input.deferred.size(); ++i) {
      out += (i ? ", " : "") + Code(input.deferred[i]);
    }
    out += ".\n\n";
  }
  return out + "<sub>cannbot ci · " + Code(input.base) + "..." + Code(input.head) + " · " +
         Escape(input.provider) +
         " · every suggestion was compiled, checked against the op's "
         "reference and timed before it was shown · this comment is updated on every push</sub>\n";
}

std::string Render(const CommentInput& input, const RenderOptions& options, size_t diff_cap) {
  std::string out = Header(input);
  for (const KernelSection& k : input.kernels) out += Section(k, options, diff_cap);
  return out + Footer(input);
}

}  // namespace

std::string SummaryText(const CommentInput& input) {
  size_t faster = 0, broken = 0, flat = 0, errors = 0;
  for (const KernelSection& k : input.kernels) {
    faster += k.status == KernelStatus::kFaster;
    broken += k.status == KernelStatus::kBroken;
    flat += k.status == KernelStatus::kNoFasterKernel;
    errors += k.status == KernelStatus::kError;
  }
  if (input.kernels.empty()) return "no changed kernel in this change";
  std::string out = Plural(input.kernels.size(), "changed kernel", "changed kernels") + ": ";
  std::vector<std::string> parts;
  if (broken) parts.push_back(std::to_string(broken) + " broken by this change");
  if (faster) parts.push_back(std::to_string(faster) + " with a validated faster version");
  if (flat) parts.push_back(std::to_string(flat) + " correct, no faster version found");
  if (errors) parts.push_back(std::to_string(errors) + " could not be checked");
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? ", " : "") + parts[i];
  return out;
}

std::string RenderComment(const CommentInput& input, const RenderOptions& options) {
  std::string out = Render(input, options, std::numeric_limits<size_t>::max());
  if (out.size() <= options.max_chars) return out;
  // Too long: share what is left after everything but the diffs evenly among the diffs.
  size_t diffs = 0, diff_bytes = 0;
  for (const KernelSection& k : input.kernels) {
    if (k.status == KernelStatus::kFaster) ++diffs, diff_bytes += k.diff.size();
  }
  if (diffs > 0) {
    const size_t fixed = out.size() - std::min(out.size(), diff_bytes);
    const size_t room =
        options.max_chars > fixed + 200 * diffs ? options.max_chars - fixed - 200 * diffs : 0;
    out = Render(input, options, std::max<size_t>(room / diffs, 400));
  }
  if (out.size() <= options.max_chars) return out;
  // Still too long (hundreds of kernels): cut at a line and say so.
  const std::string tail = "\n\n... (comment truncated to fit)\n";
  size_t cut = out.rfind('\n', options.max_chars - std::min(options.max_chars, tail.size() + 1));
  if (cut == std::string::npos) cut = 0;
  return out.substr(0, cut) + tail;
}

bool IsBotComment(const std::string& body) {
  const size_t start = body.find_first_not_of(" \t\r\n");
  return start != std::string::npos &&
         body.compare(start, std::string(kCommentMarker).size(), kCommentMarker) == 0;
}

}  // namespace cannbot::ci
