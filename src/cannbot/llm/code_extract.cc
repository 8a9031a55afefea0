#include "cannbot/llm/code_extract.h"

#include <regex>
#include <vector>

namespace cannbot::llm {
namespace {

struct Block {
  std::string language;
  std::string code;
  size_t begin = 0;  // span in the text, fences included
  size_t end = 0;
};

// Drops <think> sections; an unclosed one runs to the first fence or the end, and a bare
// </think> (reasoning models that omit the opening tag) drops everything before it.
std::string DropThinking(const std::string& full) {
  std::string text = full;
  const size_t orphan_close = text.find("</think>");
  const size_t first_open = text.find("<think>");
  if (orphan_close != std::string::npos &&
      (first_open == std::string::npos || first_open > orphan_close)) {
    text = text.substr(orphan_close + 8);
  }
  std::string out;
  size_t at = 0;
  while (true) {
    size_t open = text.find("<think>", at);
    if (open == std::string::npos) break;
    out += text.substr(at, open - at);
    size_t close = text.find("</think>", open);
    if (close != std::string::npos) {
      at = close + 8;
    } else {
      size_t fence = text.find("```", open);
      at = fence == std::string::npos ? text.size() : fence;
    }
  }
  return out + text.substr(std::min(at, text.size()));
}

std::vector<Block> FencedBlocks(const std::string& text) {
  std::vector<Block> blocks;
  size_t at = 0;
  while (at < text.size()) {
    size_t open = std::string::npos;
    std::string fence;
    for (const char* f : {"```", "~~~"}) {
      size_t p = text.find(f, at);
      if (p != std::string::npos && (open == std::string::npos || p < open)) {
        open = p;
        fence = f;
      }
    }
    if (open == std::string::npos) break;
    size_t line_end = text.find('\n', open);
    if (line_end == std::string::npos) break;
    Block block;
    block.begin = open;
    block.language = text.substr(open + 3, line_end - open - 3);
    block.language.erase(block.language.find_last_not_of(" \t\r") + 1);
    size_t close = text.find("\n" + fence, line_end);
    if (close == std::string::npos) {  // cut off: take the rest
      block.code = text.substr(line_end + 1);
      block.end = text.size();
    } else {
      block.code = text.substr(line_end + 1, close - line_end);
      size_t after = text.find('\n', close + 1 + fence.size());
      block.end = after == std::string::npos ? text.size() : after;
    }
    blocks.push_back(block);
    at = block.end;
  }
  return blocks;
}

bool DefinesSymbol(const std::string& code, const std::string& symbol) {
  const std::regex definition("\\b" + symbol + "\\s*\\([^;{]*\\)\\s*(noexcept\\s*)?\\{");
  return std::regex_search(code, definition);
}

bool LooksLikeCpp(const Block& b) {
  static const std::regex tag("^(c\\+\\+|cpp|cc|cxx|c|h|hpp)?$", std::regex::icase);
  return std::regex_match(b.language, tag);
}

std::string Trim(std::string s) {
  s.erase(0, s.find_first_not_of(" \t\r\n"));
  s.erase(s.find_last_not_of(" \t\r\n") + 1);
  return s;
}

}  // namespace

ExtractedCode ExtractCode(const std::string& response, const std::string& symbol) {
  ExtractedCode result;
  const std::string text = DropThinking(response);
  std::vector<Block> blocks = FencedBlocks(text);
  const Block* best = nullptr;
  for (const Block& b : blocks) {  // the C/C++ block that defines the symbol, longest first
    if (LooksLikeCpp(b) && DefinesSymbol(b.code, symbol) &&
        (!best || b.code.size() > best->code.size())) {
      best = &b;
    }
  }
  for (const Block& b : blocks) {
    if (!best && LooksLikeCpp(b) && b.code.find(symbol) != std::string::npos) best = &b;
  }
  if (best) {
    result.found = true;
    result.code = best->code;
    result.explanation = Trim(text.substr(0, best->begin) + "\n" + text.substr(best->end));
    return result;
  }
  // No fences at all: bare code, if the text defines the symbol. (Fenced blocks in another
  // language are not C++ just because they define a function of that name.)
  if (blocks.empty() && DefinesSymbol(text, symbol)) {
    size_t start = text.find("#include");
    if (start == std::string::npos) start = text.find("extern \"C\"");
    if (start == std::string::npos) start = 0;
    size_t end = text.rfind('}');
    end = end == std::string::npos ? text.size() : end + 1;
    result.found = true;
    result.code = text.substr(start, end - start) + "\n";
    result.explanation = Trim(text.substr(0, start) + "\n" + text.substr(end));
    return result;
  }
  result.problem = blocks.empty() ? "the answer contains no code"
                                  : "no code block in the answer defines " + symbol;
  result.explanation = Trim(text);
  return result;
}

}  // namespace cannbot::llm
