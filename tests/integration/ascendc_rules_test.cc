// The emulation's hardware rules: one kernel with a mode per broken rule, built once against
// targets/ascendc and run per mode; each run must abort with exactly the violation line that
// names its rule (or, for a raw dereference of global memory, die by SIGSEGV). Also: the
// compile-time rules, and a correct run of the same kernel for contrast.
#include <gtest/gtest.h>

#include <csignal>
#include <string>

#include "integration/ascendc_support.h"

namespace cannbot::ascendc {
namespace {

using cannbot::testing::SourcePath;

constexpr const char* kRulesKernel = R"(
#include <cstring>
#include "kernel_operator.h"
using namespace AscendC;

struct RuleTiling { int64_t n; int64_t mode; };

extern "C" void rules_tiling(int64_t n, int64_t mode, CannbotTiling* t) {
  RuleTiling r{n, mode};
  t->block_dim = mode == 16 ? 2 : 1;
  t->dtype_bits = 32;
  std::memcpy(t->data, &r, sizeof(r));
}

extern "C" __global__ __aicore__ void rules_kernel(GM_ADDR x, GM_ADDR y, GM_ADDR tiling) {
  const RuleTiling t = *reinterpret_cast<__gm__ const RuleTiling*>(tiling);
  // ASSERT vanishes as in the device build, argument and all (published kernels rely on it).
  const uint32_t n = static_cast<uint32_t>(t.n) ASSERT(t.n > 0 && declared_nowhere(t.n));
  GlobalTensor<float> xGm, yGm;
  xGm.SetGlobalBuffer((__gm__ float*)x, n);
  yGm.SetGlobalBuffer((__gm__ float*)y, n);
  TPipe pipe;
  TQue<QuePosition::VECIN, 1> inQ;
  TQue<QuePosition::VECOUT, 1> outQ;
  switch (t.mode) {
    case 1: {  // ub-overflow: 2 x 100 KB; the second buffer lies past the UB and is used
      pipe.InitBuffer(inQ, 2, 100 * 1024);
      LocalTensor<float> first = inQ.AllocTensor<float>();
      LocalTensor<float> second = inQ.AllocTensor<float>();
      return;
    }
    case 2: {  // copy-misaligned: 7 floats = 28 bytes
      pipe.InitBuffer(inQ, 1, n * 4);
      LocalTensor<float> a = inQ.AllocTensor<float>();
      DataCopy(a, xGm, 7);
      return;
    }
    case 3: {  // queue-over-depth: depth 1, two tensors enqueued
      pipe.InitBuffer(inQ, 2, n * 4);
      LocalTensor<float> a = inQ.AllocTensor<float>();
      LocalTensor<float> b = inQ.AllocTensor<float>();
      inQ.EnQue(a);
      inQ.EnQue(b);
      return;
    }
    case 4: {  // tensor-leak: allocated, never freed
      pipe.InitBuffer(inQ, 1, n * 4);
      LocalTensor<float> a = inQ.AllocTensor<float>();
      (void)a;
      return;
    }
    case 5:  // a scalar GM write (legal, through the data cache) into an input
      xGm.SetValue(0, 1.0f);
      return;
    case 6: {  // gm-out-of-bounds: 16 floats from an 8-float tensor
      pipe.InitBuffer(inQ, 1, 64 * 4);
      LocalTensor<float> a = inQ.AllocTensor<float>();
      DataCopy(a, xGm, 16);
      return;
    }
    case 7: {  // missing-sync: vector code on a copy that was not waited for
      pipe.InitBuffer(inQ, 1, n * 4);
      LocalTensor<float> a = inQ.AllocTensor<float>();
      DataCopy(a, xGm, n);
      Abs(a, a, static_cast<int32_t>(n));
      return;
    }
    case 8: {  // queue-empty
      pipe.InitBuffer(inQ, 1, n * 4);
      LocalTensor<float> a = inQ.DeQue<float>();
      (void)a;
      return;
    }
    case 9: {  // use-after-free
      pipe.InitBuffer(outQ, 1, n * 4);
      LocalTensor<float> a = outQ.AllocTensor<float>();
      outQ.FreeTensor(a);
      Duplicate(a, 1.0f, static_cast<int32_t>(n));
      return;
    }
    case 10: {  // vector-misaligned: an operand one float into a block
      pipe.InitBuffer(outQ, 1, n * 4);
      LocalTensor<float> a = outQ.AllocTensor<float>();
      Duplicate(a[1], 1.0f, 8);
      return;
    }
    case 11: {  // gm-write-to-input
      pipe.InitBuffer(outQ, 1, n * 4);
      LocalTensor<float> a = outQ.AllocTensor<float>();
      Duplicate(a, 1.0f, static_cast<int32_t>(n));
      outQ.EnQue(a);
      a = outQ.DeQue<float>();
      DataCopy(xGm, a, n);
      return;
    }
    case 12: {  // raw dereference of a GM address: not mapped, the process faults
      volatile float v = reinterpret_cast<__gm__ float*>(x)[0];
      (void)v;
      return;
    }
    case 13: {  // queue-exhausted: one buffer, two allocations
      pipe.InitBuffer(inQ, 1, n * 4);
      LocalTensor<float> a = inQ.AllocTensor<float>();
      LocalTensor<float> b = inQ.AllocTensor<float>();
      return;
    }
    case 14:  // sync-deadlock
      WaitFlag<HardEvent::MTE2_V>(0);
      return;
    case 15: {  // gm-dtype-mismatch: half view of a float tensor
      GlobalTensor<half> h;
      h.SetGlobalBuffer((__gm__ half*)x, n);
      pipe.InitBuffer(inQ, 1, n * 4);
      LocalTensor<half> a = inQ.AllocTensor<half>();
      DataCopy(a, h, 16);
      return;
    }
    case 22: {  // not-emulated: integer vector math the device has no integer form of compiles
                // (another dtype's branch may hold it) and stops the launch when it runs
      TBuf<QuePosition::VECCALC> ints;
      pipe.InitBuffer(ints, 1024);
      LocalTensor<int32_t> i32 = ints.Get<int32_t>();
      LocalTensor<bfloat16_t> b16 = ints.Get<bfloat16_t>();
      LocalTensor<uint8_t> bits = ints.Get<uint8_t>();
      Duplicate(i32, 7, 64);
      Add(i32, i32, i32, 64);  // Add, Adds and their repeat forms compute on 32-bit integers
      Adds(i32, i32, 3, 64);
      Add(i32, i32, i32, 64, 1, BinaryRepeatParams{});
      Exp(i32, i32, 64);  // stops here; each form below must still compile
      Exp(b16, b16, 64);
      ReduceSum(i32, i32, i32, 64);
      WholeReduceSum(i32, i32, 64, 1, 1, 1, 8);
      Compare(bits, i32, i32, CMPMODE::LT, 64);
      Axpy(i32, i32, 2, 64);
      return;
    }
    case 17: {  // too-many-buffers: 5 + 4 queue buffers at VECIN, 8 allowed (small ones: the
                // UB budget is not what breaks)
      TQue<QuePosition::VECIN, 1> third;
      pipe.InitBuffer(inQ, 5, 32);
      pipe.InitBuffer(third, 4, 32);
      return;
    }
    case 18: {  // too-many-buffers: 65 TBufs of 32 bytes
      TBuf<QuePosition::VECCALC> bufs[65];
      for (auto& b : bufs) pipe.InitBuffer(b, 32);
      return;
    }
    case 23: {  // wrong-position: vector code on an L1 tensor
      TQue<QuePosition::A1, 1> a1;
      pipe.InitBuffer(a1, 1, n * 4);
      LocalTensor<float> t1 = a1.AllocTensor<float>();
      Duplicate(t1, 1.0f, static_cast<int32_t>(n));
      return;
    }
    case 24: {  // missing-sync: LoadData from L1 before the copy into it was waited for
      TQue<QuePosition::A1, 1> a1;
      TQue<QuePosition::A2, 1> a2;
      pipe.InitBuffer(a1, 1, 512);  // one fractal
      pipe.InitBuffer(a2, 1, 512);
      LocalTensor<float> t1 = a1.AllocTensor<float>();
      LocalTensor<float> t2 = a2.AllocTensor<float>();
      DataCopy(t1, xGm, n);
      LoadData(t2, t1, LoadData2DParams(0, 1, 0, 0, 0, false, 0));
      return;
    }
    case 25: {  // ub-overflow in L0A: 65 KB of a 64 KB memory, used
      TQue<QuePosition::A2, 1> a2;
      pipe.InitBuffer(a2, 1, 65 * 1024);
      LocalTensor<half> t2 = a2.AllocTensor<half>();
      return;
    }
    case 26: {  // GetPhyAddr: a usable address, as on the device, and counted as raw pointers
      const float* in = xGm.GetPhyAddr();
      float* out = yGm.GetPhyAddr();
      for (uint32_t i = 0; i < n; ++i) out[i] = in[i] > 0 ? in[i] : 0.0f;
      return;
    }
    case 27:    // a copy into a TBuf, then the queue's: the queue's event covers both (a pipe
    case 28: {  // runs in order); issued after the EnQue, the TBuf's copy is not covered
      TBuf<QuePosition::VECCALC> constant;
      pipe.InitBuffer(constant, n * 4);
      pipe.InitBuffer(inQ, 1, n * 4);
      pipe.InitBuffer(outQ, 1, n * 4);
      LocalTensor<float> c = constant.Get<float>();
      LocalTensor<float> a = inQ.AllocTensor<float>();
      if (t.mode == 27) DataCopy(c, xGm, n);
      DataCopy(a, xGm, n);
      inQ.EnQue(a);
      if (t.mode == 28) DataCopy(c, xGm, n);
      a = inQ.DeQue<float>();
      LocalTensor<float> b = outQ.AllocTensor<float>();
      Relu(b, a, static_cast<int32_t>(n));
      Max(b, b, c, static_cast<int32_t>(n));  // max(relu(x), x) is relu(x)
      outQ.EnQue(b);
      inQ.FreeTensor(a);
      b = outQ.DeQue<float>();
      DataCopy(yGm, b, n);
      outQ.FreeTensor(b);
      return;
    }
    case 21:  // assert: ascendc_assert stays in the build and stops a launch whose check fails
      ascendc_assert(n % 3 == 0, "n is %u", n);
      break;
    case 19: {  // at the budget: 3 + 4 queue buffers at VECIN here and inQ's 1 below make 8
      TQue<QuePosition::VECIN, 1> third;
      TQue<QuePosition::VECIN, 1> fourth;
      pipe.InitBuffer(third, 3, 32);
      pipe.InitBuffer(fourth, 4, 32);
      break;
    }
    default:
      break;
  }
  // Mode 0 (and 16, two blocks): a correct relu.
  const uint32_t per = n / static_cast<uint32_t>(GetBlockNum());
  const uint32_t off = per * static_cast<uint32_t>(GetBlockIdx());
  pipe.InitBuffer(inQ, 1, per * 4);
  pipe.InitBuffer(outQ, 1, per * 4);
  TBuf<QuePosition::VECCALC> spare;  // mode 20: past the UB, never used (as on the board: fine)
  if (t.mode == 20) pipe.InitBuffer(spare, 190 * 1024);
  LocalTensor<float> a = inQ.AllocTensor<float>();
  DataCopy(a, xGm[off], per);
  inQ.EnQue(a);
  a = inQ.DeQue<float>();
  LocalTensor<float> b = outQ.AllocTensor<float>();
  Relu(b, a, static_cast<int32_t>(per));
  outQ.EnQue(b);
  inQ.FreeTensor(a);
  b = outQ.DeQue<float>();
  DataCopy(yGm[off], b, per);
  outQ.FreeTensor(b);
}
)";

constexpr const char* kRulesDriver = R"(
#include "cannbot_launch.h"
#include <cstdio>
#include <cstdlib>
#include <vector>
extern "C" void rules_tiling(int64_t n, int64_t mode, CannbotTiling* t);
extern "C" void rules_kernel(GM_ADDR x, GM_ADDR y, GM_ADDR tiling);
int main(int argc, char** argv) {
  if (argc < 3) return 2;
  const int64_t n = std::atoll(argv[1]), mode = std::atoll(argv[2]);
  std::vector<float> x(static_cast<size_t>(n)), y(static_cast<size_t>(n), -7.0f);
  for (int64_t i = 0; i < n; ++i) x[static_cast<size_t>(i)] = static_cast<float>(i % 5) - 2.0f;
  CannbotTiling tiling{};
  rules_tiling(n, mode, &tiling);
  cannbot_ascendc::Launch(tiling, {x.data()}, {y.data()}, {n, n},
      [&](GM_ADDR* in, GM_ADDR* out, GM_ADDR t) { rules_kernel(in[0], out[0], t); });
  for (int64_t i = 0; i < n; ++i) {
    const float want = x[static_cast<size_t>(i)] > 0 ? x[static_cast<size_t>(i)] : 0.0f;
    if (y[static_cast<size_t>(i)] != want) {
      std::printf("wrong output at %lld\n", (long long)i);
      return 1;
    }
  }
  std::printf("relu ok\n");
  return 0;
}
)";

class AscendcRulesTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto dir = TempDir::Create("cannbot-ascendc-rules");
    ASSERT_TRUE(dir.ok());
    dir_ = new TempDir(std::move(dir).value());
    ASSERT_TRUE(WriteFile(dir_->File("rules.cpp"), kRulesKernel).ok());
    ASSERT_TRUE(WriteFile(dir_->File("driver.cpp"), kRulesDriver).ok());
    const Status built = testing::CompileKernel(dir_->File("rules.cpp"), dir_->File("driver.cpp"),
                                                dir_->File("rules"), {"-Wno-unused-variable"});
    ASSERT_TRUE(built.ok()) << built.message();
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }

  static CommandResult Run(int mode, int n = 64) {
    SpawnOptions options;
    options.argv = {dir_->File("rules"), std::to_string(n), std::to_string(mode)};
    auto result = RunCommand(options, std::chrono::milliseconds(20000));
    EXPECT_TRUE(result.ok());
    return result.ok() ? *result : CommandResult{};
  }

  // The run aborted with exactly one violation line naming `rule`, and no stats.
  static void ExpectViolation(int mode, const std::string& rule, int n = 64,
                              const std::string& message_part = "") {
    SCOPED_TRACE("mode " + std::to_string(mode) + ", rule " + rule);
    const CommandResult r = Run(mode, n);
    EXPECT_FALSE(r.exit.exited);
    EXPECT_EQ(r.exit.signal, SIGABRT) << r.exit.Describe();
    const auto v = FindViolation(r.output);
    ASSERT_TRUE(v.has_value()) << r.output;
    EXPECT_EQ(v->rule, rule) << v->message;
    EXPECT_FALSE(v->message.empty());
    EXPECT_NE(v->message.find(message_part), std::string::npos) << v->message;
    EXPECT_EQ(r.output.find(kStatsPrefix), std::string::npos);
  }

  static TempDir* dir_;
};

TempDir* AscendcRulesTest::dir_ = nullptr;

TEST_F(AscendcRulesTest, CorrectKernelRunsAndReportsStats) {
  // 19: exactly at the buffer budget; 20: a TBuf past the UB's end that is never used.
  for (int mode : {0, 16, 19, 20}) {
    const CommandResult r = Run(mode);
    ASSERT_TRUE(r.exit.Success()) << r.exit.Describe() << "\n" << r.output;
    EXPECT_NE(r.output.find("relu ok"), std::string::npos);
    EXPECT_FALSE(FindViolation(r.output).has_value());
    auto stats = ParseStats(r.output);
    ASSERT_TRUE(stats.ok()) << stats.status().message();
    EXPECT_EQ(stats->block_dim, mode == 16 ? 2u : 1u);
    EXPECT_EQ(stats->total.gm_to_ub_bytes, 64u * 4);
    EXPECT_EQ(stats->total.ub_to_gm_bytes, 64u * 4);
    EXPECT_EQ(stats->total.vector_instructions, mode == 16 ? 2u : 1u);
    EXPECT_FALSE(stats->overlap);
    EXPECT_LE(stats->ub_high_water_bytes, stats->ub_capacity_bytes);  // a phantom buffer is not UB
  }
}

TEST_F(AscendcRulesTest, UbOverflow) { ExpectViolation(1, "ub-overflow"); }
TEST_F(AscendcRulesTest, MisalignedDataCopy) { ExpectViolation(2, "copy-misaligned"); }
TEST_F(AscendcRulesTest, QueueOverDepth) { ExpectViolation(3, "queue-over-depth"); }
TEST_F(AscendcRulesTest, LeakedTensor) { ExpectViolation(4, "tensor-leak"); }
TEST_F(AscendcRulesTest, GmElementWriteToAnInput) {
  ExpectViolation(5, "gm-write-to-input", 64, "GlobalTensor::SetValue");
}
TEST_F(AscendcRulesTest, GmOutOfBounds) { ExpectViolation(6, "gm-out-of-bounds", 8); }
TEST_F(AscendcRulesTest, MissingSync) { ExpectViolation(7, "missing-sync"); }
// DeQue waits for the event its EnQue set, which a pipe sets after every earlier operation:
// a constant copied into a TBuf before a queue's copy is ready once that queue's tensor is.
TEST_F(AscendcRulesTest, AQueuesEventCoversTheEarlierCopiesOfItsPipe) {
  const CommandResult r = Run(27);
  ASSERT_TRUE(r.exit.Success()) << r.exit.Describe() << "\n" << r.output;
  EXPECT_NE(r.output.find("relu ok"), std::string::npos) << r.output;
  ExpectViolation(28, "missing-sync", 64, "Max uses a LocalTensor whose DataCopy");
}
TEST_F(AscendcRulesTest, DequeOfEmptyQueue) { ExpectViolation(8, "queue-empty"); }
TEST_F(AscendcRulesTest, UseAfterFree) { ExpectViolation(9, "use-after-free"); }
TEST_F(AscendcRulesTest, AFailedAscendcAssertStopsTheLaunch) {
  ExpectViolation(21, "assert", 64, "ascendc_assert(n % 3 == 0) failed");
}
TEST_F(AscendcRulesTest, MisalignedVectorOperand) { ExpectViolation(10, "vector-misaligned"); }
TEST_F(AscendcRulesTest, WriteToInput) { ExpectViolation(11, "gm-write-to-input"); }
TEST_F(AscendcRulesTest, QueueExhausted) { ExpectViolation(13, "queue-exhausted"); }
TEST_F(AscendcRulesTest, WaitWithoutSet) { ExpectViolation(14, "sync-deadlock"); }
TEST_F(AscendcRulesTest, DtypeMismatch) { ExpectViolation(15, "gm-dtype-mismatch"); }
TEST_F(AscendcRulesTest, IntegerVectorMathCompilesAndStopsWhereItRuns) {
  ExpectViolation(22, "not-emulated", 64, "Exp on int32_t tensors");
}
TEST_F(AscendcRulesTest, TooManyQueueBuffersAtOnePosition) {
  ExpectViolation(17, "too-many-buffers", 64, "9 queue buffers at TPosition::VECIN");
}
TEST_F(AscendcRulesTest, TheCubesMemoriesKeepTheirOwnRules) {
  ExpectViolation(23, "wrong-position", 64, "TPosition::A1, in L1");
  ExpectViolation(24, "missing-sync", 64, "LoadData reads its source before the DataCopy");
  ExpectViolation(25, "ub-overflow", 64, "bytes of L0A");
}
TEST_F(AscendcRulesTest, TooManyBuffersInOneKernel) {
  ExpectViolation(18, "too-many-buffers", 64, "65 buffers in one kernel");
}

TEST_F(AscendcRulesTest, GetPhyAddrIsAUsableAddressThatTheStatsCount) {
  const CommandResult r = Run(26);
  ASSERT_TRUE(r.exit.Success()) << r.exit.Describe() << "\n" << r.output;
  EXPECT_NE(r.output.find("relu ok"), std::string::npos);
  auto stats = ParseStats(r.output);
  ASSERT_TRUE(stats.ok()) << stats.status().message();
  EXPECT_EQ(stats->total.gm_raw_pointers, 2u);  // what the perf layer refuses to estimate
  EXPECT_EQ(stats->total.gm_to_ub_bytes, 0u);
}

TEST_F(AscendcRulesTest, RawGmDereferenceFaults) {
  const CommandResult r = Run(12);
  EXPECT_FALSE(r.exit.exited);
  EXPECT_EQ(r.exit.signal, SIGSEGV) << r.exit.Describe() << "\n" << r.output;
}

TEST_F(AscendcRulesTest, BadTilingIsRejected) {
  // block_dim 0 and dtype_bits 8 come from the tiling; the launcher checks both.
  constexpr const char* kBadTiling = R"(
#include "kernel_operator.h"
extern "C" void rules_tiling(int64_t, int64_t mode, CannbotTiling* t) {
  t->block_dim = mode == 0 ? 0 : 1;
  t->dtype_bits = mode == 0 ? 32 : 8;
}
extern "C" __global__ __aicore__ void rules_kernel(GM_ADDR, GM_ADDR, GM_ADDR) {}
)";
  ASSERT_TRUE(WriteFile(dir_->File("bad_tiling.cpp"), kBadTiling).ok());
  const Status built = testing::CompileKernel(dir_->File("bad_tiling.cpp"),
                                              dir_->File("driver.cpp"), dir_->File("bad_tiling"));
  ASSERT_TRUE(built.ok()) << built.message();
  for (int mode : {0, 1}) {
    SpawnOptions options;
    options.argv = {dir_->File("bad_tiling"), "8", std::to_string(mode)};
    auto r = RunCommand(options, std::chrono::milliseconds(20000));
    ASSERT_TRUE(r.ok());
    const auto v = FindViolation(r->output);
    ASSERT_TRUE(v.has_value()) << r->output;
    EXPECT_EQ(v->rule, "tiling");
  }
}

TEST_F(AscendcRulesTest, UnsupportedQueueBindingFailsToCompileNamingTheEmulation) {
  constexpr const char* kCubeQueue = R"(
#include "kernel_operator.h"
using namespace AscendC;
extern "C" void rules_tiling(int64_t, int64_t, CannbotTiling* t) {
  t->block_dim = 1;
  t->dtype_bits = 32;
}
extern "C" __global__ __aicore__ void rules_kernel(GM_ADDR, GM_ADDR, GM_ADDR) {
  TQueBind<TPosition::A1, TPosition::A2, 1> q;
  (void)q;
}
)";
  ASSERT_TRUE(WriteFile(dir_->File("cube.cpp"), kCubeQueue).ok());
  const Status built =
      testing::CompileKernel(dir_->File("cube.cpp"), dir_->File("driver.cpp"), dir_->File("cube"));
  ASSERT_FALSE(built.ok());
  EXPECT_NE(built.message().find("cannbot ascendc emulation: TQueBind supports the vector"),
            std::string::npos)
      << built.message();
}

}  // namespace
}  // namespace cannbot::ascendc
