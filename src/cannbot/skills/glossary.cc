#include "cannbot/skills/glossary.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <map>

#include "cannbot/target/registry.h"

namespace cannbot::skills::glossary {
namespace {

// ASCII terms are written lower-case with words separated by single spaces (Tokenize turns
// hyphens and punctuation into spaces, so "double-buffering" matches "double buffer*").
// Chinese terms are kept to two characters or more: a lone character matches too much.
const std::vector<Concept> kConcepts = {
    {"vectorise",
     {"vectori*", "simd", "avx*", "intrinsic*", "vector unit*", "vector instruction*", "向量化",
      "矢量化", "向量指令", "向量计算", "向量单元"},
     {"low_vectorization"},
     {}},
    {"fusion",
     {"fuse", "fused", "fusing", "fusion*", "融合"},
     {"memory_bound", "latency_bound"},
     {}},
    {"tiling",
     {"tile", "tiles", "tiled", "tiling", "blocking", "loop block*", "分块", "切分", "切块"},
     {"memory_bound", "cache_misses"},
     {}},
    {"double-buffer",
     {"double buffer*", "ping pong", "prefetch*", "双缓冲", "乒乓", "预取"},
     {"memory_bound", "serialized_pipelines"},
     {}},
    {"pipeline",
     {"pipelin*", "overlap*", "async*", "流水", "流水线", "流水并行", "掩盖", "异步"},
     {"serialized_pipelines"},
     {}},
    {"data-movement",
     {"data movement", "data copy", "datacopy", "dma", "mte*", "memory traffic", "搬运", "数据搬运",
      "拷贝"},
     {"memory_bound"},
     {}},
    {"alignment",
     {"align*", "padding", "bank conflict*", "对齐", "填充", "bank冲突", "存储体冲突"},
     {"cache_misses"},
     {}},
    {"bandwidth",
     {"bandwidth", "memory bound", "stream*", "带宽", "访存瓶颈", "访存密集"},
     {"memory_bound"},
     {}},
    {"memory-access",
     {"memory access*", "access pattern*", "cache*", "locality", "contiguous", "访存", "内存访问",
      "缓存", "连续访问", "局部性"},
     {"memory_bound", "cache_misses"},
     {}},
    {"branch", {"branch*", "mispredict*", "分支", "条件判断"}, {"control_flow"}, {}},
    {"layout",
     {"layout*", "transpose*", "reshape*", "nc1hwc0", "nchw", "nhwc", "布局", "转置", "排布",
      "格式转换"},
     {"layout_mismatch"},
     {}},
    {"multicore",
     {"multicore", "multi core", "load balanc*", "core imbalance", "多核", "负载均衡", "核间"},
     {"core_imbalance", "latency_bound"},
     {}},
    {"launch-latency",
     {"launch overhead", "kernel launch*", "latency", "时延", "延迟", "启动开销", "调度开销"},
     {"latency_bound"},
     {}},
    {"compute",
     {"compute bound", "fma", "arithmetic intensity", "算力", "计算密集", "计算瓶颈"},
     {"compute_bound"},
     {}},
    {"cube",
     {"matmul*", "gemm*", "matrix multipl*", "cube", "mmad", "矩阵乘", "矩阵运算", "矩阵计算"},
     {"compute_bound", "cube_starved"},
     {"matmul"}},
    {"register-tiling",
     {"microkernel*", "micro kernel*", "register block*", "register til*", "寄存器分块", "微内核"},
     {"compute_bound"},
     {"matmul", "convolution"}},
    {"convolution", {"convolution*", "conv2d", "depthwise", "卷积"}, {}, {"convolution"}},
    {"elementwise",
     {"elementwise", "element wise", "activation*", "逐元素", "元素级", "激活"},
     {},
     {"elementwise"}},
    {"normalisation", {"normali*", "layernorm*", "softmax", "归一化"}, {}, {"normalisation"}},
};

// Hardware of no cannbot target: a skill written for it never applies. (Each target's own
// words come from its registration, target::Target::HardwareWords.)
constexpr std::string_view kForeignHardware = "cuda";
const std::vector<std::string_view> kForeignHardwareWords = {
    "cuda", "gpu*", "nvidia", "triton", "ptx", "tensor core*", "显卡"};

// Hardware words by target name, the foreign hardware last.
std::vector<std::pair<std::string_view, std::vector<std::string_view>>> TargetWords() {
  std::vector<std::pair<std::string_view, std::vector<std::string_view>>> words;
  for (const target::Target* t : target::All()) words.emplace_back(t->name(), t->HardwareWords());
  words.emplace_back(kForeignHardware, kForeignHardwareWords);
  return words;
}

const std::map<std::string_view, std::string_view> kOpFamilies = {
    {"add", "elementwise"},
    {"relu", "elementwise"},
    {"swish", "elementwise"},
    {"gelu", "elementwise"},
    {"prelu", "elementwise"},
    {"sigmoid", "elementwise"},
    {"softmax", "normalisation"},
    {"layernorm", "normalisation"},
    {"layernorm_gelu", "normalisation"},
    {"matmul", "matmul"},
    {"gemm", "matmul"},
    {"conv2d", "convolution"},
    {"depthwise_conv2d", "convolution"},
    {"conv_bn_relu", "convolution"},
    {"dwsep_block", "convolution"},
};

// Common English words long enough to pass the four-letter bar that say nothing about a
// technique; two shared fillers must not make a match.
const std::set<std::string_view> kFillerWords = {
    "also", "been", "does", "each",  "from",  "have",  "into", "less", "more", "only",
    "over", "such", "than", "that",  "them",  "then",  "they", "this", "used", "uses",
    "were", "what", "when", "where", "which", "while", "with", "your"};

// Length of the UTF-8 sequence starting with `lead` (1 for stray continuation bytes).
size_t SequenceLength(unsigned char lead) {
  if (lead >= 0xF0) return 4;
  if (lead >= 0xE0) return 3;
  if (lead >= 0xC0) return 2;
  return 1;
}

uint32_t DecodePoint(std::string_view s) {
  const auto b = [&](size_t i) { return static_cast<uint32_t>(static_cast<unsigned char>(s[i])); };
  switch (s.size()) {
    case 2:
      return ((b(0) & 0x1F) << 6) | (b(1) & 0x3F);
    case 3:
      return ((b(0) & 0x0F) << 12) | ((b(1) & 0x3F) << 6) | (b(2) & 0x3F);
    case 4:
      return ((b(0) & 0x07) << 18) | ((b(1) & 0x3F) << 12) | ((b(2) & 0x3F) << 6) | (b(3) & 0x3F);
    default:
      return b(0);
  }
}

// Han ideographs (with extensions), kana and Hangul: scripts written without spaces.
bool IsCjk(uint32_t cp) {
  return (cp >= 0x3040 && cp <= 0x30FF) || (cp >= 0x3400 && cp <= 0x4DBF) ||
         (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0xAC00 && cp <= 0xD7AF) ||
         (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0x20000 && cp <= 0x2FA1F);
}

void FlushRun(std::vector<std::string>* run, Terms* terms) {
  if (run->size() == 1) terms->bigrams.insert((*run)[0]);
  for (size_t i = 1; i < run->size(); ++i) terms->bigrams.insert((*run)[i - 1] + (*run)[i]);
  run->clear();
}

void FlushWord(std::string* word, Terms* terms) {
  if (!word->empty()) terms->words.insert(*word);
  word->clear();
}

// Terms are spelled as people write them ("depthwise_conv2d", "AVX-512"); the needle gets
// the same treatment as the text so both sides agree.
bool MentionsAscii(const Terms& text, std::string_view term) {
  const bool prefix = !term.empty() && term.back() == '*';
  if (prefix) term.remove_suffix(1);
  std::string needle = " ";
  for (char c : term) {
    const bool alnum = std::isalnum(static_cast<unsigned char>(c));
    if (alnum) needle.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    if (!alnum && needle.back() != ' ') needle.push_back(' ');
  }
  if (!prefix && needle.back() != ' ') needle.push_back(' ');
  return needle.size() > 1 && text.padded.find(needle) != std::string::npos;
}

// A term as a reason quotes it: without the prefix star.
std::string Quoted(std::string_view term) {
  if (!term.empty() && term.back() == '*') term.remove_suffix(1);
  return std::string(term);
}

bool IsAscii(std::string_view s) {
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}

}  // namespace

const std::vector<Concept>& Concepts() { return kConcepts; }

Terms Tokenize(std::string_view text) {
  Terms terms;
  terms.padded = " ";
  std::string word;
  std::vector<std::string> run;  // CJK characters in a row
  for (size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    const size_t n = std::min(SequenceLength(c), text.size() - i);
    const bool cjk = n > 1 && IsCjk(DecodePoint(text.substr(i, n)));
    if (cjk) {
      run.emplace_back(text.substr(i, n));
    } else {
      FlushRun(&run, &terms);
    }
    if (n == 1 && std::isalnum(c)) {
      const char lower = static_cast<char>(std::tolower(c));
      word.push_back(lower);
      terms.padded.push_back(lower);
    } else {
      FlushWord(&word, &terms);
      if (terms.padded.back() != ' ') terms.padded.push_back(' ');
    }
    i += n;
  }
  FlushRun(&run, &terms);
  FlushWord(&word, &terms);
  if (terms.padded.back() != ' ') terms.padded.push_back(' ');
  return terms;
}

bool Mentions(const Terms& text, std::string_view term) {
  if (IsAscii(term)) return MentionsAscii(text, term);
  const Terms wanted = Tokenize(term);
  const auto in = [](const std::set<std::string>& have, const std::set<std::string>& need) {
    return std::includes(have.begin(), have.end(), need.begin(), need.end());
  };
  return !wanted.bigrams.empty() && in(text.bigrams, wanted.bigrams) &&
         in(text.words, wanted.words);
}

std::string FirstMention(const Terms& text, const Concept& c) {
  for (std::string_view term : c.terms) {
    if (Mentions(text, term)) return Quoted(term);
  }
  return "";
}

std::string OpFamily(std::string_view op) {
  auto it = kOpFamilies.find(op);
  if (it != kOpFamilies.end()) return std::string(it->second);
  const auto has = [&](std::string_view part) { return op.find(part) != std::string_view::npos; };
  if (has("conv")) return "convolution";
  if (has("matmul") || has("gemm")) return "matmul";
  if (has("norm") || has("softmax")) return "normalisation";
  return "";
}

std::set<std::string> HeavyFamiliesNamed(const Terms& text, std::string* hit) {
  std::set<std::string> families;
  for (const Concept& c : kConcepts) {
    if (c.id != "cube" && c.id != "convolution") continue;
    const std::string term = FirstMention(text, c);
    if (term.empty()) continue;
    if (hit->empty()) *hit = term;
    families.insert(c.families.begin(), c.families.end());
  }
  return families;
}

std::set<std::string> TargetsNamed(const Terms& text, std::string* hit) {
  std::set<std::string> targets;
  for (const auto& [target, words] : TargetWords()) {
    for (std::string_view word : words) {
      if (!Mentions(text, word)) continue;
      if (hit->empty()) *hit = Quoted(word);
      targets.insert(std::string(target));
      break;
    }
  }
  return targets;
}

std::vector<std::string> CommonWords(const Terms& a, const Terms& b) {
  std::vector<std::string> common;
  for (const std::string& word : a.words) {
    if (word.size() >= 4 && b.words.count(word) && !kFillerWords.count(word))
      common.push_back(word);
  }
  return common;
}

}  // namespace cannbot::skills::glossary
