// Glossary: the domain's terms in English and Chinese, and the tokeniser that lets a skill
// written in either language be matched against a diagnosis (bottleneck ids) and an op.
//
// Published skill packs describe themselves in prose, as often in Chinese as in English, and
// carry no `cannbot:` block. Matching such prose word by word fails twice: Chinese has no
// spaces, and the same idea has several spellings (vectorise, vectorization, 向量化). So text
// is reduced to Terms (lower-case ASCII words plus CJK character bigrams) and compared with
// Concepts: small bilingual synonym sets, each tied to the bottlenecks it answers and the op
// families it is about.
//
// Ownership: plain values; the concept table is a static constant.
// Thread-safety: pure functions over values; safe from any thread.
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace cannbot::skills::glossary {

struct Concept {
  std::string_view id;                        // "vectorise"
  std::vector<std::string_view> terms;        // "vectori*" (prefix), "double buffer*", "向量化"
  std::vector<std::string_view> bottlenecks;  // diagnosis ids it answers
  std::vector<std::string_view> families;     // op families it is about (see OpFamily)
};

// Every concept, in a fixed order.
const std::vector<Concept>& Concepts();

// Text reduced for matching.
struct Terms {
  std::string padded;             // ASCII lower-cased, runs of other bytes -> one space, " x y "
  std::set<std::string> words;    // ASCII words, lower-case
  std::set<std::string> bigrams;  // adjacent CJK characters (UTF-8); a lone one as itself
};

Terms Tokenize(std::string_view text);

// True when the text uses `term`: an ASCII word or phrase ("double buffer*": trailing star is
// a prefix), or a CJK term whose bigrams all occur (so 矩阵乘 matches 矩阵乘法).
bool Mentions(const Terms& text, std::string_view term);

// The first term of `c` the text uses (without a prefix star), or "" when none.
std::string FirstMention(const Terms& text, const Concept& c);

// The family of a built-in or user op: "elementwise", "normalisation", "matmul",
// "convolution", or "" when the name says nothing.
std::string OpFamily(std::string_view op);

// Families a text is specifically about (matmul, convolution): a skill about those only is not
// offered for other ops. `hit` receives the term that said so.
std::set<std::string> HeavyFamiliesNamed(const Terms& text, std::string* hit);

// Targets whose hardware words (target::Target::HardwareWords) the text uses, or "cuda" for
// hardware of no cannbot target (such a skill never applies). `hit` receives the first word.
std::set<std::string> TargetsNamed(const Terms& text, std::string* hit);

// Shared ASCII words of four letters or more (the English keyword overlap of earlier
// versions), in order.
std::vector<std::string> CommonWords(const Terms& a, const Terms& b);

}  // namespace cannbot::skills::glossary
