#include "compiler/ops/prefill/attention_op.h"

#include "absl/strings/str_cat.h"
#include "support/status.h"

namespace tilejit::ops {

namespace {

class AttentionOp final : public Op {
 public:
  AttentionOp(Device& device, const AttentionOpShape& shape, const OpConfig& config)
      : shape_(shape) {
    device_ = &device;
    name_ = shape.kernel;
    config_ = config;
  }

  absl::Status bind(const LoadedKernel& loaded, CompiledKernel compiled) {
    for (const ArgSpec& arg : loaded.metadata().args)
      arguments_.push_back({arg.name, arg.kind == ArgSpec::Kind::kView, arg.dtype});
    launches_.push_back({&loaded, {}});
    compiled_ = std::move(compiled);
    compiled_.binary.clear();  // kept for its times and flags, not its bytes
    query_ = argumentIndex("query");
    kv_ = argumentIndex(shape_.kvArgument);
    starts_ = argumentIndex(shape_.startsArgument);
    perSequence_ = shape_.perSequenceArgument.empty() ? -1
                                                      : argumentIndex(shape_.perSequenceArgument);
    if (query_ < 0 || kv_ < 0 || starts_ < 0 ||
        (perSequence_ < 0 && !shape_.perSequenceArgument.empty()))
      return absl::InternalError(absl::StrCat(name_, "'s signature lacks 'query', '",
                                              shape_.kvArgument, "', '", shape_.startsArgument,
                                              "' or '", shape_.perSequenceArgument, "'"));
    return absl::OkStatus();
  }

 private:
  absl::Status checkArguments(absl::Span<const KernelArg> args) const override {
    const TensorArg& query = args[size_t(query_)].tensor;
    const TensorArg& kv = args[size_t(kv_)].tensor;
    const TensorArg& starts = args[size_t(starts_)].tensor;
    const int64_t ratio = config_.integer("gqa_ratio", 1);
    if (query.rank < 1 || kv.rank <= shape_.kvHeadDim ||
        query.shape[0] != ratio * kv.shape[shape_.kvHeadDim])
      return absl::InvalidArgumentError(absl::StrCat(
          name_, " with gqa_ratio=", ratio, " needs 'query' to have gqa_ratio x the kv heads of '",
          shape_.kvArgument, "' (dim ", shape_.kvHeadDim, "): got ",
          query.rank > 0 ? query.shape[0] : -1, " q heads and ",
          kv.rank > shape_.kvHeadDim ? kv.shape[shape_.kvHeadDim] : -1, " kv heads"));
    if (starts.rank != 1 || starts.shape[0] < 1)
      return absl::InvalidArgumentError(absl::StrCat(
          name_, ": '", shape_.startsArgument,
          "' holds num_seqs + 1 int32 starts (at least one element); got ",
          starts.rank == 1 ? starts.shape[0] : -1, " elements"));
    if (perSequence_ >= 0) {
      const TensorArg& each = args[size_t(perSequence_)].tensor;
      if (each.rank < 1 || each.shape[0] != starts.shape[0] - 1)
        return absl::InvalidArgumentError(absl::StrCat(
            name_, ": '", shape_.perSequenceArgument, "' needs one entry per sequence of '",
            shape_.startsArgument, "' (", starts.shape[0] - 1, "); got ",
            each.rank > 0 ? each.shape[0] : -1));
    }
    return absl::OkStatus();
  }

  AttentionOpShape shape_;
  int query_ = -1, kv_ = -1, starts_ = -1, perSequence_ = -1;
};

OpParameter integer(std::string name, std::optional<int64_t> fallback, std::string help) {
  return {std::move(name), OpParameterKind::kInt,
          fallback ? std::optional<ParameterValue>(*fallback) : std::nullopt, {},
          std::move(help)};
}

}  // namespace

std::vector<OpParameter> attentionParameters() {
  std::vector<OpParameter> parameters = {
      {"dtype", OpParameterKind::kDType, ParameterValue::typeName("bf16"), {}, ""},
      integer("head_size", 128, "q/k head size (64, 80, 96, 128, 192, 256)"),
      integer("v_head_size", 128, "v head size: head_size, or 128 with head_size 192 (MLA)"),
      integer("gqa_ratio", 1, "q heads per kv head (1..16)"),
      integer("causal", 1, "1: bottom-right aligned causal mask"),
      integer("soft_cap", 0, "1: logits capped as soft_cap_value * tanh(logit / soft_cap_value)"),
      integer("alibi", 0, "1: ALiBi bias -slope * |key position - query position|"),
  };
  for (const char* name : {"block_m", "block_n", "num_warps", "min_blocks_per_sm"})
    parameters.push_back(integer(name, std::nullopt, ""));
  return parameters;
}

absl::StatusOr<std::unique_ptr<Op>> createAttentionOp(JitCompiler& jit, Device& device,
                                                      const AttentionOpShape& shape,
                                                      const OpConfig& config) {
  ParameterMap parameters(config.values().begin(), config.values().end());
  TJ_ASSIGN_OR_RETURN(KernelSpec spec,
                      opKernelSpec(config, shape.kernel, device.target(), std::move(parameters)));
  auto op = std::make_unique<AttentionOp>(device, shape, config);
  CompiledKernel compiled;
  TJ_ASSIGN_OR_RETURN(const LoadedKernel* loaded, jit.load(device, spec, &compiled));
  TJ_RETURN_IF_ERROR(op->bind(*loaded, std::move(compiled)));
  return std::unique_ptr<Op>(std::move(op));
}

}  // namespace tilejit::ops
