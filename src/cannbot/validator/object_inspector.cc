#include "cannbot/validator/object_inspector.h"

#include <elf.h>
#include <link.h>

#include <algorithm>
#include <cstring>

#include "cannbot/util/fs.h"
#include "cannbot/util/utf8.h"

namespace cannbot::validator {
namespace {

template <typename T>
bool ReadAt(const std::string& bytes, uint64_t offset, T* out) {
  if (offset > bytes.size() || bytes.size() - offset < sizeof(T)) return false;
  std::memcpy(out, bytes.data() + offset, sizeof(T));
  return true;
}

struct Section {
  std::string name;
  Elf64_Shdr header;
};

Result<std::vector<Section>> Sections(const std::string& bytes) {
  Elf64_Ehdr ehdr{};
  if (!ReadAt(bytes, 0, &ehdr) || std::memcmp(ehdr.e_ident, ELFMAG, SELFMAG) != 0) {
    return Status::InvalidArgument("not an ELF file");
  }
  if (ehdr.e_ident[EI_CLASS] != ELFCLASS64 || ehdr.e_ident[EI_DATA] != ELFDATA2LSB ||
      ehdr.e_shentsize != sizeof(Elf64_Shdr)) {
    return Status::InvalidArgument("not a 64-bit little-endian ELF file");
  }
  std::vector<Elf64_Shdr> headers(ehdr.e_shnum);
  for (size_t i = 0; i < headers.size(); ++i) {
    if (!ReadAt(bytes, ehdr.e_shoff + i * sizeof(Elf64_Shdr), &headers[i])) {
      return Status::InvalidArgument("truncated section headers");
    }
  }
  if (ehdr.e_shstrndx >= headers.size()) return Status::InvalidArgument("no section names");
  const Elf64_Shdr& names = headers[ehdr.e_shstrndx];
  std::vector<Section> sections;
  for (const Elf64_Shdr& h : headers) {
    std::string name;
    for (uint64_t at = names.sh_offset + h.sh_name; at < bytes.size() && bytes[at] != '\0'; ++at) {
      name.push_back(bytes[at]);
    }
    sections.push_back({name, h});
  }
  return sections;
}

enum class Wanted { kDefined, kUndefined, kWeakUndefined };

// The names of the dynamic symbols that are defined (global or weak), undefined, or undefined
// and weak.
std::vector<std::string> DynamicSymbols(const std::string& bytes,
                                        const std::vector<Section>& sections, Wanted which) {
  std::vector<std::string> symbols;
  for (const Section& s : sections) {
    if (s.header.sh_type != SHT_DYNSYM || s.header.sh_link >= sections.size()) continue;
    const Elf64_Shdr& strings = sections[s.header.sh_link].header;
    const uint64_t count = s.header.sh_entsize ? s.header.sh_size / s.header.sh_entsize : 0;
    for (uint64_t i = 0; i < count; ++i) {
      Elf64_Sym sym{};
      if (!ReadAt(bytes, s.header.sh_offset + i * sizeof(Elf64_Sym), &sym)) break;
      const int bind = ELF64_ST_BIND(sym.st_info);
      const bool global = bind == STB_GLOBAL || bind == STB_WEAK;
      const bool undefined = sym.st_shndx == SHN_UNDEF;
      const bool wanted = which == Wanted::kDefined     ? !undefined && global
                          : which == Wanted::kUndefined ? undefined && global
                                                        : undefined && bind == STB_WEAK;
      if (!wanted) continue;
      std::string name;
      for (uint64_t at = strings.sh_offset + sym.st_name; at < bytes.size() && bytes[at] != '\0';
           ++at) {
        name.push_back(bytes[at]);
      }
      if (!name.empty()) symbols.push_back(name);
    }
  }
  return symbols;
}

int CollectLibrary(dl_phdr_info* info, size_t, void* data) {
  auto* paths = static_cast<std::vector<std::string>*>(data);
  const std::string name = info->dlpi_name ? info->dlpi_name : "";
  if (name.find("/libc.so") != std::string::npos || name.find("/libm.so") != std::string::npos) {
    paths->push_back(name);
  }
  return 0;
}

}  // namespace

Result<ObjectFacts> InspectSharedObject(const std::string& bytes) {
  CANNBOT_ASSIGN_OR_RETURN(std::vector<Section> sections, Sections(bytes));
  ObjectFacts facts;
  for (const Section& s : sections) {
    const uint64_t entries = s.header.sh_size / sizeof(uint64_t);
    if (s.name == ".init_array" || s.name == ".ctors" || s.name == ".preinit_array") {
      facts.init_functions += entries;
    }
    if (s.name == ".fini_array" || s.name == ".dtors") facts.fini_functions += entries;
    if (s.name == ".init" || s.name == ".fini") facts.init_code_bytes += s.header.sh_size;
    if (s.header.sh_type == SHT_RELA && s.header.sh_entsize == sizeof(Elf64_Rela)) {
      for (uint64_t i = 0; i < s.header.sh_size / sizeof(Elf64_Rela); ++i) {
        Elf64_Rela rela{};
        if (!ReadAt(bytes, s.header.sh_offset + i * sizeof(Elf64_Rela), &rela)) break;
        if (ELF64_R_TYPE(rela.r_info) == R_X86_64_IRELATIVE) ++facts.load_time_resolvers;
      }
    }
    if (s.header.sh_type == SHT_DYNSYM || s.header.sh_type == SHT_SYMTAB) {
      for (uint64_t i = 0; s.header.sh_entsize && i < s.header.sh_size / s.header.sh_entsize; ++i) {
        Elf64_Sym sym{};
        if (!ReadAt(bytes, s.header.sh_offset + i * sizeof(Elf64_Sym), &sym)) break;
        if (ELF64_ST_TYPE(sym.st_info) == STT_GNU_IFUNC && sym.st_shndx != SHN_UNDEF) {
          ++facts.load_time_resolvers;
        }
      }
    }
  }
  facts.defined_symbols = DynamicSymbols(bytes, sections, Wanted::kDefined);
  facts.undefined_symbols = DynamicSymbols(bytes, sections, Wanted::kUndefined);
  facts.weak_references = DynamicSymbols(bytes, sections, Wanted::kWeakUndefined);
  return facts;
}

const std::set<std::string>& SystemLibrarySymbols() {
  static const std::set<std::string> symbols = [] {
    std::set<std::string> out;
    std::vector<std::string> paths;
    dl_iterate_phdr(CollectLibrary, &paths);
    for (const std::string& path : paths) {
      auto bytes = ReadFile(path, 64u << 20);
      if (!bytes.ok()) continue;
      auto sections = Sections(*bytes);
      if (!sections.ok()) continue;
      for (std::string& name : DynamicSymbols(*bytes, *sections, Wanted::kDefined)) out.insert(name);
    }
    // The runner's own libraries, which this process does not load.
    for (const char* name : {"ffi_call", "ffi_prep_cif", "seccomp_load", "seccomp_init"}) {
      out.insert(name);
    }
    return out;
  }();
  return symbols;
}

std::string CheckObjectFacts(const ObjectFacts& candidate, const ObjectFacts& plain,
                             const std::vector<std::string>& runtime_markers) {
  if (candidate.load_time_resolvers > plain.load_time_resolvers) {
    return "the kernel runs code when it is loaded (an IFUNC resolver, e.g. "
           "__attribute__((ifunc)) or target_clones); kernels must not run code outside "
           "their call";
  }
  if (candidate.init_code_bytes > plain.init_code_bytes) {
    return "the kernel adds code to the .init or .fini section, which runs when it is loaded "
           "or unloaded; kernels must not run code outside their call";
  }
  if (candidate.init_functions > plain.init_functions) {
    return "the kernel runs code when it is loaded (a static constructor, a global object "
           "with a constructor or a destructor to register, or a header such as <iostream> "
           "that adds one); kernels must not run code outside their call";
  }
  // The start-up files call their weak hooks at load time when the object defines them (a
  // kernel defining __gmon_start__ or _ITM_registerTMCloneTable ran code inside dlopen).
  for (const std::string& hook : plain.weak_references) {
    const auto& open = candidate.undefined_symbols;
    if (std::find(open.begin(), open.end(), hook) == open.end()) {
      return "the kernel defines " + ShowableText(hook, 200) +
             ", a hook the toolchain's start-up code calls when the object is loaded; kernels "
             "must not run code outside their call";
    }
  }
  if (candidate.fini_functions > plain.fini_functions) {
    return "the kernel runs code when it is unloaded (a static destructor); kernels must not "
           "run code outside their call";
  }
  const std::set<std::string>& system = SystemLibrarySymbols();
  // What every kernel built this way defines (_init, _fini, a target's inline helpers), except
  // the reference's own names: a candidate must never define those.
  std::set<std::string> toolchain;
  for (const std::string& name : plain.defined_symbols) {
    if (name.find("cannbot_ref") == std::string::npos) toolchain.insert(name);
  }
  for (const std::string& name : candidate.defined_symbols) {
    if (toolchain.count(name) > 0) continue;
    bool runtime = false;
    for (const std::string& marker : runtime_markers) {
      runtime = runtime || name.find(marker) != std::string::npos;
    }
    if (runtime) continue;
    if (name.find("cannbot") != std::string::npos) {
      return "the kernel defines " + ShowableText(name, 200) + ", a name reserved for cannbot's harness";
    }
    if (system.count(name) > 0) {
      return "the kernel defines " + ShowableText(name, 200) +
             ", a C library function, which could shadow what the harness relies on";
    }
  }
  return "";
}

}  // namespace cannbot::validator
