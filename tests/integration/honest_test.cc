// The honest corpus (tests/fixtures/honest): kernels written in the styles real projects use
// (OpenMP pragmas, intrinsics, aligned scratch memory, lookup tables, templates, inline
// assembly, harmless questions to the system, a floating-point mode set and restored). Each
// must pass the compile and numeric layers with every defence on: the static check, the
// object check and the runner's allowlist sandbox. A defence that rejects one of them rejects
// a spelling or a harmless call, not a cheat.
#include <gtest/gtest.h>

#include "builtin_ops.h"
#include "integration/test_support.h"

namespace cannbot::validator {
namespace {

using testing::Fixture;
using testing::Kernel;

class HonestKernelTest : public ::testing::TestWithParam<const char*> {};

TEST_P(HonestKernelTest, PassesEveryDefence) {
  auto store = testing::SharedStore();
  ASSERT_NE(store, nullptr);
  ValidatorConfig config = testing::TestConfig();
  config.compiler.source_check = true;  // the static look must not object either
  Validator validator(config, store.get(), cannbot_test::BuiltInOps());
  const KernelSource kernel = Kernel(Fixture(std::string("honest/") + GetParam()));
  ASSERT_FALSE(kernel.text.empty());
  auto check = validator.CheckKernel("swish", kernel, 7);
  ASSERT_TRUE(check.ok()) << check.status().ToString();
  EXPECT_TRUE(check->ok) << LayerName(check->layer) << ": " << check->reason << "\n"
                         << check->compile.log;
  ASSERT_TRUE(check->numeric.has_value());
  EXPECT_TRUE(check->numeric->sandbox_warnings.empty());
}

INSTANTIATE_TEST_SUITE_P(Corpus, HonestKernelTest,
                         ::testing::Values("omp_simd.cpp", "aligned_scratch.cpp",
                                           "lookup_table.cpp", "templates_and_asm.cpp",
                                           "intrinsics_restores_fp_state.cpp",
                                           "asks_the_system.cpp",
                                           "prefaulted_mmap_scratch.cpp"),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           std::string name = info.param;
                           return name.substr(0, name.find('.'));
                         });

}  // namespace
}  // namespace cannbot::validator
