#include "cannbot/util/diff.h"

#include <algorithm>
#include <sstream>
#include <vector>

namespace cannbot {
namespace {

constexpr size_t kMaxCells = 16u << 20;  // LCS table cells before falling back

// Marks a last line that has no newline, so "x" and "x\n" differ as diff -u says they do.
constexpr char kNoNewline = '\x01';

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::stringstream in(text);
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  if (!text.empty() && text.back() != '\n') lines.back().push_back(kNoNewline);
  return lines;
}

std::string Printable(const std::string& line) {
  if (line.empty() || line.back() != kNoNewline) return line + "\n";
  return line.substr(0, line.size() - 1) + "\n\\ No newline at end of file\n";
}

enum class Op { kKeep, kDelete, kInsert };
struct Edit {
  Op op;
  size_t a;  // line index in before (kKeep, kDelete)
  size_t b;  // line index in after (kKeep, kInsert)
};

std::vector<Edit> Align(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::vector<Edit> edits;
  const size_t n = a.size(), m = b.size();
  if ((n + 1) * (m + 1) > kMaxCells) {
    for (size_t i = 0; i < n; ++i) edits.push_back({Op::kDelete, i, 0});
    for (size_t j = 0; j < m; ++j) edits.push_back({Op::kInsert, n, j});
    return edits;
  }
  // lcs[i][j]: length of the LCS of a[i..] and b[j..].
  std::vector<std::vector<uint32_t>> lcs(n + 1, std::vector<uint32_t>(m + 1, 0));
  for (size_t i = n; i-- > 0;) {
    for (size_t j = m; j-- > 0;) {
      lcs[i][j] = a[i] == b[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] == b[j]) {
      edits.push_back({Op::kKeep, i++, j++});
    } else if (i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1])) {
      edits.push_back({Op::kDelete, i++, j});  // deletions first, as diff -u prints them
    } else {
      edits.push_back({Op::kInsert, i, j++});
    }
  }
  return edits;
}

}  // namespace

std::string UnifiedDiff(const std::string& before, const std::string& after,
                        const std::string& before_name, const std::string& after_name,
                        int context_lines) {
  if (before == after) return "";
  const std::vector<std::string> a = Lines(before), b = Lines(after);
  const std::vector<Edit> edits = Align(a, b);
  const size_t context = static_cast<size_t>(std::max(0, context_lines));
  std::ostringstream out;
  out << "--- " << before_name << "\n+++ " << after_name << "\n";
  size_t k = 0;
  while (k < edits.size()) {
    if (edits[k].op == Op::kKeep) {
      ++k;
      continue;
    }
    // A hunk: from `context` kept lines before this change to `context` after the last change
    // that is within 2*context lines of the previous one.
    size_t start = k >= context ? k - context : 0;
    while (start < k && edits[start].op != Op::kKeep) ++start;
    size_t end = k;
    size_t last_change = k;
    while (end < edits.size()) {
      if (edits[end].op != Op::kKeep) last_change = end;
      if (end - last_change > 2 * context) break;
      ++end;
    }
    end = std::min(edits.size(), last_change + context + 1);
    size_t a_start = edits[start].a, b_start = edits[start].b, a_count = 0, b_count = 0;
    for (size_t e = start; e < end; ++e) {
      if (edits[e].op != Op::kInsert) ++a_count;
      if (edits[e].op != Op::kDelete) ++b_count;
    }
    out << "@@ -" << (a_count ? a_start + 1 : a_start) << "," << a_count << " +"
        << (b_count ? b_start + 1 : b_start) << "," << b_count << " @@\n";
    for (size_t e = start; e < end; ++e) {
      switch (edits[e].op) {
        case Op::kKeep: out << ' ' << Printable(a[edits[e].a]); break;
        case Op::kDelete: out << '-' << Printable(a[edits[e].a]); break;
        case Op::kInsert: out << '+' << Printable(b[edits[e].b]); break;
      }
    }
    k = end;
  }
  return out.str();
}

}  // namespace cannbot
