// TemplateEntry: a kernel entry written for tiling template programming, the style of the
// current public CANN operator repositories:
//
//   template <uint32_t schMode>                       // or <typename D_T_X>, several of them
//   __global__ __aicore__ void add_example(GM_ADDR x, GM_ADDR y, GM_ADDR z,
//                                          GM_ADDR workspace, GM_ADDR tiling)
//
// with the parameters declared in a header both op_host and op_kernel include
// (ASCENDC_TPL_ARGS_DECL / ASCENDC_TPL_SEL). Here: reading the template header of the entry,
// and the generated code that instantiates it for every selected combination behind one C
// function (targets/ascendc/cannbot_tpl_dispatch.h does the work at compile time and at launch).
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "cannbot/util/status.h"

namespace cannbot::ascendc {

struct TemplateParam {
  std::string type;  // "uint32_t", "bool"; empty for a type parameter
  std::string name;  // "schMode", "D_T_X"
  bool IsType() const { return type.empty(); }
};

// Parses the text between `template <` and `>`: value parameters of an integral type and
// `typename`/`class` parameters. Errors name what cannbot does not launch (packs, template
// template parameters, a parameter without a name).
Result<std::vector<TemplateParam>> ParseTemplateParams(const std::string& text);

// The text after `template <`, up to its matching `>`, when `code` at `open` starts one.
// Used by the entry search, which needs the parameter list of a templated entry.
std::string TemplateParamText(const std::string& code, size_t open);

// What the kernel translation unit appends after the kernel file: macros for
// cannbot_tpl_dispatch.h, then that header, which defines `launcher` (a C function taking
// `arity` GM_ADDR parameters) running the instance of `entry` the tiling key selects.
// Macros only (the generated file is checked like the kernel's own sources).
std::string TemplateLauncherSource(const std::string& entry,
                                   const std::vector<TemplateParam>& params, int arity,
                                   const std::string& launcher);

}  // namespace cannbot::ascendc
