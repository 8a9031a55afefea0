// Code extraction from model output, which is prose as often as code.
//
// Handles fenced blocks with or without a language tag (``` or ~~~), several blocks (the one
// defining the op's symbol wins, then the longest C/C++ block), a missing closing fence,
// <think>...</think> reasoning sections (dropped, closed or not), and bare code without fences.
// Whatever is not the chosen code is returned as the model's explanation.
//
// Thread-safety: pure function.
#pragma once

#include <string>

namespace cannbot::llm {

struct ExtractedCode {
  bool found = false;
  std::string code;
  std::string explanation;  // the prose around the code, trimmed
  std::string problem;      // why nothing was found, when !found
};

ExtractedCode ExtractCode(const std::string& response, const std::string& symbol);

}  // namespace cannbot::llm
