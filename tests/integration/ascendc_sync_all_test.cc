// Blocks that wait for each other (SyncAll) and accumulate into one tensor (SetAtomicAdd): the
// example package reduce_sum_atomic splits each row's columns over the cores, zeroes y in
// shares, waits at SyncAll, and adds its partial sums atomically. It passes; without either
// half of that protocol it computes wrong sums; what would hang on the device (a block that
// skips the barrier, more blocks than cores, the hard form without a workspace, the soft form
// on a workspace never zeroed) and an atomic mode of another type are each named.
#include <gtest/gtest.h>

#include "builtin_ops.h"
#include "cannbot/engine/package_validation.h"
#include "integration/package_support.h"
#include "integration/test_support.h"

namespace cannbot::engine {
namespace {

const char* const kPackage = "reduce_sum_atomic";
const char* const kHardSync = "    SyncAll();  // no core adds into y before every share of it is zero";

class AscendcSyncAllTest : public testing::BuiltInValidatorTest {
 protected:

  // The example with `edits`: "" when every case passed, else the one run's failure.
  std::string Failure(const testing::TextEdits& edits) {
    PackageRequest request;
    request.op = "reduce_sum";
    request.seed = 3;
    auto package =
        ascendc::PackageFromFiles(kPackage, testing::EditedExamplePackage(kPackage, edits));
    EXPECT_TRUE(package.ok()) << package.status().ToString();
    if (!package.ok()) return "no package";
    request.candidate = *package;
    auto report = ValidatePackage(*validator_, cannbot_test::BuiltInOps(), request);
    EXPECT_TRUE(report.ok()) << report.status().ToString();
    if (!report.ok()) return "no report";
    EXPECT_EQ(report->runs.size(), 1u) << report->RenderText();
    if (report->runs.size() != 1 || !report->runs[0].check) return "no check";
    return report->runs[0].check->ok ? "" : report->runs[0].check->reason;
  }

  // The soft SyncAll through the workspace, which every block zeroes first unless `zero` is
  // false.
  static testing::TextEdits SoftSync(bool zero) {
    const std::string zeroing =
        zero ? "    Duplicate(ubFlags, 0, static_cast<int32_t>(GetBlockNum() * 8));\n"
               "    PipeBarrier<PIPE_ALL>();\n"
               "    DataCopy(flags, ubFlags, GetBlockNum() * 8);\n"
               "    PipeBarrier<PIPE_ALL>();\n"
             : "";
    return {{kHardSync,
             "    GlobalTensor<int32_t> flags;\n"
             "    flags.SetGlobalBuffer((__gm__ int32_t*)syncWorkspace, GetBlockNum() * 8);\n"
             "    LocalTensor<int32_t> ubFlags = flagBuf_.Get<int32_t>();\n" +
                 zeroing + "    SyncAll(flags, ubFlags);"},
            {"  TBuf<QuePosition::VECCALC> work_;",
             "  TBuf<QuePosition::VECCALC> work_;\n  TBuf<QuePosition::VECCALC> flagBuf_;\n"
             " public:\n  GM_ADDR syncWorkspace = nullptr;\n private:"},
            {"    pipe_.InitBuffer(work_, tiling.colsPerCore * sizeof(float));",
             "    pipe_.InitBuffer(work_, tiling.colsPerCore * sizeof(float));\n"
             "    pipe_.InitBuffer(flagBuf_, GetBlockNum() * 32);"},
            {"  op.Init(x, y, tilingData);", "  op.syncWorkspace = workspace;\n  op.Init(x, y, tilingData);"}};
  }

};

// Every shape passes, with many blocks on the long rows; without the barrier a block adds
// into a share of y not yet zeroed, and without the atomic mode the last block's sums
// overwrite the others': both are wrong numbers, caught by the numeric layer.
TEST_F(AscendcSyncAllTest, TheBarrierAndTheAtomicAddAreEachNeeded) {
  EXPECT_EQ(Failure({}), "");
  EXPECT_EQ(Failure(SoftSync(/*zero=*/true)), "");

  const std::string no_barrier = Failure({{kHardSync, ""}});
  EXPECT_NE(no_barrier.find("fails the CANN precision standard"), std::string::npos)
      << no_barrier;
  const std::string overwrites = Failure({{"    SetAtomicAdd<float>();\n", ""}});
  EXPECT_NE(overwrites.find("fails the CANN precision standard"), std::string::npos)
      << overwrites;
}

TEST_F(AscendcSyncAllTest, WhatWouldHangOnTheDeviceIsNamed) {
  const std::string skipped =
      Failure({{"    SyncAll();  // no core", "    if (GetBlockIdx() == 0) SyncAll();  // no core"}});
  EXPECT_NE(skipped.find("rule sync-all: block 1 returned after 0 SyncAll call(s) while block 0 "
                         "waits at SyncAll number 1"),
            std::string::npos)
      << skipped;

  const std::string waves =
      Failure({{"context->SetBlockDim(blockDim);", "context->SetBlockDim(blockDim + cores);"}});
  EXPECT_NE(waves.find("rule sync-all: SyncAll() in a launch of"), std::string::npos) << waves;
  EXPECT_NE(waves.find("SyncAll needs a block dim of at most the core count"), std::string::npos)
      << waves;

  const std::string no_workspace = Failure(
      {{"workspaces[0] = platform.GetLibApiWorkSpaceSize();", "workspaces[0] = 0;"}});
  EXPECT_NE(no_workspace.find("SyncAll() in a launch whose tiling asked for no workspace"),
            std::string::npos)
      << no_workspace;

  const std::string unzeroed = Failure(SoftSync(/*zero=*/false));
  EXPECT_NE(unzeroed.find("finds byte 0 of gmWorkspace not zero"), std::string::npos)
      << unzeroed;
}

TEST_F(AscendcSyncAllTest, AnAtomicModeOfAnotherTypeIsNamed) {
  const std::string reason =
      Failure({{"SetAtomicAdd<float>();", "SetAtomicAdd<half>();"}});
  EXPECT_NE(reason.find("rule bad-argument: DataCopyPad(UB->GM) copies float32 elements to "
                        "global memory while the atomic mode is set for float16"),
            std::string::npos)
      << reason;
}

}  // namespace
}  // namespace cannbot::engine
