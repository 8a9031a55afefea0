// ObjectInspector: facts about a built kernel read from its ELF file, without loading it.
//
// Loading runs code; reading does not. The compile layer uses these facts to reject a kernel
// that runs code at load or unload time (static constructors and destructors, which would run
// before any check of its output) or that defines symbols of the C library or the harness
// (clock_gettime, memcmp, anything named cannbot...), a classic way to fake timing or
// comparison.
//
// Only 64-bit little-endian ELF is understood; anything else is reported as an error.
// Thread-safety: pure functions.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "cannbot/util/status.h"

namespace cannbot::validator {

struct ObjectFacts {
  size_t init_functions = 0;  // entries of .init_array (plus .ctors, .preinit_array)
  size_t fini_functions = 0;  // entries of .fini_array (plus .dtors)
  size_t init_code_bytes = 0;  // size of the .init and .fini sections (code run by _init/_fini)
  size_t load_time_resolvers = 0;  // IFUNC symbols and IRELATIVE relocations: run by dlopen
  std::vector<std::string> defined_symbols;  // global or weak symbols the object exports
  // The dynamic symbols it leaves undefined, and those of them that are weak: the start-up
  // files' hooks (__gmon_start__, _ITM_registerTMCloneTable, ...), which their code calls at
  // load time when something defines them.
  std::vector<std::string> undefined_symbols;
  std::vector<std::string> weak_references;
};

Result<ObjectFacts> InspectSharedObject(const std::string& elf_bytes);

// Symbols exported by the C and math libraries this process has loaded.
const std::set<std::string>& SystemLibrarySymbols();

// "" when the candidate is clean; else one sentence. `plain` are the facts of a kernel built
// the same way that certainly has no constructors (the toolchain's own start-up files add
// a fixed number of entries).
// `runtime_markers`: substrings of symbols that a target's runtime headers define.
std::string CheckObjectFacts(const ObjectFacts& candidate, const ObjectFacts& plain,
                             const std::vector<std::string>& runtime_markers = {});

}  // namespace cannbot::validator
