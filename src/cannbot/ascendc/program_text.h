// ProgramText: the edits that let a host compiler build an Ascend C program whose host code
// launches its kernel with `<<<>>>` (the single-file `.asc` programs of the newer samples, or a
// kernel file's `<op>_do` wrapper), without changing what either part does:
//
//   - RewriteChevrons: `k<T, 8><<<blocks, l2ctrl, stream>>>(x, y)` becomes
//     `CANNBOT_CHEVRON(k<T, 8>)(blocks, l2ctrl, stream)(x, y)`, which cannbot_sample.h defines
//     as a call that records the launch (the kernel's instantiation resolved by the compiler).
//   - WithoutHostFunctions: the device part alone. A function defined at namespace scope with
//     none of the device qualifiers (`__aicore__`, `__global__`, `__vector__`, `__cube__`,
//     `__simd_vf__`, `__simd_callee__`) and not `constexpr` is host code, as the device
//     compiler sees it, and is blanked: main, the
//     function holding the launch, its file reading and printing. Types, constants and device
//     functions stay.
//
// Both keep every line where it was (edits are padded, blanked text keeps its newlines), so a
// compiler's line numbers still point into the user's file.
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <vector>

namespace cannbot::ascendc {

std::string RewriteChevrons(const std::string& text);

// The text unchanged when its braces do not balance (a definition split across #if branches):
// the compiler then reports what it finds.
std::string WithoutHostFunctions(const std::string& text);

// A header of such a program, for the device part: WithoutHostFunctions, and when nothing but
// preprocessor lines is left (a data_utils.h of file helpers), its #include lines blanked too,
// since they served only the host functions. Macros and guards stay.
std::string DevicePartOfHeader(const std::string& text);

// The kernels `text` launches with `<<<>>>`, in order of first appearance, without template
// arguments ("add_custom").
std::vector<std::string> ChevronLaunched(const std::string& text);

// Whether `name` (a kernel's instantiation as the compiler printed it, "add_custom<float,
// 2048>") is a name cannbot may paste into a generated line: an identifier with template
// arguments of names, numbers and the punctuation of types, and nothing that ends a statement.
bool IsInstantiationName(const std::string& name);

}  // namespace cannbot::ascendc
