#include "cannbot/validator/object_inspector.h"

#include <elf.h>
#include <link.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "cannbot/util/fs.h"

namespace cannbot::validator {
namespace {

bool Contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// The path of this process's C library, as the dynamic loader reports it.
std::string LoadedLibcPath() {
  std::string path;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        const std::string name = info->dlpi_name ? info->dlpi_name : "";
        if (name.find("/libc.so") != std::string::npos) {
          *static_cast<std::string*>(data) = name;
          return 1;
        }
        return 0;
      },
      &path);
  return path;
}

// DT_PREINIT_ARRAYSZ + DT_INIT_ARRAYSZ and DT_FINI_ARRAYSZ of the main program, read from its
// loaded dynamic section (what the dynamic loader acts on), not from the file's section
// headers. (A sanitizer runtime puts its own start-up in the pre-init array.)
struct ArraySizes {
  bool found = false;
  uint64_t init_bytes = 0;
  uint64_t fini_bytes = 0;
};

ArraySizes MainProgramArraySizes() {
  ArraySizes sizes;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        auto* out = static_cast<ArraySizes*>(data);
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          if (info->dlpi_phdr[i].p_type != PT_DYNAMIC) continue;
          const auto* dyn =
              reinterpret_cast<const ElfW(Dyn)*>(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
          for (; dyn->d_tag != DT_NULL; ++dyn) {
            if (dyn->d_tag == DT_INIT_ARRAYSZ || dyn->d_tag == DT_PREINIT_ARRAYSZ) {
              out->init_bytes += dyn->d_un.d_val;
            }
            if (dyn->d_tag == DT_FINI_ARRAYSZ) out->fini_bytes = dyn->d_un.d_val;
          }
          out->found = true;
        }
        return 1;  // the first object is the main program
      },
      &sizes);
  return sizes;
}

// This test binary's own file (an instrumented build with debug information is large).
std::string SelfExecutable() {
  auto bytes = ReadFile("/proc/self/exe", size_t{2} << 30);
  EXPECT_TRUE(bytes.ok()) << bytes.status().ToString();
  return bytes.ok() ? *bytes : std::string();
}

// --- InspectSharedObject ----------------------------------------------------------------

TEST(ObjectInspectorTest, RejectsGarbage) {
  EXPECT_FALSE(InspectSharedObject("").ok());
  EXPECT_FALSE(InspectSharedObject("hello, this is not an object file at all").ok());
  std::string noise(4096, '\0');
  for (size_t i = 0; i < noise.size(); ++i) noise[i] = static_cast<char>(i * 131 + 7);
  auto facts = InspectSharedObject(noise);
  ASSERT_FALSE(facts.ok());
  EXPECT_NE(facts.status().message().find("not an ELF"), std::string::npos)
      << facts.status().ToString();
}

TEST(ObjectInspectorTest, RejectsATruncatedHeader) {
  const std::string real = SelfExecutable();
  ASSERT_GT(real.size(), sizeof(Elf64_Ehdr));
  ASSERT_TRUE(InspectSharedObject(real).ok());  // the whole file is fine
  // The ELF magic is there, but the header stops half way.
  EXPECT_FALSE(InspectSharedObject(real.substr(0, 20)).ok());
  EXPECT_FALSE(InspectSharedObject(real.substr(0, sizeof(Elf64_Ehdr) - 1)).ok());
  // A complete header whose section header table lies past the end of the file.
  auto cut = InspectSharedObject(real.substr(0, 4096));
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.status().message().find("truncated"), std::string::npos)
      << cut.status().ToString();
}

TEST(ObjectInspectorTest, Rejects32BitElf) {
  Elf32_Ehdr header{};
  std::memcpy(header.e_ident, ELFMAG, SELFMAG);
  header.e_ident[EI_CLASS] = ELFCLASS32;
  header.e_ident[EI_DATA] = ELFDATA2LSB;
  header.e_ident[EI_VERSION] = EV_CURRENT;
  header.e_type = ET_DYN;
  header.e_machine = EM_386;
  header.e_version = EV_CURRENT;
  header.e_ehsize = sizeof(Elf32_Ehdr);
  header.e_shentsize = sizeof(Elf32_Shdr);
  std::string bytes(reinterpret_cast<const char*>(&header), sizeof(header));
  bytes.resize(4096, '\0');  // long enough that only the class can be the reason
  auto facts = InspectSharedObject(bytes);
  ASSERT_FALSE(facts.ok());
  EXPECT_NE(facts.status().message().find("64-bit"), std::string::npos)
      << facts.status().ToString();

  // The same check on a real 64-bit object whose class byte says 32-bit.
  std::string relabelled = SelfExecutable();
  ASSERT_GT(relabelled.size(), static_cast<size_t>(EI_CLASS));
  relabelled[EI_CLASS] = ELFCLASS32;
  EXPECT_FALSE(InspectSharedObject(relabelled).ok());
}

TEST(ObjectInspectorTest, RejectsBigEndianElf) {
  std::string relabelled = SelfExecutable();
  ASSERT_GT(relabelled.size(), static_cast<size_t>(EI_DATA));
  relabelled[EI_DATA] = ELFDATA2MSB;
  EXPECT_FALSE(InspectSharedObject(relabelled).ok());
}

TEST(ObjectInspectorTest, ListsLibcFunctionsAmongDefinedSymbols) {
  const std::string path = LoadedLibcPath();
  ASSERT_FALSE(path.empty()) << "this process has no libc.so loaded";
  auto bytes = ReadFile(path, 64u << 20);
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  auto facts = InspectSharedObject(*bytes);
  ASSERT_TRUE(facts.ok()) << facts.status().ToString();
  EXPECT_TRUE(Contains(facts->defined_symbols, "memcmp")) << path;
  EXPECT_TRUE(Contains(facts->defined_symbols, "clock_gettime")) << path;
  EXPECT_TRUE(Contains(facts->defined_symbols, "dl_iterate_phdr")) << path;
  EXPECT_GT(facts->defined_symbols.size(), 500u);
  EXPECT_FALSE(Contains(facts->defined_symbols, "")) << "empty names must be skipped";
}

TEST(ObjectInspectorTest, ImportedSymbolsAreNotListedAsDefined) {
  // This test binary calls dl_iterate_phdr, so its dynamic symbol table names it, but as an
  // undefined import from libc.
  auto facts = InspectSharedObject(SelfExecutable());
  ASSERT_TRUE(facts.ok()) << facts.status().ToString();
  EXPECT_FALSE(Contains(facts->defined_symbols, "dl_iterate_phdr"));
  EXPECT_FALSE(Contains(facts->defined_symbols, "memcmp"));
}

TEST(ObjectInspectorTest, CountsInitAndFiniEntriesAsTheLoaderSeesThem) {
  const ArraySizes loaded = MainProgramArraySizes();
  ASSERT_TRUE(loaded.found);
  // gtest registers each TEST with a static initializer: this binary certainly has some.
  ASSERT_GT(loaded.init_bytes, 0u);
  auto facts = InspectSharedObject(SelfExecutable());
  ASSERT_TRUE(facts.ok()) << facts.status().ToString();
  EXPECT_EQ(facts->init_functions, loaded.init_bytes / sizeof(void*));
  EXPECT_EQ(facts->fini_functions, loaded.fini_bytes / sizeof(void*));
}

// --- SystemLibrarySymbols ---------------------------------------------------------------

TEST(ObjectInspectorTest, SystemLibrarySymbolsHoldLibcAndLibmNames) {
  const std::set<std::string>& symbols = SystemLibrarySymbols();
  EXPECT_EQ(symbols.count("memcmp"), 1u);
  EXPECT_EQ(symbols.count("clock_gettime"), 1u);
  EXPECT_EQ(symbols.count("malloc"), 1u);
  EXPECT_EQ(symbols.count("gettimeofday"), 1u);
  EXPECT_EQ(symbols.count("expf"), 1u);  // libm
  EXPECT_EQ(symbols.count("ffi_call"), 1u);  // the runner's own libraries
  EXPECT_EQ(symbols.count("cannbot_surely_not_a_libc_function_4711"), 0u);
  EXPECT_EQ(symbols.count("swish"), 0u);
  EXPECT_EQ(&symbols, &SystemLibrarySymbols());  // computed once
}

// --- CheckObjectFacts -------------------------------------------------------------------

ObjectFacts Plain() {
  ObjectFacts plain;
  plain.init_functions = 1;  // what the toolchain's start-up files add
  plain.fini_functions = 1;
  plain.defined_symbols = {"_init", "_fini", "swish"};
  return plain;
}

TEST(ObjectInspectorTest, CleanCandidateHasNoReason) {
  EXPECT_EQ(CheckObjectFacts(Plain(), Plain()), "");
  ObjectFacts candidate = Plain();
  candidate.defined_symbols.push_back("my_helper_table");
  EXPECT_EQ(CheckObjectFacts(candidate, Plain()), "");
  candidate.init_functions = 0;  // fewer than plain is fine
  candidate.fini_functions = 0;
  EXPECT_EQ(CheckObjectFacts(candidate, Plain()), "");
}

TEST(ObjectInspectorTest, MoreInitEntriesThanPlainMeansCodeAtLoad) {
  ObjectFacts candidate = Plain();
  candidate.init_functions = 2;
  const std::string reason = CheckObjectFacts(candidate, Plain());
  EXPECT_NE(reason.find("loaded"), std::string::npos) << reason;
  EXPECT_EQ(reason.find("unloaded"), std::string::npos) << reason;
}

TEST(ObjectInspectorTest, MoreFiniEntriesThanPlainMeansCodeAtUnload) {
  ObjectFacts candidate = Plain();
  candidate.fini_functions = 3;
  const std::string reason = CheckObjectFacts(candidate, Plain());
  EXPECT_NE(reason.find("unloaded"), std::string::npos) << reason;
}

TEST(ObjectInspectorTest, DefiningALibcFunctionIsNamed) {
  for (const char* name : {"memcmp", "clock_gettime", "malloc", "gettimeofday"}) {
    ObjectFacts candidate = Plain();
    candidate.defined_symbols.push_back(name);
    const std::string reason = CheckObjectFacts(candidate, Plain());
    EXPECT_NE(reason.find(std::string("defines ") + name), std::string::npos) << reason;
    EXPECT_NE(reason.find("C library"), std::string::npos) << reason;
  }
}

TEST(ObjectInspectorTest, DefiningACannbotNameIsReported) {
  for (const char* name : {"cannbot_verdict", "cannbot_compare", "my_cannbot_hook",
                           "_ZN11cannbot_ref5swishEPKfPfl"}) {
    ObjectFacts candidate = Plain();
    candidate.defined_symbols.push_back(name);
    const std::string reason = CheckObjectFacts(candidate, Plain());
    EXPECT_NE(reason.find(name), std::string::npos) << reason;
    EXPECT_NE(reason.find("reserved"), std::string::npos) << reason;
  }
}

TEST(ObjectInspectorTest, NamesThePlainBuildDefinesAreIgnored) {
  ObjectFacts plain = Plain();
  plain.defined_symbols.push_back("memcmp");
  ObjectFacts candidate = Plain();
  candidate.defined_symbols.push_back("memcmp");
  EXPECT_EQ(CheckObjectFacts(candidate, plain), "");
  // Reserved names are refused even when the plain build has them (the reference's own
  // weak cannbot_ref symbols must not be a loophole).
  plain.defined_symbols.push_back("_ZN11cannbot_ref11dwsep_blockEv");
  candidate.defined_symbols.push_back("_ZN11cannbot_ref11dwsep_blockEv");
  EXPECT_NE(CheckObjectFacts(candidate, plain).find("reserved"), std::string::npos);
  candidate.defined_symbols.pop_back();
  // ...but only those: one more libc name is still caught.
  candidate.defined_symbols.push_back("clock_gettime");
  EXPECT_NE(CheckObjectFacts(candidate, plain).find("clock_gettime"), std::string::npos);
}

}  // namespace
}  // namespace cannbot::validator
