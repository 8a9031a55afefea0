#include "cannbot/validator/harness.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "cannbot/ops/op_spec.h"
#include "cannbot/validator/tensor_layout.h"
#include "unit_support.h"

namespace cannbot::validator {
namespace {

using test::Contains;

// A hand-built op with two inputs and two outputs: y = x + 2w, z = x - w.
ops::OpSpec HarnessOp() {
  ops::OpSpec op;
  op.name = "sum_and_difference";
  auto n = [](const ops::Shape& s) { return s.Size("n"); };
  op.params = {
      {"x", ops::ParamKind::kInput, n},  {"w", ops::ParamKind::kInput, n},
      {"y", ops::ParamKind::kOutput, n}, {"z", ops::ParamKind::kOutput, n},
      {"n", ops::ParamKind::kSize, nullptr},
  };
  op.inputs["x"] = ops::Distribution::Uniform(-1, 1);
  op.inputs["w"] = ops::Distribution::Normal(0, 3);
  op.tolerance = [](const ops::Shape&) { return ops::Tolerance{1e-6, 1e-6}; };
  op.reference = [](const ops::TensorArgs& t, const ops::Shape& s) {
    for (int64_t i = 0; i < s.Size("n"); ++i) {
      t.outputs[0][i] = t.inputs[0][i] + 2 * t.inputs[1][i];
      t.outputs[1][i] = t.inputs[0][i] - t.inputs[1][i];
    }
  };
  return op;
}

ops::Shape HarnessShape() {
  ops::Shape shape;
  shape.label = "odd";
  shape.sizes = {{"n", 1037}};
  return shape;
}

bool BitwiseEqual(const ops::Tensor& a, const ops::Tensor& b) {
  return a.dtype() == b.dtype() && a.bytes() == b.bytes() &&
         std::memcmp(a.data(), b.data(), a.bytes()) == 0;
}

size_t ElementsThatDiffer(const ops::Tensor& a, const ops::Tensor& b) {
  size_t n = 0;
  for (int64_t i = 0; i < a.elements() && i < b.elements(); ++i) n += a.At(i) != b.At(i);
  return n;
}

TEST(HarnessTest, SameSeedAndStreamGiveTheSameCall) {
  const ops::OpSpec op = HarnessOp();
  const ops::Shape shape = HarnessShape();
  const std::unique_ptr<ReferenceOracle> reference = InProcessReference(op);
  const Result<PreparedCall> prepared_a = PrepareCall(*reference, op, shape, 42, "numeric/odd", 0);
  const Result<PreparedCall> prepared_b = PrepareCall(*reference, op, shape, 42, "numeric/odd", 0);
  ASSERT_TRUE(prepared_a.ok()) << prepared_a.status().ToString();
  ASSERT_TRUE(prepared_b.ok()) << prepared_b.status().ToString();
  const PreparedCall& a = prepared_a.value();
  const PreparedCall& b = prepared_b.value();
  ASSERT_EQ(a.data.inputs.size(), 2u);
  ASSERT_EQ(a.data.expected.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(a.data.inputs[i].elements(), 1037);
    EXPECT_TRUE(BitwiseEqual(a.data.inputs[i], b.data.inputs[i])) << "input " << i;
    EXPECT_TRUE(BitwiseEqual(a.data.expected[i], b.data.expected[i])) << "output " << i;
  }
  // The expected outputs are the reference's for exactly these inputs.
  const float* x = a.data.inputs[0].f32();
  const float* w = a.data.inputs[1].f32();
  for (size_t i = 0; i < 1037; ++i) {
    ASSERT_EQ(a.data.expected[0].f32()[i], x[i] + 2 * w[i]);
    ASSERT_EQ(a.data.expected[1].f32()[i], x[i] - w[i]);
  }
  EXPECT_EQ(a.layout.end, CallLayout::Plan(op, shape, 0).end);
}

TEST(HarnessTest, AnotherStreamOrSeedGivesOtherInputs) {
  const ops::OpSpec op = HarnessOp();
  const ops::Shape shape = HarnessShape();
  const std::unique_ptr<ReferenceOracle> reference = InProcessReference(op);
  const Result<CallData> drawn_base = DrawCallData(*reference, op, shape, 42, "numeric/odd");
  const Result<CallData> drawn_other_stream = DrawCallData(*reference, op, shape, 42, "perf/0");
  const Result<CallData> drawn_other_seed = DrawCallData(*reference, op, shape, 43, "numeric/odd");
  ASSERT_TRUE(drawn_base.ok()) << drawn_base.status().ToString();
  ASSERT_TRUE(drawn_other_stream.ok()) << drawn_other_stream.status().ToString();
  ASSERT_TRUE(drawn_other_seed.ok()) << drawn_other_seed.status().ToString();
  const CallData& base = drawn_base.value();
  const CallData& other_stream = drawn_other_stream.value();
  const CallData& other_seed = drawn_other_seed.value();
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_GT(ElementsThatDiffer(base.inputs[i], other_stream.inputs[i]), 1000u);
    EXPECT_GT(ElementsThatDiffer(base.inputs[i], other_seed.inputs[i]), 1000u);
  }
  // Inputs from elsewhere get the reference's outputs all the same.
  const Result<CallData> with_reference = WithReference(*reference, shape, base.inputs);
  ASSERT_TRUE(with_reference.ok()) << with_reference.status().ToString();
  const CallData& again = with_reference.value();
  EXPECT_TRUE(BitwiseEqual(again.expected[0], base.expected[0]));
  EXPECT_TRUE(BitwiseEqual(again.expected[1], base.expected[1]));
}

class HarnessCallTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<PreparedCall> prepared = PrepareCall(*reference_, op_, shape_, 7, "numeric/odd", kBegin);
    ASSERT_TRUE(prepared.ok()) << prepared.status().ToString();
    call_ = std::move(prepared).value();
    region_.assign(call_.layout.end, '\0');
    Arm(region_.data(), call_.layout, call_.data);
  }

  float* Tensor(const TensorPlace& place) {
    return static_cast<float*>(TensorAt(region_.data(), place));
  }
  // What a correct kernel leaves behind.
  void WriteExpected() {
    for (size_t i = 0; i < call_.layout.outputs.size(); ++i) {
      std::memcpy(Tensor(call_.layout.outputs[i]), call_.data.expected[i].data(),
                  call_.layout.outputs[i].bytes());
    }
  }
  std::string Check() const { return CheckAfterCall(region_.data(), call_.layout, call_.data); }
  std::string Judge(Comparison* summary) const {
    return JudgeOutputs(op_, shape_, call_.data, CopyOutputs(region_.data(), call_.layout),
                        DefaultJudge(), "", summary);
  }

  static constexpr size_t kBegin = 100;  // tensors are placed relative to `begin`
  const ops::OpSpec op_ = HarnessOp();
  const ops::Shape shape_ = HarnessShape();
  const std::unique_ptr<ReferenceOracle> reference_ = InProcessReference(op_);
  PreparedCall call_;
  std::vector<char> region_;
};

TEST_F(HarnessCallTest, ArmStagesInputsPoisonsOutputsAndFillsGuards) {
  for (size_t i = 0; i < call_.layout.inputs.size(); ++i) {
    const TensorPlace& place = call_.layout.inputs[i];
    EXPECT_GE(place.offset, kBegin + kGuardBytes);
    EXPECT_EQ(std::memcmp(Tensor(place), call_.data.inputs[i].data(), place.bytes()), 0);
  }
  for (const TensorPlace& out : call_.layout.outputs) {
    for (int64_t i = 0; i < out.elements; ++i) {
      ASSERT_TRUE(call_.layout.traps.Holds(Tensor(out), out.dtype, i)) << out.name << "[" << i << "]";
    }
  }
  EXPECT_EQ(Check(), "");
  // A kernel that does nothing leaves the poison, and the judge says so.
  Comparison summary;
  const std::string wrong = Judge(&summary);
  EXPECT_TRUE(Contains(wrong, "elements of y differ: the kernel never wrote the output")) << wrong;
  EXPECT_EQ(summary.never_written, 2 * 1037);
}

TEST_F(HarnessCallTest, ACorrectCallPassesEveryCheck) {
  WriteExpected();
  EXPECT_EQ(Check(), "");
  Comparison summary;
  EXPECT_EQ(Judge(&summary), "");
  EXPECT_TRUE(summary.ok());
  EXPECT_EQ(summary.elements, 2 * 1037);  // both outputs judged
}

TEST_F(HarnessCallTest, AWriteIntoAGuardZoneIsReported) {
  WriteExpected();
  const TensorPlace& z = call_.layout.outputs[1];
  region_[z.offset + z.bytes() + 2] = 0;
  EXPECT_EQ(Check(), "wrote past the end of output z (2 bytes after its last element, index 1036)");
}

TEST_F(HarnessCallTest, AWriteBeforeAnInputIsReported) {
  WriteExpected();
  const TensorPlace& w = call_.layout.inputs[1];
  region_[w.offset - 1] = 0;
  EXPECT_EQ(Check(), "wrote before the start of input w (1 bytes before element 0)");
}

TEST_F(HarnessCallTest, AChangedInputIsReportedWithItsFirstIndex) {
  WriteExpected();
  float* w = Tensor(call_.layout.inputs[1]);
  w[900] += 1;
  w[5] += 1;
  EXPECT_EQ(Check(), "the kernel modified its input w (first at index 5)");
}

TEST_F(HarnessCallTest, RestoringAnInputIsNotTampering) {
  WriteExpected();
  float* x = Tensor(call_.layout.inputs[0]);
  x[3] = 1e9f;
  EXPECT_EQ(Check(), "the kernel modified its input x (first at index 3)");
  x[3] = call_.data.inputs[0].f32()[3];
  EXPECT_EQ(Check(), "");
}

TEST_F(HarnessCallTest, AWrongOutputIsNamedWithItsElement) {
  WriteExpected();
  Tensor(call_.layout.outputs[1])[7] = call_.data.expected[1].f32()[7] + 0.5f;
  EXPECT_EQ(Check(), "");  // the traps are for tampering, not for wrong numbers
  Comparison summary;
  const std::string wrong = Judge(&summary);
  EXPECT_EQ(wrong.rfind("wrong results: 1 of 1037 elements of z differ; first at index 7", 0), 0u)
      << wrong;
  EXPECT_EQ(summary.mismatches, 1);
  EXPECT_EQ(summary.elements, 2 * 1037);
  ASSERT_TRUE(summary.first_bad.has_value());
  EXPECT_EQ(summary.first_bad->index, 7);
}

TEST_F(HarnessCallTest, TheFirstWrongOutputGivesTheReason) {
  WriteExpected();
  Tensor(call_.layout.outputs[0])[11] = -1e6f;
  Tensor(call_.layout.outputs[1])[2] = -1e6f;
  Comparison summary;
  const std::string wrong = Judge(&summary);
  EXPECT_TRUE(Contains(wrong, "elements of y differ; first at index 11")) << wrong;
  EXPECT_EQ(summary.mismatches, 2);
}

TEST_F(HarnessCallTest, ArmingAgainUndoesTheLastCall) {
  WriteExpected();
  Tensor(call_.layout.inputs[0])[0] += 1;
  Arm(region_.data(), call_.layout, call_.data);
  EXPECT_EQ(Check(), "");
  EXPECT_TRUE(call_.layout.traps.Holds(Tensor(call_.layout.outputs[0]),
                                       call_.layout.outputs[0].dtype, 0));
}

}  // namespace
}  // namespace cannbot::validator
