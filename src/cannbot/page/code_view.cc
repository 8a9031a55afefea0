#include "cannbot/page/code_view.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "cannbot/page/html.h"

namespace cannbot::page {
namespace {

bool IsKeyword(const std::string& word) {
  static const std::set<std::string> kWords = {
      "auto", "bool", "break", "case", "char", "const", "constexpr", "continue", "default", "do",
      "double", "else", "enum", "extern", "float", "for", "if", "inline", "int", "int32_t",
      "int64_t", "long", "namespace", "return", "short", "signed", "size_t", "static",
      "static_cast", "struct", "switch", "template", "typename", "uint32_t", "uint64_t",
      "unsigned", "using", "void", "volatile", "while", "__restrict", "__restrict__", "half",
      "#include", "#pragma", "#define", "#if", "#ifdef", "#endif", "#else"};
  return kWords.count(word) > 0;
}

std::string Span(const char* cls, std::string_view text) {
  return std::string("<span class=\"") + cls + "\">" + Escape(text) + "</span>";
}

}  // namespace

std::string HighlightCpp(std::string_view line) {
  std::string out;
  size_t i = 0;
  while (i < line.size()) {
    const char c = line[i];
    if (line.compare(i, 2, "//") == 0) {
      out += Span("com", line.substr(i));
      break;
    }
    if (line.compare(i, 2, "/*") == 0) {
      const size_t end = line.find("*/", i + 2);
      const size_t stop = end == std::string_view::npos ? line.size() : end + 2;
      out += Span("com", line.substr(i, stop - i));
      i = stop;
    } else if (c == '"' || c == '\'') {
      size_t j = i + 1;
      while (j < line.size() && line[j] != c) j += line[j] == '\\' ? 2 : 1;
      j = std::min(j + 1, line.size());
      out += Span("str", line.substr(i, j - i));
      i = j;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      size_t j = i;
      while (j < line.size() && (std::isalnum(static_cast<unsigned char>(line[j])) ||
                                 line[j] == '.' || line[j] == '_')) {
        ++j;
      }
      out += Span("lit", line.substr(i, j - i));
      i = j;
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '#') {
      size_t j = i + 1;
      while (j < line.size() && (std::isalnum(static_cast<unsigned char>(line[j])) || line[j] == '_')) {
        ++j;
      }
      const std::string word(line.substr(i, j - i));
      out += IsKeyword(word) ? Span("kw", word) : Escape(word);
      i = j;
    } else {
      out += Escape(line.substr(i, 1));
      ++i;
    }
  }
  return out;
}

std::string DiffHtml(const std::string& diff) {
  std::string out = "<pre class=\"diff\">";
  size_t start = 0;
  while (start < diff.size()) {
    size_t end = diff.find('\n', start);
    if (end == std::string::npos) end = diff.size();
    const std::string_view line(diff.data() + start, end - start);
    if (line.rfind("@@", 0) == 0 || line.rfind("---", 0) == 0 || line.rfind("+++", 0) == 0) {
      out += "<span class=\"hunk\">" + Escape(line) + "</span>\n";
    } else if (!line.empty() && (line[0] == '+' || line[0] == '-')) {
      out += std::string("<span class=\"") + (line[0] == '+' ? "add" : "del") + "\">" +
             Escape(line.substr(0, 1)) + HighlightCpp(line.substr(1)) + "</span>\n";
    } else {
      out += "<span>" + HighlightCpp(line) + "</span>\n";
    }
    start = end + 1;
  }
  return out + "</pre>\n";
}

}  // namespace cannbot::page
