// HostUnits: what lets a package's op_host/*.cpp files be compiled as one translation unit.
//
// cannbot includes every host unit of a package into one translation unit (the describer, the
// kernel's wrapper), so the registrations can be found after them without load-time code. Two
// units that each define the same name at namespace scope (`constexpr uint64_t BLOCK_SIZE = 32;`
// in every tiling file of an operator, a `static TilingFunc` in two files) would not compile
// together; as separate translation units they are legal C++. So the names two or more units
// define are renamed per unit while that unit is included (`#define BLOCK_SIZE
// BLOCK_SIZE_op_host_unit2` ... `#undef BLOCK_SIZE`), which gives each unit its own, as its own
// translation unit would.
//
// Thread-safety: pure functions.
#pragma once

#include <set>
#include <string>
#include <vector>

namespace cannbot::ascendc {

// The names `code` defines at namespace scope: variables
// (`constexpr uint32_t BLOCK_SIZE = 32;`, `const std::vector<int> LIST{1, 2};`), functions with
// a body (`static ge::graphStatus TilingFunc(gert::TilingContext* c) {`), types (`struct X {`,
// `class X : public Y {`, `enum class E {`, `using T = ...;`). Qualified definitions
// (`Foo::Bar() {`) define no new name. Preprocessor lines are not read.
std::set<std::string> NamespaceScopeDefinitions(const std::string& code);

// For each unit (its code), the names it defines that another unit defines
// too, except those in `keep` (names the generated code after the units refers to).
std::vector<std::vector<std::string>> NamesToRenamePerUnit(const std::vector<std::string>& units,
                                                           const std::set<std::string>& keep);

}  // namespace cannbot::ascendc
