// Code extraction from model answers (llm/code_extract.h): fences with and without a language
// tag, ``` and ~~~, several blocks, prose around the code, a missing closing fence,
// <think> sections, bare code, answers without code and blocks in other languages.
#include "cannbot/llm/code_extract.h"

#include <gtest/gtest.h>

#include <string>
#include "unit_support.h"

namespace cannbot::llm {
namespace {

using cannbot::test::Contains;

// A small, complete kernel for the `swish` op; the marker tells candidates apart.
std::string SwishKernel(const std::string& marker) {
  return "#include <cmath>\n"
         "#include <cstdint>\n"
         "// " + marker + "\n"
         "extern \"C\" void swish(const float* x, float* y, int64_t n) {\n"
         "  for (int64_t i = 0; i < n; ++i) y[i] = x[i] / (1.0f + std::exp(-x[i]));\n"
         "}\n";
}

TEST(CodeExtractTest, FencedBlockWithLanguageTag) {
  const std::string code = SwishKernel("tagged");
  const std::string answer = "Here is the kernel:\n```cpp\n" + code + "```\n";
  ExtractedCode got = ExtractCode(answer, "swish");
  ASSERT_TRUE(got.found) << got.problem;
  EXPECT_EQ(got.code, code);
  EXPECT_EQ(got.explanation, "Here is the kernel:");
  EXPECT_TRUE(got.problem.empty());
}

TEST(CodeExtractTest, FencedBlockWithoutLanguageTag) {
  const std::string code = SwishKernel("untagged");
  ExtractedCode got = ExtractCode("```\n" + code + "```", "swish");
  ASSERT_TRUE(got.found) << got.problem;
  EXPECT_EQ(got.code, code);
  EXPECT_EQ(got.explanation, "");
}

TEST(CodeExtractTest, CppLanguageTagsAreRecognised) {
  // `noexcept` between the parameter list and the body: not recognised as a definition, so the
  // block is taken because it is C++ and names the symbol. That path checks the tag.
  const std::string code =
      "#include <cstdint>\n"
      "extern \"C\" void swish(const float* x, float* y, int64_t n) noexcept {\n"
      "  for (int64_t i = 0; i < n; ++i) y[i] = x[i];\n"
      "}\n";
  for (const std::string tag : {"", "cpp", "c++", "C++", "cc", "cxx", "c", "hpp"}) {
    ExtractedCode got = ExtractCode("```" + tag + "\n" + code + "```\n", "swish");
    ASSERT_TRUE(got.found) << "tag '" << tag << "': " << got.problem;
    EXPECT_EQ(got.code, code) << tag;
  }
  for (const std::string tag : {"python", "rust", "text", "cuda"}) {
    ExtractedCode got = ExtractCode("```" + tag + "\n" + code + "```\n", "swish");
    EXPECT_FALSE(got.found) << "tag '" << tag << "' was taken as C++";
    EXPECT_FALSE(got.problem.empty()) << tag;
  }
}

TEST(CodeExtractTest, TildeFence) {
  const std::string code = SwishKernel("tilde");
  ExtractedCode got = ExtractCode("Result:\n~~~cpp\n" + code + "~~~\nDone.", "swish");
  ASSERT_TRUE(got.found) << got.problem;
  EXPECT_EQ(got.code, code);
  EXPECT_FALSE(Contains(got.code, "~~~"));
  EXPECT_TRUE(Contains(got.explanation, "Result:"));
  EXPECT_TRUE(Contains(got.explanation, "Done."));
}

TEST(CodeExtractTest, BlockDefiningTheSymbolWinsOverALongerUnrelatedBlock) {
  // A long helper block (it mentions swish, calls it, and defines swish_avx2, but does not
  // define swish) before and after the short block that does define it.
  std::string helper = "#include <immintrin.h>\n";
  for (int i = 0; i < 40; ++i) {
    helper += "static inline float poly" + std::to_string(i) + "(float v) { return v * " +
              std::to_string(i) + ".0f; }\n";
  }
  helper += "static void swish_avx2(const float* x, float* y, long n) {\n  (void)x; (void)y; (void)n;\n}\n";
  helper += "// usage: swish(x, y, n);\n";
  const std::string real = SwishKernel("the real one");
  ASSERT_GT(helper.size(), real.size() * 3);
  for (bool helper_first : {true, false}) {
    const std::string a = "```cpp\n" + helper + "```\n";
    const std::string b = "```cpp\n" + real + "```\n";
    const std::string answer =
        "Two blocks follow.\n" + (helper_first ? a + "and\n" + b : b + "and\n" + a);
    ExtractedCode got = ExtractCode(answer, "swish");
    ASSERT_TRUE(got.found) << got.problem;
    EXPECT_EQ(got.code, real) << "helper first: " << helper_first;
    // The block that was not chosen is not code of the answer, so it is part of the prose.
    EXPECT_TRUE(Contains(got.explanation, "poly39")) << got.explanation;
    EXPECT_FALSE(Contains(got.explanation, "the real one"));
  }
}

TEST(CodeExtractTest, OfSeveralDefiningBlocksTheLongestWins) {
  const std::string short_one = SwishKernel("short draft");
  std::string long_one = SwishKernel("long final");
  long_one.insert(0, "// A longer, final version with more comments.\n// More notes.\n");
  ExtractedCode got = ExtractCode("Draft:\n```cpp\n" + short_one + "```\nFinal:\n```cpp\n" +
                                      long_one + "```\n",
                                  "swish");
  ASSERT_TRUE(got.found) << got.problem;
  EXPECT_EQ(got.code, long_one);
}

TEST(CodeExtractTest, ProseBeforeAndAfterIsTheExplanationWithoutTheCode) {
  const std::string code = SwishKernel("prose");
  const std::string answer =
      "I vectorised the loop with AVX-512.\n\n```cpp\n" + code +
      "```\n\n- Replaced std::exp with a polynomial.\n- Added a masked tail.\n";
  ExtractedCode got = ExtractCode(answer, "swish");
  ASSERT_TRUE(got.found) << got.problem;
  EXPECT_EQ(got.code, code);
  EXPECT_TRUE(Contains(got.explanation, "I vectorised the loop with AVX-512."));
  EXPECT_TRUE(Contains(got.explanation, "- Replaced std::exp with a polynomial."));
  EXPECT_TRUE(Contains(got.explanation, "- Added a masked tail."));
  EXPECT_FALSE(Contains(got.explanation, "extern \"C\""));
  EXPECT_FALSE(Contains(got.explanation, "```"));
  // Trimmed at both ends.
  EXPECT_EQ(got.explanation.front(), 'I');
  EXPECT_EQ(got.explanation.back(), '.');
}

TEST(CodeExtractTest, MissingClosingFenceTakesTheRest) {
  const std::string code = SwishKernel("cut off");
  ExtractedCode got = ExtractCode("Here you go:\n```cpp\n" + code, "swish");
  ASSERT_TRUE(got.found) << got.problem;
  EXPECT_EQ(got.code, code);
  EXPECT_EQ(got.explanation, "Here you go:");
}

TEST(CodeExtractTest, ClosedThinkSectionIsDropped) {
  const std::string code = SwishKernel("answer");
  const std::string answer = "<think>The user wants swish. Maybe a lookup table? No.</think>\n"
                             "Final kernel:\n```cpp\n" + code + "```\n";
  ExtractedCode got = ExtractCode(answer, "swish");
  ASSERT_TRUE(got.found) << got.problem;
  EXPECT_EQ(got.code, code);
  EXPECT_EQ(got.explanation, "Final kernel:");
  EXPECT_FALSE(Contains(got.explanation, "lookup table"));
  EXPECT_FALSE(Contains(got.explanation, "think>"));
}

TEST(CodeExtractTest, UnclosedThinkSectionBeforeAFenceIsDropped) {
  const std::string code = SwishKernel("after unclosed think");
  const std::string answer = "<think>Let me reason about the exp range reduction first...\n"
                             "```cpp\n" + code + "```\nThat is all.";
  ExtractedCode got = ExtractCode(answer, "swish");
  ASSERT_TRUE(got.found) << got.problem;
  EXPECT_EQ(got.code, code);
  EXPECT_FALSE(Contains(got.explanation, "range reduction"));
  EXPECT_FALSE(Contains(got.explanation, "<think>"));
  EXPECT_TRUE(Contains(got.explanation, "That is all."));
}

TEST(CodeExtractTest, FencedBlockInsideAThinkSectionIsIgnored) {
  // The draft in the reasoning is longer and defines the symbol too; it must not be taken.
  std::string draft = SwishKernel("DRAFT inside think");
  for (int i = 0; i < 20; ++i) draft.insert(0, "// draft padding line\n");
  const std::string final_code = SwishKernel("final answer");
  const std::string answer = "<think>First attempt:\n```cpp\n" + draft +
                             "```\nHmm, that is slow.</think>\nHere is the kernel.\n```cpp\n" +
                             final_code + "```\n";
  ExtractedCode got = ExtractCode(answer, "swish");
  ASSERT_TRUE(got.found) << got.problem;
  EXPECT_EQ(got.code, final_code);
  EXPECT_FALSE(Contains(got.code, "DRAFT"));
  EXPECT_FALSE(Contains(got.explanation, "DRAFT"));
  EXPECT_FALSE(Contains(got.explanation, "that is slow"));
  EXPECT_EQ(got.explanation, "Here is the kernel.");
}

TEST(CodeExtractTest, OnlyThinkingWithCodeInsideIsNotAnAnswer) {
  const std::string answer =
      "<think>```cpp\n" + SwishKernel("only in thoughts") + "```\n</think>\nI give up.";
  ExtractedCode got = ExtractCode(answer, "swish");
  EXPECT_FALSE(got.found);
  EXPECT_TRUE(got.code.empty());
  EXPECT_EQ(got.explanation, "I give up.");
  EXPECT_FALSE(got.problem.empty());
}

TEST(CodeExtractTest, BareCodeWithoutFences) {
  const std::string code = SwishKernel("bare");
  ExtractedCode got = ExtractCode("Sure, here it is.\n" + code, "swish");
  ASSERT_TRUE(got.found) << got.problem;
  EXPECT_EQ(got.code, code);
  EXPECT_TRUE(Contains(got.code, "#include <cmath>"));
  EXPECT_EQ(got.explanation, "Sure, here it is.");
}

TEST(CodeExtractTest, BareCodeStartingAtExternC) {
  const std::string code =
      "extern \"C\" void swish(const float* x, float* y, int64_t n) {\n"
      "  for (int64_t i = 0; i < n; ++i) y[i] = x[i];\n"
      "}\n";
  ExtractedCode got = ExtractCode("Plain version:\n" + code, "swish");
  ASSERT_TRUE(got.found) << got.problem;
  EXPECT_EQ(got.code, code);
  EXPECT_EQ(got.explanation, "Plain version:");
}

// BUG: code_extract.h promises "Whatever is not the chosen code is returned as the model's
// explanation", but for bare (unfenced) code the prose after the last '}' is dropped: the
// explanation is only the text before the code.
TEST(CodeExtractTest, BareCodeKeepsTheProseAfterTheCode) {
  const std::string code = SwishKernel("bare with notes");
  ExtractedCode got =
      ExtractCode("Sure.\n" + code + "\nI replaced the division with a reciprocal.", "swish");
  ASSERT_TRUE(got.found) << got.problem;
  EXPECT_EQ(got.code, code);
  EXPECT_TRUE(Contains(got.explanation, "I replaced the division with a reciprocal."))
      << got.explanation;
}

TEST(CodeExtractTest, NoCodeAtAllIsNotFoundWithAClearProblem) {
  ExtractedCode got = ExtractCode("  I am sorry, I cannot write this kernel today.  ", "swish");
  EXPECT_FALSE(got.found);
  EXPECT_TRUE(got.code.empty());
  EXPECT_EQ(got.problem, "the answer contains no code");
  EXPECT_EQ(got.explanation, "I am sorry, I cannot write this kernel today.");
}

TEST(CodeExtractTest, EmptyAnswerIsNotFound) {
  ExtractedCode got = ExtractCode("", "swish");
  EXPECT_FALSE(got.found);
  EXPECT_FALSE(got.problem.empty());
}

TEST(CodeExtractTest, BlocksThatDoNotDefineOrMentionTheSymbolAreNotTaken) {
  const std::string answer =
      "Use this helper:\n```cpp\nstatic float fast_exp(float v) { return v; }\n```\n";
  ExtractedCode got = ExtractCode(answer, "swish");
  EXPECT_FALSE(got.found);
  EXPECT_TRUE(got.code.empty());
  EXPECT_TRUE(Contains(got.problem, "swish")) << got.problem;
  EXPECT_TRUE(Contains(got.problem, "no code block")) << got.problem;
}

TEST(CodeExtractTest, PythonBlockIsNotTaken) {
  const std::string answer =
      "Here is how to check it:\n```python\nimport numpy as np\n"
      "def swish(x):\n    return x / (1.0 + np.exp(-x))\n\nlib.swish(x_ptr, y_ptr, n)\n```\n";
  ExtractedCode got = ExtractCode(answer, "swish");
  EXPECT_FALSE(got.found) << got.code;
  EXPECT_TRUE(got.code.empty());
  EXPECT_FALSE(got.problem.empty());
}

TEST(CodeExtractTest, PythonBlockLosesToTheCppBlock) {
  const std::string code = SwishKernel("cpp beats python");
  std::string python = "```python\nimport numpy as np\n";
  for (int i = 0; i < 30; ++i) python += "# swish(x) checks, line " + std::to_string(i) + "\n";
  python += "def swish(x):\n    return x / (1.0 + np.exp(-x))\n```\n";
  ExtractedCode got = ExtractCode(python + "And the kernel:\n```cpp\n" + code + "```\n", "swish");
  ASSERT_TRUE(got.found) << got.problem;
  EXPECT_EQ(got.code, code);
}

// BUG: the block that "defines the op's symbol" is chosen without looking at its language tag,
// so a longer block in another language whose syntax happens to match `swish(...) {` (Rust,
// JavaScript, CUDA, ...) wins over the C++ block that defines the kernel.
TEST(CodeExtractTest, OtherLanguageBlockDefiningTheSymbolLosesToTheCppBlock) {
  const std::string code = SwishKernel("the C++ kernel");
  std::string rust = "```rust\n";
  for (int i = 0; i < 20; ++i) rust += "// reference implementation, line " + std::to_string(i) + "\n";
  rust += "pub fn swish(x: &[f32], y: &mut [f32]) {\n"
          "    for (a, b) in x.iter().zip(y.iter_mut()) { *b = a / (1.0 + (-a).exp()); }\n}\n```\n";
  ExtractedCode got =
      ExtractCode("Reference in Rust:\n" + rust + "The kernel:\n```cpp\n" + code + "```\n", "swish");
  ASSERT_TRUE(got.found) << got.problem;
  EXPECT_EQ(got.code, code);
}

// BUG: reasoning models served with a chat template that opens the <think> tag in the prompt
// (DeepSeek-R1 and its distills on vLLM/SGLang without a reasoning parser) answer with the
// reasoning followed by a bare "</think>": DropThinking only looks for "<think>", so a longer
// draft inside that reasoning is taken instead of the final kernel.
TEST(CodeExtractTest, ReasoningClosedByAnOrphanThinkTagIsDropped) {
  std::string draft = SwishKernel("DRAFT in orphan reasoning");
  for (int i = 0; i < 20; ++i) draft.insert(0, "// draft padding line\n");
  const std::string final_code = SwishKernel("final");
  const std::string answer = "Okay, first try:\n```cpp\n" + draft +
                             "```\nToo slow.\n</think>\n\nThe kernel:\n```cpp\n" + final_code +
                             "```\n";
  ExtractedCode got = ExtractCode(answer, "swish");
  ASSERT_TRUE(got.found) << got.problem;
  EXPECT_EQ(got.code, final_code);
  EXPECT_FALSE(Contains(got.explanation, "Too slow."));
}

}  // namespace
}  // namespace cannbot::llm
