// Honest kernels for the static source check (CheckSource in
// cannbot/validator/source_check.h). Each rule has kernels that look like the cheat it
// rejects (a similar name, the same header, a harmless use of the same construct) and must
// pass: a rule rejects a behaviour, not a spelling. The cheats themselves, and every other
// CheckSource test, are in source_check_test.cc.
#include "cannbot/validator/source_check.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "source_check_support.h"

namespace cannbot::validator {
namespace {

using namespace source_check_test;  // NOLINT: the shared test vocabulary

// One honest kernel: `} ... void pad() {` puts its line at file scope.
struct HonestCase {
  const char* name;
  const char* rule;  // the rule the line resembles
  const char* line;  // placed on line 5 of a kernel
};

class SourceCheckHonestTest : public ::testing::TestWithParam<HonestCase> {};

TEST_P(SourceCheckHonestTest, LooksLikeTheCheatButPasses) {
  const std::vector<SourceFinding> findings =
      CheckSource(AtLineFive(GetParam().line));
  EXPECT_TRUE(findings.empty()) << "like '" << GetParam().rule
                                << "': " << Render(findings);
}

INSTANTIATE_TEST_SUITE_P(
    Honest, SourceCheckHonestTest,
    ::testing::Values(
        HonestCase{"ThreadCount", kThreads,
                   "static thread_local float scratch[16]; "
                   "y[0] = std::thread::hardware_concurrency() > 8 ? scratch[0] : 1.0f;"},
        HonestCase{"DeferredAsync", kThreads,
                   "auto later = std::async(std::launch::deferred, [&] { return x[0]; }); "
                   "y[0] = later.get();"},
        // Honoured by -fopenmp-simd; the others compile to one thread without the runtime.
        HonestCase{"OmpSimd", kOpenmp, "#pragma omp simd"},
        HonestCase{"OmpSimdClauses", kOpenmp,
                   "#pragma omp simd reduction(+ : s) aligned(x : 32)"},
        HonestCase{"OmpParallelFor", kOpenmp, "#pragma omp parallel for schedule(static)"},
        HonestCase{"OmpDeclareSimd", kOpenmp,
                   "}\n#pragma omp declare simd\nstatic float Sq(float v) { return v * v; }\n"
                   "void pad() {"},
        // _OPENMP is never defined (no -fopenmp): this code is not compiled.
        HonestCase{"OmpGuardedRuntime", kOpenmp,
                   "\n#ifdef _OPENMP\n  const int t = omp_get_max_threads(); (void)t;\n#endif"},
        HonestCase{"OmpIfndefElse", kOpenmp,
                   "\n#if !defined(_OPENMP)\n  y[0] = 1;\n#elif 1\n  omp_set_num_threads(2);\n"
                   "#else\n  omp_set_num_threads(4);\n#endif"},
        // Each of these was rejected (red team, honest kernels in real projects' styles).
        HonestCase{"OmpVersionGuard", kOpenmp,
                   "\n#if defined(_OPENMP) && (_OPENMP >= 201307)\n#include <omp.h>\n"
                   "  y[0] = omp_get_max_threads();\n#endif"},
        HonestCase{"OmpProjectSwitch", kOpenmp,
                   "\n#ifdef USE_OPENMP\n#include <omp.h>\n  omp_set_num_threads(4);\n#endif"},
        HonestCase{"OmpPortableStub", kOpenmp,
                   "\n#ifdef _OPENMP\n#include <omp.h>\n#else\n#define omp_get_thread_num() 0\n"
                   "#endif\n  y[omp_get_thread_num()] = x[0];"},
        HonestCase{"OwnHelperNamedOmp", kOpenmp,
                   "}\nstatic int omp_thread_count() { return 1; }\nvoid pad() {\n"
                   "  y[0] = omp_thread_count();"},
        HonestCase{"AnonymousMmap", kFiles,
                   "void* scratch = mmap(nullptr, 1 << 21, PROT_READ | PROT_WRITE, "
                   "MAP_PRIVATE | MAP_ANONYMOUS, -1, 0); munmap(scratch, 1 << 21);"},
        HonestCase{"AbortOnFailedAllocation", kExit,
                   "float* e = static_cast<float*>(std::aligned_alloc(64, 64));\n"
                   "  if (__builtin_expect(e == nullptr, 0)) std::abort();"},
        HonestCase{"MemberFunctionsNamedLikeCalls", kProcesses,
                   "}\nstruct RowStats { RowStats clone() const { return *this; } };\n"
                   "struct FtzScope { void exit() {} };\nvoid pad() {"},
        HonestCase{"ErrorWithAnApostropheInADeadBranch", kExit,
                   "\n#ifndef __AVX512F__\n#error This kernel can't be built without AVX-512\n"
                   "#endif\n  // It's a pure function: it never calls exit() or abort()."},
        HonestCase{"MemberClone", kProcesses, "Tile copy = tile.clone();"},  // was rejected
        HonestCase{"LambdaNamedExecute", kProcesses,
                   "auto execute = [&](int64_t i) { y[i] = x[i]; }; execute(0);"},
        HonestCase{"AlignedAllocations", kFiles,
                   "alignas(64) float tile[16]; (void)tile; void* p = nullptr;\n"
                   "  float* __restrict s = static_cast<float*>(std::aligned_alloc(64, 64));\n"
                   "  if (posix_memalign(&p, 64, 64) == 0) std::free(p); std::free(s);"},
        HonestCase{"StdBind", kNetwork,  // was rejected
                   "auto scale = std::bind(Multiply, std::placeholders::_1, 2.0f);"},
        HonestCase{"VariableNamedSignal", kSignals,
                   "const float signal = x[0]; y[0] = std::signbit(signal) ? 0.0f : signal;"},
        HonestCase{"AssertAndExp", kExit,
                   "assert(n >= 0); const float e = std::exp(-x[0]); (void)e;"},
        HonestCase{"AsmBarrier", kSyscall, "asm volatile(\"\" ::: \"memory\");  // a barrier"},
        HonestCase{"AsmDotProduct", kSyscall,
                   "float s = 0, p; for (int64_t i = 0; i < n; ++i) {\n"
                   "    asm(\"vmulss %[b], %[a], %[p]\\n\\t\" : [p] \"=x\"(p)\n"
                   "        : [a] \"x\"(x[i]), [b] \"x\"(x[i]));\n"
                   "    s += p;\n  }\n  (void)s;"},
        HonestCase{"SyscallInAString", kSyscall,
                   "const char* note = \"no syscall, no sysenter\"; (void)note;"},
        HonestCase{"CpuDispatch", kDynamic,
                   "using Fn = float (*)(float); const Fn fn = __builtin_cpu_supports(\"avx2\")\n"
                   "      ? +[](float v) { return v; } : +[](float v) { return -v; };\n"
                   "  y[0] = fn(x[0]);"},
        HonestCase{"SpinHint", kSleeps, "_mm_pause();  // a hint to the core, not a sleep(1)"},
        HonestCase{"NameInCommentAndString", kReserved,
                   "const char* tag = \"cannbot\"; (void)tag;  // for cannbot"},
        HonestCase{"RawString", kReserved,
                   "const char* d = R\"d(\"exit(1)\", fork(), cannbot)d\"; (void)d;"},
        HonestCase{"IntrinsicsAndLookupTable", kRedefines,
                   "static const float kLut[4] = {0.5f, 1, 2, 4};\n"
                   "  _mm256_storeu_ps(y, _mm256_fmadd_ps(_mm256_loadu_ps(x),\n"
                   "                  _mm256_set1_ps(kLut[n & 3]), _mm256_setzero_ps()));"},
        HonestCase{"CallingMemcmp", kRedefines,
                   "if (memcmp(x, y, 4) == 0) { y[0] = 1; } "
                   "if (memcmp(x, y, sizeof(float))) { y[0] = 2; }"},
        HonestCase{"DeclaringMemcmp", kRedefines,
                   "} extern \"C\" int memcmp(const void* a, const void* b, size_t n); "
                   "void pad() {"},
        HonestCase{"Template", kRedefines,
                   "} template <int kU> static void Add(const float* a, float* c) {\n"
                   "  for (int u = 0; u < kU; ++u) c[u] += a[u]; } void pad() {"}),
    [](const ::testing::TestParamInfo<HonestCase>& info) { return info.param.name; });

}  // namespace
}  // namespace cannbot::validator
