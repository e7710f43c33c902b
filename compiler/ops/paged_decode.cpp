#include "compiler/ops/paged_decode.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "support/status.h"

namespace tilejit {

namespace {
constexpr absl::string_view kReducePrefix = "reduce_";

absl::StatusOr<KernelSpec> specFor(const PagedDecodeConfig& config, const std::string& name,
                                   const std::string& target,
                                   std::map<std::string, std::string> params) {
  if (auto it = config.templateOverrides.find(name); it != config.templateOverrides.end())
    return KernelSpec::fromFile(it->second, target, std::move(params));
  return KernelSpec::shipped(name, target, std::move(params));
}
}  // namespace

std::optional<DecodeTiling> chooseDecodeTiling(const TargetDescription& target, int64_t programs,
                                               int64_t maxModelLen, int64_t headSize) {
  for (const DecodeTiling& row : target.decodeTilings)
    if (programs <= row.maxPrograms && maxModelLen <= row.maxContext && headSize <= row.maxHeadSize)
      return row;
  return std::nullopt;
}

absl::StatusOr<PagedDecode> PagedDecode::create(JitCompiler& jit, Device& device,
                                                const PagedDecodeConfig& config) {
  std::map<std::string, std::string> params = {
      {"dtype", config.dtype},
      {"head_size", std::to_string(config.headSize)},
      {"block_size", std::to_string(config.blockSize)},
      {"gqa_ratio", std::to_string(config.gqaRatio)},
      {"kv_layout", config.kvLayout},
      {"soft_cap", config.softCap ? "1" : "0"},
      {"alibi", config.alibi ? "1" : "0"},
  };
  if (config.numSeqs > 0 && config.numKvHeads > 0 && config.maxModelLen > 0) {
    TJ_ASSIGN_OR_RETURN(const TargetDescription* target, lookupTarget(device.target()));
    if (auto tiling = chooseDecodeTiling(*target, config.numSeqs * config.numKvHeads,
                                         config.maxModelLen, config.headSize)) {
      params["partition_size"] = std::to_string(tiling->partitionSize);
      params["block_n"] = std::to_string(tiling->blockN);
    }
  }
  // "reduce_<parameter>" entries tune the merge kernel; the rest the split-K kernel.
  std::map<std::string, std::string> reduceTuning;
  for (const auto& [name, value] : config.tuning) {
    if (absl::StartsWith(name, kReducePrefix))
      reduceTuning[name.substr(kReducePrefix.size())] = value;
    else
      params[name] = value;
  }
  TJ_ASSIGN_OR_RETURN(KernelSpec decodeSpec,
                      specFor(config, "paged_decode", device.target(), params));
  PagedDecode op;
  op.device_ = &device;
  TJ_ASSIGN_OR_RETURN(op.decode_, jit.load(device, decodeSpec, &op.decodeInfo_));
  op.decodeInfo_.binary.clear();  // kept for its times and flags, not its bytes
  // The reduce must agree with the decode kernel's choices, whatever chose them.
  std::map<std::string, std::string> reduceParams;
  for (const auto& [name, value] : op.decode_->metadata().parameters)
    if (name == "dtype" || name == "head_size" || name == "partition_size")
      reduceParams[name] = value;
  // A merge step wider than the partitions a sequence can have only costs registers and
  // exchanges (measured: 64/8 heads, batch 256 at 1K tokens, 16-wide steps over 1 partition).
  const int64_t partitionSize = std::stoll(reduceParams["partition_size"]);
  if (config.maxModelLen > 0) {
    TJ_ASSIGN_OR_RETURN(const TargetDescription* target, lookupTarget(device.target()));
    if (auto it = target->tuning.find("paged_decode_reduce.partitions_per_step");
        it != target->tuning.end()) {
      int64_t partitions = (config.maxModelLen + partitionSize - 1) / partitionSize;
      int64_t step = 1;
      while (step < partitions && step < it->second) step *= 2;
      reduceParams["partitions_per_step"] = std::to_string(step);
    }
  }
  if (config.numSeqs > 0 && config.numKvHeads > 0) {
    TJ_ASSIGN_OR_RETURN(const TargetDescription* target, lookupTarget(device.target()));
    auto pairs = target->tuning.find("paged_decode_reduce.large_merge_pairs");
    auto heads = target->tuning.find("paged_decode_reduce.large_merge_heads_per_program");
    if (pairs != target->tuning.end() && heads != target->tuning.end() &&
        config.numSeqs * config.numKvHeads * config.gqaRatio >= pairs->second)
      reduceParams["heads_per_program"] = std::to_string(heads->second);
  }
  for (const auto& [name, value] : reduceTuning) reduceParams[name] = value;
  TJ_ASSIGN_OR_RETURN(KernelSpec reduceSpec,
                      specFor(config, "paged_decode_reduce", device.target(), reduceParams));
  TJ_ASSIGN_OR_RETURN(op.reduce_, jit.load(device, reduceSpec));
  op.partitionSize_ = partitionSize;
  return op;
}

int64_t PagedDecode::maxPartitions(int64_t maxModelLen) const {
  return std::max<int64_t>(1, (maxModelLen + partitionSize_ - 1) / partitionSize_);
}

absl::Status PagedDecode::operator()(const PagedDecodeArgs& a, Stream stream) const {
  const KernelArg decodeArgs[] = {a.output,      a.partialOut,  a.partialLse,  a.query,
                                  a.keyCache,    a.valueCache,  a.blockTables,
                                  a.seqLens,     a.alibiSlopes, ScalarArg::f32(a.scale),
                                  ScalarArg::f32(a.softCapValue),
                                  ScalarArg{DType::kI32, 0, a.slidingWindow}};
  TJ_RETURN_IF_ERROR(device_->launch(*decode_, decodeArgs, stream));
  const KernelArg reduceArgs[] = {a.output, a.partialOut, a.partialLse, a.seqLens};
  return device_->launch(*reduce_, reduceArgs, stream);
}

}  // namespace tilejit
