// The op "mla_decode": absorbed MLA decode over a paged latent cache (templates/mla_decode.mlir)
// and the merge of its partitions (templates/mla_decode_reduce.mlir). The latent cache is
// passed as [num_blocks, block_size, 1, 576]: the [num_blocks, block_size, 576] cache with a
// unit head axis (torch: cache.unsqueeze(2)), the same bytes. With q_len > 1 (MTP, speculative
// verify) query and output hold num_seqs x q_len tokens, each sequence's consecutive.
#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "compiler/ops/op.h"
#include "compiler/targets/target_description.h"
#include "support/status.h"

namespace tilejit {

namespace {

constexpr absl::string_view kReducePrefix = "reduce_";
constexpr int64_t kVHeadSize = 512;

OpParameter integer(std::string name, std::optional<int64_t> fallback, std::string help = "",
                    std::optional<int64_t> minimum = std::nullopt) {
  return {std::move(name), OpParameterKind::kInt,
          fallback ? std::optional<ParameterValue>(*fallback) : std::nullopt, {}, std::move(help),
          minimum};
}

std::vector<OpParameter> schemaParameters() {
  std::vector<OpParameter> parameters = {
      {"dtype", OpParameterKind::kDType, ParameterValue::typeName("bf16"), {}, ""},
      integer("block_size", 64, "tokens per cache block"),
      integer("q_len", 1, "query tokens per sequence, causal among themselves (1..4)"),
      integer("max_model_len", 0, "the longest context served: sizes the partial workspaces", 0),
  };
  for (const char* name : {"q_rows", "block_n", "partition_size", "num_warps",
                           "min_blocks_per_sm", "reduce_heads_per_program", "reduce_num_warps",
                           "reduce_min_blocks_per_sm"})
    parameters.push_back(integer(name, std::nullopt));
  return parameters;
}

class MlaDecodeOp final : public Op {
 public:
  static absl::StatusOr<std::unique_ptr<Op>> create(JitCompiler& jit, Device& device,
                                                    const OpConfig& config);

 private:
  int64_t maxPartitions(int64_t maxModelLen) const {
    return std::max<int64_t>(1, (maxModelLen + partitionSize_ - 1) / partitionSize_);
  }
  std::vector<int64_t> partialShape(const ProblemSizes& sizes, bool lse) const {
    std::vector<int64_t> shape = {sizes.at("num_tokens"), maxPartitions(sizes.at("max_model_len")),
                                  sizes.at("num_q_heads")};
    if (!lse) shape.push_back(kVHeadSize);
    return shape;
  }
  absl::Status checkArguments(absl::Span<const KernelArg> args) const override;
  int64_t partitionSize_ = 0;
  int query_ = -1, seqLens_ = -1;
};

// The grid runs over query tokens and reads seq_lens at token / q_len: the two must agree.
absl::Status MlaDecodeOp::checkArguments(absl::Span<const KernelArg> args) const {
  const TensorArg& query = args[size_t(query_)].tensor;
  const TensorArg& lens = args[size_t(seqLens_)].tensor;
  const int64_t qLen = config().integer("q_len", 1);
  if (query.rank < 1 || lens.rank != 1 || query.shape[0] != lens.shape[0] * qLen)
    return absl::InvalidArgumentError(absl::StrCat(
        "mla_decode with q_len=", qLen, " reads 'query' as [num_seqs x q_len, heads, 576] for the ",
        lens.rank == 1 ? lens.shape[0] : -1, " sequences of 'seq_lens'; got ",
        query.rank > 0 ? query.shape[0] : -1, " tokens"));
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Op>> MlaDecodeOp::create(JitCompiler& jit, Device& device,
                                                        const OpConfig& config) {
  TJ_ASSIGN_OR_RETURN(const TargetDescription* target, lookupTarget(device.target()));
  auto op = std::make_unique<MlaDecodeOp>();
  op->device_ = &device;
  op->name_ = "mla_decode";
  op->config_ = config;
  ParameterMap decode = {{"dtype", *config.find("dtype")},
                         {"block_size", *config.find("block_size")},
                         {"q_len", *config.find("q_len")}};
  ParameterMap reduce = {{"dtype", *config.find("dtype")}, {"q_len", *config.find("q_len")}};
  for (const auto& [name, value] : config.values()) {
    if (name == "dtype" || name == "block_size" || name == "max_model_len" || name == "q_len")
      continue;
    if (absl::StartsWith(name, kReducePrefix))
      reduce[name.substr(kReducePrefix.size())] = value;
    else
      decode[name] = value;
  }
  // The merge reads the split-K kernel's partitions: one partition size for both.
  auto given = decode.find("partition_size");
  op->partitionSize_ = given != decode.end()
                           ? given->second.integer()
                           : target->tuned("mla_decode.partition_size").value_or(1024);
  decode["partition_size"] = op->partitionSize_;
  reduce["partition_size"] = op->partitionSize_;
  TJ_ASSIGN_OR_RETURN(KernelSpec decodeSpec,
                      opKernelSpec(config, "mla_decode", device.target(), decode));
  TJ_ASSIGN_OR_RETURN(KernelSpec reduceSpec,
                      opKernelSpec(config, "mla_decode_reduce", device.target(), reduce));
  TJ_ASSIGN_OR_RETURN(const LoadedKernel* decodeKernel,
                      jit.load(device, decodeSpec, &op->compiled_));
  TJ_ASSIGN_OR_RETURN(const LoadedKernel* reduceKernel, jit.load(device, reduceSpec));
  op->compiled_.binary.clear();  // kept for its times and flags, not its bytes

  for (const ArgSpec& arg : decodeKernel->metadata().args)
    op->arguments_.push_back({arg.name, arg.kind == ArgSpec::Kind::kView, arg.dtype});
  op->launches_.push_back({decodeKernel, {}});
  std::vector<int> mergeArgs;
  for (const char* name : {"output", "partial_out", "partial_lse", "seq_lens"})
    mergeArgs.push_back(op->argumentIndex(name));
  if (std::count(mergeArgs.begin(), mergeArgs.end(), -1))
    return absl::InternalError("mla_decode's signature lacks an argument the merge reads");
  op->query_ = op->argumentIndex("query");
  op->seqLens_ = op->argumentIndex("seq_lens");
  if (op->query_ < 0 || op->seqLens_ < 0)
    return absl::InternalError("mla_decode's signature lacks 'query' or 'seq_lens'");
  op->launches_.push_back({reduceKernel, std::move(mergeArgs)});
  const MlaDecodeOp* self = op.get();
  const std::vector<std::string> sizes = {"num_tokens", "num_q_heads", "max_model_len"};
  op->workspaces_ = {
      {"partial_out", DType::kF32, sizes,
       [self](const ProblemSizes& s) { return self->partialShape(s, false); }, false},
      {"partial_lse", DType::kF32, sizes,
       [self](const ProblemSizes& s) { return self->partialShape(s, true); }, false},
  };
  return std::unique_ptr<Op>(std::move(op));
}

}  // namespace

namespace ops {
absl::Status register_mla_decode(OpRegistry& registry) {
  return registry.add({"mla_decode",
                       "absorbed MLA decode over a paged 576-wide latent cache: the split-K "
                       "kernel and the merge of its partitions",
                       OpSchema("mla_decode", schemaParameters()),
                       {"mla_decode", "mla_decode_reduce"},
                       MlaDecodeOp::create});
}
}  // namespace ops

}  // namespace tilejit
