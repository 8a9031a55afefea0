#include "cannbot/validator/tensor_layout.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "cannbot/ops/op_spec.h"
#include "cannbot/validator/kernel_runner.h"
#include "cannbot/validator/runner_protocol.h"

namespace cannbot::validator {
namespace {

using runner_protocol::ArgKind;

// A hand-built op: y[r][c] = x[r][c] * w[c] + eps, with params in ABI order.
ops::OpSpec LayoutOp() {
  ops::OpSpec op;
  op.name = "scale_rows";
  auto rows_times_cols = [](const ops::Shape& s) { return s.Size("rows") * s.Size("cols"); };
  op.params = {
      {"x", ops::ParamKind::kInput, rows_times_cols},
      {"w", ops::ParamKind::kInput, [](const ops::Shape& s) { return s.Size("cols"); }},
      {"y", ops::ParamKind::kOutput, rows_times_cols},
      {"rows", ops::ParamKind::kSize, nullptr},
      {"cols", ops::ParamKind::kSize, nullptr},
      {"eps", ops::ParamKind::kScalar, nullptr},
  };
  return op;
}

ops::Shape LayoutShape() {
  ops::Shape shape;
  shape.label = "odd";
  shape.sizes = {{"rows", 7}, {"cols", 33}};  // 231 and 33 elements: not multiples of 16
  shape.scalars = {{"eps", 1e-5f}};
  return shape;
}

std::vector<TensorPlace> All(const CallLayout& layout) {
  std::vector<TensorPlace> all = layout.inputs;
  all.insert(all.end(), layout.outputs.begin(), layout.outputs.end());
  return all;
}

void ExpectWellPlaced(const std::vector<TensorPlace>& places, size_t begin, size_t end) {
  size_t previous_end = begin;
  for (const TensorPlace& p : places) {
    SCOPED_TRACE(p.name);
    EXPECT_EQ(p.offset % kTensorAlignment, 0u);
    // Room for the leading guard zone after the previous tensor (or the region's start).
    EXPECT_GE(p.offset, previous_end + kGuardBytes);
    previous_end = p.offset + p.bytes();
  }
  // The trailing guard zone of the last tensor lies before `end`.
  EXPECT_GE(end, previous_end + kGuardBytes);
}

TEST(TensorLayoutTest, PlanPutsInputsThenOutputsInParamOrder) {
  const ops::OpSpec op = LayoutOp();
  const ops::Shape shape = LayoutShape();
  CallLayout layout = CallLayout::Plan(op, shape, 0);
  ASSERT_EQ(layout.inputs.size(), 2u);
  ASSERT_EQ(layout.outputs.size(), 1u);
  EXPECT_EQ(layout.inputs[0].name, "x");
  EXPECT_EQ(layout.inputs[1].name, "w");
  EXPECT_EQ(layout.outputs[0].name, "y");
  EXPECT_EQ(layout.inputs[0].elements, 7 * 33);
  EXPECT_EQ(layout.inputs[1].elements, 33);
  EXPECT_EQ(layout.outputs[0].elements, 7 * 33);
  EXPECT_EQ(layout.inputs[1].bytes(), 33 * sizeof(float));
  EXPECT_LT(layout.inputs[0].offset, layout.inputs[1].offset);
  EXPECT_LT(layout.inputs[1].offset, layout.outputs[0].offset);
}

TEST(TensorLayoutTest, OffsetsAreAlignedAndSeparatedByGuards) {
  const ops::OpSpec op = LayoutOp();
  const ops::Shape shape = LayoutShape();
  for (size_t begin : {size_t{0}, size_t{1}, size_t{100}, size_t{4096}, size_t{12345}}) {
    SCOPED_TRACE("begin=" + std::to_string(begin));
    CallLayout layout = CallLayout::Plan(op, shape, begin);
    ExpectWellPlaced(All(layout), begin, layout.end);
  }
}

TEST(TensorLayoutTest, WithOutputsAtKeepsInputsAndPlacesFreshOutputs) {
  const ops::OpSpec op = LayoutOp();
  const ops::Shape shape = LayoutShape();
  CallLayout first = CallLayout::Plan(op, shape, 0);
  CallLayout second = first.WithOutputsAt(op, shape, first.end);
  ASSERT_EQ(second.inputs.size(), first.inputs.size());
  for (size_t i = 0; i < first.inputs.size(); ++i) {
    EXPECT_EQ(second.inputs[i].name, first.inputs[i].name);
    EXPECT_EQ(second.inputs[i].offset, first.inputs[i].offset);
    EXPECT_EQ(second.inputs[i].elements, first.inputs[i].elements);
  }
  ASSERT_EQ(second.outputs.size(), 1u);
  EXPECT_EQ(second.outputs[0].name, "y");
  EXPECT_EQ(second.outputs[0].elements, first.outputs[0].elements);
  ExpectWellPlaced(second.outputs, first.end, second.end);
  EXPECT_GT(second.end, first.end);
}

class GuardTest : public ::testing::Test {
 protected:
  void SetUp() override {
    layout_ = CallLayout::Plan(op_, shape_, 0);
    region_.assign(layout_.end, '\0');
    FillGuards(region_.data(), layout_.inputs, layout_.traps);
    FillGuards(region_.data(), layout_.outputs, layout_.traps);
  }

  const TensorPlace& Input(const std::string& name) const {
    for (const TensorPlace& p : layout_.inputs) {
      if (p.name == name) return p;
    }
    ADD_FAILURE() << "no input " << name;
    return layout_.inputs.front();
  }

  std::string CheckInputs() const { return CheckGuards(region_.data(), layout_.inputs, "input", layout_.traps); }
  std::string CheckOutputs() const {
    return CheckGuards(region_.data(), layout_.outputs, "output", layout_.traps);
  }

  ops::OpSpec op_ = LayoutOp();
  ops::Shape shape_ = LayoutShape();
  CallLayout layout_;
  std::vector<char> region_;
};

TEST_F(GuardTest, GuardsAreIntactAfterFill) {
  EXPECT_EQ(CheckInputs(), "");
  EXPECT_EQ(CheckOutputs(), "");
  // The guard zones hold the pattern on both sides of every tensor.
  for (const TensorPlace& p : All(layout_)) {
    for (size_t i = 1; i <= kGuardBytes; ++i) {
      ASSERT_EQ(static_cast<unsigned char>(region_[p.offset - i]), layout_.traps.guard) << p.name;
      ASSERT_EQ(static_cast<unsigned char>(region_[p.offset + p.bytes() + i - 1]), layout_.traps.guard)
          << p.name;
    }
  }
}

TEST_F(GuardTest, WritingInsideTensorsLeavesGuardsIntact) {
  for (const TensorPlace& p : All(layout_)) {
    float* data = static_cast<float*>(TensorAt(region_.data(), p));
    for (int64_t i = 0; i < p.elements; ++i) data[i] = static_cast<float>(i) * 0.5f - 3.0f;
  }
  EXPECT_EQ(CheckInputs(), "");
  EXPECT_EQ(CheckOutputs(), "");
}

TEST_F(GuardTest, OneByteAfterAnOutputIsReported) {
  const TensorPlace& y = layout_.outputs[0];
  region_[y.offset + y.bytes()] = static_cast<char>(layout_.traps.guard ^ 1);
  const std::string report = CheckOutputs();
  EXPECT_NE(report, "");
  EXPECT_NE(report.find("output y"), std::string::npos) << report;
  EXPECT_NE(report.find("past the end"), std::string::npos) << report;
  EXPECT_EQ(CheckInputs(), "");
}

TEST_F(GuardTest, LastByteOfTrailingGuardIsChecked) {
  const TensorPlace& y = layout_.outputs[0];
  region_[y.offset + y.bytes() + kGuardBytes - 1] = static_cast<char>(layout_.traps.guard ^ 0x11);
  const std::string report = CheckOutputs();
  EXPECT_NE(report.find("output y"), std::string::npos) << report;
}

TEST_F(GuardTest, OneByteBeforeAnInputIsReported) {
  const TensorPlace& w = Input("w");
  region_[w.offset - 1] = static_cast<char>(layout_.traps.guard ^ 1);
  const std::string report = CheckInputs();
  EXPECT_NE(report, "");
  EXPECT_NE(report.find("input w"), std::string::npos) << report;
  EXPECT_NE(report.find("before"), std::string::npos) << report;
  EXPECT_EQ(CheckOutputs(), "");
}

TEST_F(GuardTest, FirstByteOfLeadingGuardIsChecked) {
  const TensorPlace& x = Input("x");
  region_[x.offset - kGuardBytes] = static_cast<char>(layout_.traps.guard ^ 0x22);
  const std::string report = CheckInputs();
  EXPECT_NE(report.find("input x"), std::string::npos) << report;
}

TEST_F(GuardTest, PoisonOutputsPoisonsEveryOutputElementOnly) {
  for (const TensorPlace& p : layout_.inputs) {
    float* data = static_cast<float*>(TensorAt(region_.data(), p));
    for (int64_t i = 0; i < p.elements; ++i) data[i] = 1.25f;
  }
  PoisonOutputs(region_.data(), layout_);
  const TensorPlace& y = layout_.outputs[0];
  const float* out = static_cast<const float*>(TensorAt(region_.data(), y));
  for (int64_t i = 0; i < y.elements; ++i) {
    uint32_t bits;
    std::memcpy(&bits, &out[i], sizeof(bits));
    ASSERT_EQ(bits, layout_.traps.f32) << "element " << i;
    ASSERT_TRUE(layout_.traps.Holds(out, y.dtype, i));
  }
  for (const TensorPlace& p : layout_.inputs) {
    const float* data = static_cast<const float*>(TensorAt(region_.data(), p));
    for (int64_t i = 0; i < p.elements; ++i) ASSERT_EQ(data[i], 1.25f) << p.name << " " << i;
  }
  EXPECT_EQ(CheckInputs(), "");
  EXPECT_EQ(CheckOutputs(), "");
}

// 16-bit outputs of an odd length: every element holds the dtype's poison, nothing past it.
TEST_F(GuardTest, PoisonOutputsFillsOddSixteenBitOutputsExactly) {
  for (ops::DType dtype : {ops::DType::kF16, ops::DType::kBF16}) {
    op_.params[2].dtype = dtype;
    SetUp();
    PoisonOutputs(region_.data(), layout_);
    const TensorPlace& y = layout_.outputs[0];
    ASSERT_EQ(y.elements, 7 * 33);
    const char* out = static_cast<const char*>(TensorAt(region_.data(), y));
    for (int64_t i = 0; i < y.elements; ++i) {
      ASSERT_EQ(std::memcmp(out + 2 * i, layout_.traps.Poison(dtype), 2), 0) << "element " << i;
    }
    EXPECT_EQ(CheckOutputs(), "");
  }
}

TEST(TensorLayoutTest, ArgsFollowParamOrderWithKinds) {
  const ops::OpSpec op = LayoutOp();
  const ops::Shape shape = LayoutShape();
  CallLayout layout = CallLayout::Plan(op, shape, 0);
  std::vector<KernelArg> args = layout.Args(op, shape);
  ASSERT_EQ(args.size(), 6u);
  EXPECT_EQ(args[0].kind, ArgKind::kTensor);
  EXPECT_EQ(args[0].value, layout.inputs[0].offset);
  EXPECT_EQ(args[1].kind, ArgKind::kTensor);
  EXPECT_EQ(args[1].value, layout.inputs[1].offset);
  EXPECT_EQ(args[2].kind, ArgKind::kTensor);
  EXPECT_EQ(args[2].value, layout.outputs[0].offset);
  EXPECT_EQ(args[3].kind, ArgKind::kInt64);
  EXPECT_EQ(static_cast<int64_t>(args[3].value), 7);
  EXPECT_EQ(args[4].kind, ArgKind::kInt64);
  EXPECT_EQ(static_cast<int64_t>(args[4].value), 33);
  EXPECT_EQ(args[5].kind, ArgKind::kFloat32);
  float eps;
  const uint32_t bits = static_cast<uint32_t>(args[5].value);
  std::memcpy(&eps, &bits, sizeof(eps));
  EXPECT_EQ(eps, 1e-5f);
}

TEST(TensorLayoutTest, ArgsFollowParamOrderWhenKindsInterleave) {
  // Args must walk params in declaration order even when kinds are not grouped.
  ops::OpSpec op;
  op.name = "mixed";
  auto n = [](const ops::Shape& s) { return s.Size("n"); };
  op.params = {
      {"alpha", ops::ParamKind::kScalar, nullptr},
      {"out", ops::ParamKind::kOutput, n},
      {"n", ops::ParamKind::kSize, nullptr},
      {"a", ops::ParamKind::kInput, n},
      {"b", ops::ParamKind::kInput, n},
  };
  ops::Shape shape;
  shape.label = "tiny";
  shape.sizes = {{"n", 5}};
  shape.scalars = {{"alpha", -2.5f}};
  CallLayout layout = CallLayout::Plan(op, shape, 0);
  ASSERT_EQ(layout.inputs.size(), 2u);
  ASSERT_EQ(layout.outputs.size(), 1u);
  std::vector<KernelArg> args = layout.Args(op, shape);
  ASSERT_EQ(args.size(), 5u);
  EXPECT_EQ(args[0].kind, ArgKind::kFloat32);
  EXPECT_EQ(args[0].value, KernelArg::Float32(-2.5f).value);
  EXPECT_EQ(args[1].kind, ArgKind::kTensor);
  EXPECT_EQ(args[1].value, layout.outputs[0].offset);
  EXPECT_EQ(args[2].kind, ArgKind::kInt64);
  EXPECT_EQ(static_cast<int64_t>(args[2].value), 5);
  EXPECT_EQ(args[3].value, layout.inputs[0].offset);
  EXPECT_EQ(args[4].value, layout.inputs[1].offset);
  EXPECT_EQ(layout.inputs[0].name, "a");
  EXPECT_EQ(layout.inputs[1].name, "b");
}

TEST(TensorLayoutTest, ArgsUseTheSecondLayoutsOutputs) {
  const ops::OpSpec op = LayoutOp();
  const ops::Shape shape = LayoutShape();
  CallLayout first = CallLayout::Plan(op, shape, 0);
  CallLayout second = first.WithOutputsAt(op, shape, first.end);
  std::vector<KernelArg> args = second.Args(op, shape);
  ASSERT_EQ(args.size(), 6u);
  EXPECT_EQ(args[0].value, first.inputs[0].offset);
  EXPECT_EQ(args[2].value, second.outputs[0].offset);
  EXPECT_NE(args[2].value, first.outputs[0].offset);
}

}  // namespace
}  // namespace cannbot::validator

namespace cannbot::validator {
namespace {

// The harness's planted values change from layout to layout, so a kernel cannot recognise
// them; the parent's copies still mark never-written elements with the fixed marker.
TEST(TrapValuesTest, AreDrawnAfreshAndAreQuietNaNsWithAPayload) {
  std::set<uint32_t> poisons;
  std::set<int> guards;
  for (int i = 0; i < 64; ++i) {
    const TrapValues t = TrapValues::Fresh();
    poisons.insert(t.f32);
    guards.insert(t.guard);
    EXPECT_EQ(t.f32 & 0x7FC00000u, 0x7FC00000u);  // quiet NaN
    EXPECT_NE(t.f32 & 0x3FFFFFu, 0u);              // not the payload a computation makes
    EXPECT_EQ(t.f16 & 0x7E00u, 0x7E00u);
    EXPECT_NE(t.f16 & 0x1FFu, 0u);
    EXPECT_EQ(t.bf16 & 0x7FC0u, 0x7FC0u);
    EXPECT_NE(t.bf16 & 0x3Fu, 0u);
    EXPECT_NE(t.f32, kPoisonBits);
  }
  EXPECT_GT(poisons.size(), 60u);
  EXPECT_GT(guards.size(), 16u);
}

TEST(TrapValuesTest, ReadOutputMarksOnlyElementsStillHoldingThisLayoutsPoison) {
  TensorPlace place{"y", 64, 3, ops::DType::kF32};
  std::vector<char> region(256, 0);
  const TrapValues t = TrapValues::Fresh();
  const float written = 2.5f;
  std::memcpy(region.data() + 64, &t.f32, 4);
  std::memcpy(region.data() + 68, &written, 4);
  const uint32_t other_nan = 0x7FC00000u;  // a NaN the kernel computed
  std::memcpy(region.data() + 72, &other_nan, 4);
  const ops::Tensor copy = ReadOutput(region.data(), place, t);
  EXPECT_TRUE(IsPoison(copy.data(), ops::DType::kF32, 0));
  EXPECT_FALSE(IsPoison(copy.data(), ops::DType::kF32, 1));
  EXPECT_FALSE(IsPoison(copy.data(), ops::DType::kF32, 2));
  EXPECT_EQ(copy.At(1), 2.5);
}

TEST(TrapValuesTest, ReadOutputMarksSixteenBitPoisonToo) {
  for (ops::DType dtype : {ops::DType::kF16, ops::DType::kBF16}) {
    TensorPlace place{"y", 64, 3, dtype};
    std::vector<char> region(256, 0);
    const TrapValues t = TrapValues::Fresh();
    const uint16_t written = 0x3C00u;  // 1.0 in fp16, 1.875 in bf16: not the poison
    const uint16_t other_nan = 0x7E00u;
    std::memcpy(region.data() + 64, t.Poison(dtype), 2);
    std::memcpy(region.data() + 66, &written, 2);
    std::memcpy(region.data() + 68, &other_nan, 2);
    const ops::Tensor copy = ReadOutput(region.data(), place, t);
    EXPECT_TRUE(IsPoison(copy.data(), dtype, 0));
    EXPECT_FALSE(IsPoison(copy.data(), dtype, 1));
    EXPECT_FALSE(IsPoison(copy.data(), dtype, 2));
  }
}

}  // namespace
}  // namespace cannbot::validator
