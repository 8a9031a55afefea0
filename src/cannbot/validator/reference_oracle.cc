#include "cannbot/validator/reference_oracle.h"

#include "cannbot/ops/dtype_values.h"
#include "cannbot/validator/harness.h"
#include "cannbot/validator/inputs.h"
#include "cannbot/validator/numeric_check.h"
#include "cannbot/validator/tensor_layout.h"

namespace cannbot::validator {
namespace {

bool Widened(ops::DType dtype) { return ops::DTypeIsSixteenBitFloat(dtype); }
bool Widened(const ops::Tensor& t) { return Widened(t.dtype()); }

class InProcess : public ReferenceOracle {
 public:
  explicit InProcess(const ops::OpSpec& op) : op_(op) {}

  // Built-in references compute on floats: 16-bit inputs are widened (exactly) and outputs
  // rounded back to their dtype (nearest even), as ops::OpSpec::ReferenceAsKernel does in C++;
  // integer tensors pass as they are.
  Result<std::vector<ops::Tensor>> Outputs(
      const ops::Shape& shape, const std::vector<ops::Tensor>& inputs) const override {
    if (!op_.reference) return Status::Internal(op_.name + " has no built-in reference");
    std::vector<ops::Tensor> widened_inputs, outputs;
    widened_inputs.reserve(inputs.size());
    for (const ops::Tensor& in : inputs) {
      widened_inputs.push_back(Widened(in) ? ops::Tensor::FromFloats(in.ToFloats()) : ops::Tensor());
    }
    for (const ops::Param* p : op_.ParamsOfKind(ops::ParamKind::kOutput)) {
      const ops::DType computed = Widened(p->dtype) ? ops::DType::kF32 : p->dtype;
      outputs.emplace_back(computed, p->elements(shape));
    }
    ops::TensorArgs args;
    for (size_t i = 0; i < inputs.size(); ++i) {
      const ops::Tensor& in = Widened(inputs[i]) ? widened_inputs[i] : inputs[i];
      args.inputs.push_back(static_cast<const float*>(in.data()));
    }
    for (ops::Tensor& out : outputs) args.outputs.push_back(static_cast<float*>(out.data()));
    op_.reference(args, shape);
    size_t o = 0;
    for (const ops::Param* p : op_.ParamsOfKind(ops::ParamKind::kOutput)) {
      ops::Tensor& out = outputs[o++];
      if (!Widened(p->dtype)) continue;
      ops::Tensor rounded(p->dtype, out.elements());
      for (int64_t e = 0; e < out.elements(); ++e) rounded.Set(e, out.At(e));
      out = std::move(rounded);
    }
    return outputs;
  }

  std::string Describe() const override { return "the built-in reference"; }

 private:
  const ops::OpSpec& op_;
};

class Sandboxed : public ReferenceOracle {
 public:
  Sandboxed(const ops::OpSpec& op, SandboxedReferenceConfig config)
      : op_(op), config_(std::move(config)) {}

  Result<std::vector<ops::Tensor>> Outputs(
      const ops::Shape& shape, const std::vector<ops::Tensor>& inputs) const override {
    const CallLayout layout = CallLayout::Plan(op_, shape, 0);
    const std::string where = " on case '" + shape.label + "' (" + shape.Describe() + ")";
    CANNBOT_ASSIGN_OR_RETURN(auto runner,
                             KernelRunner::Start(config_.runner, layout.end, config_.work_dir));
    Status loaded = runner->Load(0, config_.shared_object, config_.symbol, ArgKinds(op_));
    if (loaded.ok()) loaded = runner->Seal();
    if (!loaded.ok()) return Refuse(loaded, " when loaded");
    CallData staged;
    staged.inputs = inputs;
    Arm(runner->region(), layout, staged);
    auto timing = runner->Call(0, {layout.Args(op_, shape)}, 1, config_.call_timeout);
    if (!timing.ok()) return Refuse(timing.status(), where);
    const std::string problem = CheckAfterCall(runner->region(), layout, staged);
    if (!problem.empty()) {
      return Status::InvalidArgument(config_.label + " " + problem + where);
    }
    std::vector<ops::Tensor> outputs = CopyOutputs(runner->region(), layout);
    for (size_t i = 0; i < outputs.size(); ++i) {
      for (int64_t e = 0; e < outputs[i].elements(); ++e) {
        if (!IsPoison(outputs[i].data(), outputs[i].dtype(), e)) continue;
        return Status::InvalidArgument(config_.label + " never wrote element " +
                                       std::to_string(e) + " of output " +
                                       layout.outputs[i].name + where);
      }
    }
    return outputs;
  }

  std::string Describe() const override { return config_.label; }

 private:
  Status Refuse(const Status& s, const std::string& where) const {
    if (!KernelFailed(s)) return s;  // the validator's own trouble, not the reference's
    return Status::InvalidArgument(config_.label + " failed" + where + ": " + s.message());
  }

  const ops::OpSpec& op_;
  SandboxedReferenceConfig config_;
};

}  // namespace

namespace {
class RoundedInputs : public ReferenceOracle {
 public:
  RoundedInputs(std::unique_ptr<ReferenceOracle> inner,
                std::function<float(size_t, float)> rounding,
                std::string how)
      : inner_(std::move(inner)), rounding_(std::move(rounding)), how_(std::move(how)) {}

  Result<std::vector<ops::Tensor>> Outputs(
      const ops::Shape& shape, const std::vector<ops::Tensor>& inputs) const override {
    std::vector<ops::Tensor> rounded;
    rounded.reserve(inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) {
      const ops::Tensor& in = inputs[i];
      if (in.dtype() != ops::DType::kF32) {
        rounded.push_back(in);
        continue;
      }
      std::vector<float> values = in.ToFloats();
      for (float& v : values) v = rounding_(i, v);
      rounded.push_back(ops::Tensor::FromFloats(values));
    }
    return inner_->Outputs(shape, rounded);
  }
  std::string Describe() const override { return inner_->Describe() + " (" + how_ + ")"; }

 private:
  std::unique_ptr<ReferenceOracle> inner_;
  std::function<float(size_t, float)> rounding_;
  std::string how_;
};
}  // namespace

std::unique_ptr<ReferenceOracle> RoundedInputsReference(std::unique_ptr<ReferenceOracle> inner,
                                                        std::function<float(size_t, float)> rounding,
                                                        std::string how) {
  return std::make_unique<RoundedInputs>(std::move(inner), std::move(rounding), std::move(how));
}

std::unique_ptr<ReferenceOracle> InProcessReference(const ops::OpSpec& op) {
  return std::make_unique<InProcess>(op);
}

std::unique_ptr<ReferenceOracle> SandboxedReference(const ops::OpSpec& op,
                                                    SandboxedReferenceConfig config) {
  return std::make_unique<Sandboxed>(op, std::move(config));
}

Status ProbeReference(const ops::OpSpec& op, const ReferenceOracle& oracle, uint64_t seed) {
  const ops::Shape* probe = &op.shapes.front();  // the first listed case, not the timed one
  for (const ops::Shape& s : op.shapes) {
    if (!s.perf) {
      probe = &s;
      break;
    }
  }
  const ops::Shape& shape = *probe;
  const auto inputs = GenerateInputs(op, shape, seed, "probe/" + shape.label);
  CANNBOT_ASSIGN_OR_RETURN(auto first, oracle.Outputs(shape, inputs));
  CANNBOT_ASSIGN_OR_RETURN(auto second, oracle.Outputs(shape, inputs));
  const auto outputs = op.ParamsOfKind(ops::ParamKind::kOutput);
  for (size_t i = 0; i < first.size(); ++i) {
    if (first[i].SameBits(second[i])) continue;
    return Status::InvalidArgument(
        oracle.Describe() + " is not deterministic: two runs on case '" + shape.label +
        "' gave different bits in output " + outputs[i]->name + " (first at index " +
        std::to_string(first[i].FirstDifference(second[i])) + ")");
  }
  return Status::Ok();
}

}  // namespace cannbot::validator
