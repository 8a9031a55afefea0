// Memory cgroups for the runner (memory_cgroup.h): a real cgroup per child inside this
// process's group, joined by the runner before it runs a kernel, a kernel killed past its
// limit reported as such, and every group removed once its child is gone. Where this machine
// has no writable memory controller the tests say so and skip (the rlimits still hold).
#include "cannbot/validator/memory_cgroup.h"

#include <dirent.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "builtin_ops.h"
#include "cannbot/store/store.h"
#include "cannbot/util/fs.h"
#include "cannbot/validator/compiler.h"
#include "cannbot/validator/kernel_runner.h"
#include "cannbot/validator/numeric_check.h"
#include "cannbot/validator/tensor_layout.h"

namespace cannbot::validator {
namespace {

constexpr auto kTouchCallTimeout = std::chrono::milliseconds(20000);

// An `add` kernel that first fills `mib` MiB of fresh memory, page by page.
std::string TouchingKernel(int mib) {
  return "#include <cstdint>\n#include <cstdlib>\n#include <cstring>\n"
         "extern \"C\" void add(const float* a, const float* b, float* y, int64_t n) {\n"
         "  const size_t bytes = size_t{" + std::to_string(mib) + "} << 20;\n"
         "  char* p = static_cast<char*>(std::malloc(bytes));\n"
         "  if (p != nullptr) {\n"
         "    for (size_t i = 0; i < bytes; i += 4096) p[i] = static_cast<char>(i);\n"
         "    y[0] = static_cast<float>(p[bytes / 2]);\n"
         "  }\n"
         "  for (int64_t i = 0; i < n; ++i) y[i] = a[i] + b[i];\n"
         "  std::free(p);\n"
         "}\n";
}

std::vector<std::string> Subdirectories(const std::string& path) {
  std::vector<std::string> names;
  DIR* dir = ::opendir(path.c_str());
  if (dir == nullptr) return names;
  while (dirent* entry = ::readdir(dir)) {
    const std::string name = entry->d_name;
    if (entry->d_type == DT_DIR && name != "." && name != "..") names.push_back(name);
  }
  ::closedir(dir);
  return names;
}

class MemoryCgroupTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto groups = PrepareMemoryCgroups({});
    ASSERT_TRUE(groups.ok()) << groups.status().ToString();
    if (!groups->enabled()) GTEST_SKIP() << "no memory cgroups here: " << groups->why_not;
    groups_ = *groups;
    auto dir = TempDir::Create("cannbot-cgroup-test");
    ASSERT_TRUE(dir.ok());
    dir_ = std::make_unique<TempDir>(std::move(dir).value());
    auto store = store::Store::Open(dir_->File("store.db"));
    ASSERT_TRUE(store.ok());
    store_ = std::move(store).value();
    op_ = cannbot_test::BuiltInOps().Find("add");
    shape_.label = "test";
    shape_.sizes = {{"n", 1000}};
    layout_ = CallLayout::Plan(*op_, shape_, 0);
  }

  // `source` built, loaded into a runner whose memory cgroups are `groups`, called once.
  Result<CallTiming> Run(const std::string& source, const MemoryCgroups& groups,
                         std::string* memory_limit) {
    CompilerConfig compile;
    compile.source_check = false;
    compile.memory_cgroups = groups_;  // the compiler runs in a group of its own too
    Compiler compiler(compile, store_.get());
    auto built = compiler.Compile(*op_, source, dir_->path(), "touch");
    if (!built.ok()) return built.status();
    if (!built->ok) return Status::Internal(built->reason + "\n" + built->log);
    RunnerConfig config;
    config.memory_cgroups = groups;
    CANNBOT_ASSIGN_OR_RETURN(auto runner, KernelRunner::Start(config, layout_.end, dir_->path()));
    *memory_limit = runner->DescribeMemoryLimit();
    EXPECT_EQ(Subdirectories(groups.dir).size(), 1u) << "the runner's own group";
    CANNBOT_RETURN_IF_ERROR(runner->Load(0, built->shared_object_path, "add", ArgKinds(*op_)));
    CANNBOT_RETURN_IF_ERROR(runner->Seal());
    return runner->Call(0, {layout_.Args(*op_, shape_)}, 1, kTouchCallTimeout);
  }

  MemoryCgroups groups_;
  std::unique_ptr<TempDir> dir_;
  std::unique_ptr<store::Store> store_;
  const ops::OpSpec* op_ = nullptr;
  ops::Shape shape_;
  CallLayout layout_;
};

TEST_F(MemoryCgroupTest, AKernelWithinItsJobsMemoryRunsAndItsGroupIsRemovedAfterwards) {
  std::string limit;
  auto call = Run(TouchingKernel(16), groups_, &limit);
  ASSERT_TRUE(call.ok()) << call.status().ToString();
  EXPECT_NE(limit.find("a cgroup v" + std::to_string(groups_.version) + " memory limit of"),
            std::string::npos) << limit;
  EXPECT_NE(limit.find("and an address-space limit of"), std::string::npos) << limit;
  EXPECT_TRUE(Subdirectories(groups_.dir).empty()) << "a child's group outlived it";
}

// Under a process-wide budget of 96 MiB every child's limit is at most that: a kernel that
// touches 256 MiB (well inside its 1 GiB address-space limit) is killed by the cgroup, and
// the report says it was its memory.
TEST_F(MemoryCgroupTest, AKernelPastItsGroupsLimitIsKilledAndToldSo) {
  MemoryCgroups small = groups_;
  small.total_limit_bytes = 96u << 20;
  std::string limit;
  auto call = Run(TouchingKernel(256), small, &limit);
  ASSERT_FALSE(call.ok());
  EXPECT_EQ(call.status().code(), Status::Code::kAborted) << call.status().ToString();
  EXPECT_NE(call.status().message().find("the kernel used more memory than its job may (a "
                                         "cgroup v"),
            std::string::npos)
      << call.status().message();
  EXPECT_TRUE(Subdirectories(groups_.dir).empty()) << "a child's group outlived it";
}

// A process that ends normally leaves no group behind: the group goes with the last copy of
// what PrepareMemoryCgroups returned, and a child made after that makes it again.
TEST_F(MemoryCgroupTest, TheProcessGroupGoesWithItsLastOwnerAndComesBackWhenNeeded) {
  const std::string dir = groups_.dir;
  ASSERT_EQ(::access(dir.c_str(), F_OK), 0);
  groups_.owner.reset();
  EXPECT_NE(::access(dir.c_str(), F_OK), 0) << dir << " outlived its owner";
  auto again = PrepareMemoryCgroups({});
  ASSERT_TRUE(again.ok() && again->enabled());
  {
    MemoryCgroups stale = *again;
    again->owner.reset();  // `stale` still holds it
    EXPECT_EQ(::access(dir.c_str(), F_OK), 0);
    stale.owner.reset();
    ASSERT_NE(::access(dir.c_str(), F_OK), 0);
    auto child = MemoryCgroup::Create(stale, "child", 64u << 20);
    ASSERT_TRUE(child.ok()) << child.status().ToString();
    EXPECT_EQ(::access(dir.c_str(), F_OK), 0) << "the process group was not made again";
  }
  ::rmdir(dir.c_str());
}

TEST(MemoryCgroupConfigTest, OffNeverUsesOneAndAnUnknownModeIsRefused) {
  MemoryCgroupConfig off;
  off.mode = "off";
  auto none = PrepareMemoryCgroups(off);
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->enabled());
  EXPECT_NE(none->why_not.find("off"), std::string::npos);
  MemoryCgroupConfig odd;
  odd.mode = "sometimes";
  auto refused = PrepareMemoryCgroups(odd);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("\"auto\", \"require\" or \"off\""),
            std::string::npos);
}

}  // namespace
}  // namespace cannbot::validator
