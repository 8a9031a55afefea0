// Recipes: parametrised optimized kernels that skills carry, so cannbot can optimise with no
// LLM at all (the offline provider searches their parameters through the validator).
//
// A recipe is skills/<skill>/recipes/<name>.cpp: a valid kernel whose opening comment
// declares it, then #ifndef defaults for each parameter:
//   // cannbot-recipe
//   // name: swish-stream-avx512
//   // op: swish              (or several: `op: matmul, matmul_bt`, one algorithm for all)
//   // target: NAME           (optional; the default target, the CPU, when absent)
//   // families: elementwise, activation   (instead of op: any op of these families...)
//   // dtypes: half, bfloat16              (...whose tensors are all of these; default any)
//   // summary: one pass, 16 lanes, polynomial exp, masked tail
//   // params: UNROLL=2,1,4 NT_STORES=0,1
//   // generated: elementwise   (optional: the kernel is written from the op's spec)
//   // ---
// The first value of each parameter is its default. A variant is the source with
// `#define NAME value` lines prepended, and `#define CANNBOT_OP_<op> 1` for the op it is
// instantiated for (how a recipe naming several ops picks that op's entry point). A family recipe cannot know the op's arithmetic: it is
// a prefix (pragmas, helpers) put in front of the user's own kernel; or, with `generated:
// elementwise` (`generated: reduce`), it applies to ops whose spec gives an `elementwise`
// expression (a `reduce` table) and is followed by the kernel cannbot writes from it
// (elementwise_kernel.h, reduce_kernel.h), in any dtype.
//
// Thread-safety: plain values and pure functions.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "cannbot/ops/op_spec.h"
#include "cannbot/util/status.h"

namespace cannbot::skills {

struct RecipeParam {
  std::string name;
  std::vector<std::string> values;  // first = default
};

struct Recipe {
  std::string name;
  std::vector<std::string> ops;  // the ops it is written for by name; empty: a family recipe
  std::vector<std::string> families;  // a family recipe: the op families it applies to
  std::vector<std::string> dtypes;    // and the tensor dtypes ("" = any)
  std::string target;  // the target (kernel ABI) it is written for; "" = the default
  std::string summary;
  std::string skill;  // the skill folder it came from
  std::string path;
  std::vector<RecipeParam> params;
  std::string source;
  // "elementwise" or "reduce": the kernel is written from the op's spec (its `elementwise`
  // expression, its `reduce` table); else "".
  std::string generated;

  bool NamesOp(const std::string& op) const;
  bool IsFamilyRecipe() const { return ops.empty(); }
};

using ParamValues = std::map<std::string, std::string>;

Result<Recipe> ParseRecipe(const std::string& text, const std::string& path);

// Every parameter at its first value.
ParamValues Defaults(const Recipe& recipe);
// The recipe's source with `values` as #defines in front (and CANNBOT_OP_<op->name> when `op`
// is given); a family recipe is followed by
// `kernel`, the user's own source it applies to, and a generated one by the kernel written
// from `op`'s spec.
std::string Instantiate(const Recipe& recipe, const ParamValues& values,
                        const std::string& kernel = "", const ops::OpSpec* op = nullptr);
// "UNROLL=2 NT_STORES=0" (in the recipe's parameter order).
std::string DescribeValues(const Recipe& recipe, const ParamValues& values);

}  // namespace cannbot::skills
