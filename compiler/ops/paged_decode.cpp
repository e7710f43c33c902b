#include "compiler/ops/paged_decode.h"

#include <algorithm>
#include <future>
#include <optional>
#include <system_error>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
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

namespace {

// The merge's parameters: the split-K kernel's dtype, head size and partition size, then the
// target's rules for its step and heads per program, then the caller's "reduce_" tuning.
absl::StatusOr<KernelSpec> reduceSpecFor(const PagedDecodeConfig& config,
                                         const TargetDescription& target,
                                         const std::map<std::string, std::string>& decodeParams,
                                         const std::map<std::string, std::string>& reduceTuning,
                                         int64_t partitionSize) {
  std::map<std::string, std::string> params = {{"dtype", decodeParams.at("dtype")},
                                               {"head_size", decodeParams.at("head_size")},
                                               {"partition_size", std::to_string(partitionSize)}};
  // A merge step wider than the partitions a sequence can have only costs registers and
  // exchanges (measured: 64/8 heads, batch 256 at 1K tokens, 16-wide steps over 1 partition).
  auto widest = target.tuned("paged_decode_reduce.partitions_per_step");
  if (widest && config.maxModelLen > 0) {
    int64_t partitions = (config.maxModelLen + partitionSize - 1) / partitionSize;
    int64_t step = 1;
    while (step < partitions && step < *widest) step *= 2;
    params["partitions_per_step"] = std::to_string(step);
  }
  for (const auto& [name, value] : reduceTuning) params[name] = value;
  // Heads per program follow the step the merge ends up with, unless the caller chose them.
  if (!params.count("heads_per_program")) {
    int64_t step = widest.value_or(1);
    if (auto it = params.find("partitions_per_step"); it != params.end())
      if (!absl::SimpleAtoi(it->second, &step)) step = 1;  // the specializer names the bad value
    int64_t pairs = config.numSeqs * config.numKvHeads * config.gqaRatio;
    if (auto heads = mergeHeadsPerProgram(target, pairs, step))
      params["heads_per_program"] = std::to_string(*heads);
  }
  return specFor(config, "paged_decode_reduce", target.name, std::move(params));
}

// The partition size the split-K kernel will be specialized with, when known before it is:
// given, or the target's tuning value.
std::optional<int64_t> expectedPartitionSize(const TargetDescription& target,
                                             const std::map<std::string, std::string>& params) {
  int64_t value = 0;
  if (auto it = params.find("partition_size"); it != params.end())
    return absl::SimpleAtoi(it->second, &value) ? std::optional<int64_t>(value) : std::nullopt;
  return target.tuned("paged_decode.partition_size");
}

}  // namespace

absl::StatusOr<PagedDecode> PagedDecode::create(JitCompiler& jit, Device& device,
                                                const PagedDecodeConfig& config) {
  TJ_ASSIGN_OR_RETURN(const TargetDescription* target, lookupTarget(device.target()));
  std::map<std::string, std::string> params = {
      {"dtype", config.dtype},
      {"head_size", std::to_string(config.headSize)},
      {"block_size", std::to_string(config.blockSize)},
      {"gqa_ratio", std::to_string(config.gqaRatio)},
      {"kv_layout", config.kvLayout},
      {"soft_cap", config.softCap ? "1" : "0"},
      {"alibi", config.alibi ? "1" : "0"},
  };
  bool clusterRow = false;
  if (config.numSeqs > 0 && config.numKvHeads > 0 && config.maxModelLen > 0) {
    if (auto tiling = chooseDecodeTiling(*target, config.numSeqs * config.numKvHeads,
                                         config.maxModelLen, config.headSize)) {
      params["partition_size"] = std::to_string(tiling->partitionSize);
      params["block_n"] = std::to_string(tiling->blockN);
      params["prefetch_depth"] = std::to_string(tiling->prefetchDepth);
      if (tiling->numWarps > 0) params["num_warps"] = std::to_string(tiling->numWarps);
      clusterRow = tiling->clusterMerge;
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
  // The row's merge through a thread-block cluster, with the partition size the caller's
  // tuning left (unless the caller chose how to merge): where a sequence's partitions fit in
  // one cluster.
  int64_t chosenPartition = 0;
  if (clusterRow && !params.count("cluster_size") && !params.count("merge_in_kernel") &&
      absl::SimpleAtoi(params.at("partition_size"), &chosenPartition) && chosenPartition > 0) {
    int64_t partitions = (config.maxModelLen + chosenPartition - 1) / chosenPartition;
    if (partitions >= 2 && partitions <= target->maxClusterPrograms)
      params["cluster_size"] = std::to_string(partitions);
  }
  TJ_ASSIGN_OR_RETURN(KernelSpec decodeSpec,
                      specFor(config, "paged_decode", device.target(), params));

  // Both kernels compile at once when the partition size is known beforehand (a cold op costs
  // its slower kernel, not the sum); the split-K kernel's own value is checked afterwards.
  // With merge_in_kernel or a cluster the merge kernel is neither compiled nor launched (the
  // split-K kernel's own parameters decide below; this only spares the early compile).
  const bool noMergeKernel = (params.count("merge_in_kernel") && params.at("merge_in_kernel") == "1") ||
                             (params.count("cluster_size") && params.at("cluster_size") != "1");
  std::optional<int64_t> expected = expectedPartitionSize(*target, params);
  std::future<absl::StatusOr<const LoadedKernel*>> early;
  if (expected && !noMergeKernel) {
    TJ_ASSIGN_OR_RETURN(KernelSpec reduceSpec,
                        reduceSpecFor(config, *target, params, reduceTuning, *expected));
    try {
      early = std::async(std::launch::async, [&jit, &device, reduceSpec] {
        return jit.load(device, reduceSpec);
      });
    } catch (const std::system_error&) {
      // No thread to be had: the merge compiles after the split-K kernel below.
    }
  }
  PagedDecode op;
  op.device_ = &device;
  absl::StatusOr<const LoadedKernel*> decode = jit.load(device, decodeSpec, &op.decodeInfo_);
  absl::StatusOr<const LoadedKernel*> reduce =
      early.valid() ? early.get() : absl::StatusOr<const LoadedKernel*>(nullptr);
  if (!decode.ok()) return decode.status();
  op.decode_ = *decode;
  op.decodeInfo_.binary.clear();  // kept for its times and flags, not its bytes
  int64_t partitionSize = 0;
  bool mergesItself = false;
  for (const auto& [name, value] : op.decode_->metadata().parameters) {
    if (name == "partition_size" && !absl::SimpleAtoi(value, &partitionSize))
      return absl::InternalError(absl::StrCat("paged_decode reports partition_size '", value, "'"));
    if (name == "merge_in_kernel") mergesItself = value == "1";
  }
  op.clusterSize_ = op.decode_->metadata().clusterPrograms;
  if (partitionSize <= 0)
    return absl::InternalError("paged_decode was specialized without a positive partition_size");
  op.partitionSize_ = partitionSize;
  if (op.clusterSize_ > 1) {
    // One cluster holds every partition of a (sequence, kv head): the workspace must have
    // exactly cluster_size of them.
    if (config.maxModelLen <= 0 || op.maxPartitions(config.maxModelLen) != op.clusterSize_)
      return absl::InvalidArgumentError(absl::StrCat(
          "paged_decode with cluster_size ", op.clusterSize_,
          " merges one cluster's partitions, so max_model_len must split into exactly that many "
          "partitions of ", partitionSize, " tokens; max_model_len ",
          config.maxModelLen > 0 ? std::to_string(config.maxModelLen) : "unknown (0)", " gives ",
          config.maxModelLen > 0 ? std::to_string(op.maxPartitions(config.maxModelLen)) : "none"));
    mergesItself = true;
  }
  if (mergesItself) return op;
  if (!early.valid() || partitionSize != *expected) {
    // The merge must agree with the split-K kernel, whatever chose its values.
    TJ_ASSIGN_OR_RETURN(KernelSpec reduceSpec,
                        reduceSpecFor(config, *target, params, reduceTuning, partitionSize));
    reduce = jit.load(device, reduceSpec);
  }
  if (!reduce.ok()) return reduce.status();
  op.reduce_ = *reduce;
  return op;
}

int64_t PagedDecode::maxPartitions(int64_t maxModelLen) const {
  return std::max<int64_t>(1, (maxModelLen + partitionSize_ - 1) / partitionSize_);
}

absl::Status PagedDecode::operator()(const PagedDecodeArgs& a, Stream stream) const {
  if (clusterSize_ > 1 && (a.partialOut.rank < 2 || a.partialOut.shape[1] != clusterSize_))
    return absl::InvalidArgumentError(absl::StrCat(
        "paged_decode merges in clusters of ", clusterSize_, " partitions: partial_out must have ",
        clusterSize_, " partitions (dimension 1), not ",
        a.partialOut.rank < 2 ? std::string("none") : std::to_string(a.partialOut.shape[1])));
  const KernelArg decodeArgs[] = {a.output,      a.partialOut,  a.partialLse,  a.query,
                                  a.keyCache,    a.valueCache,  a.blockTables,
                                  a.seqLens,     a.alibiSlopes, a.arrivals,
                                  ScalarArg::f32(a.scale),       ScalarArg::f32(a.softCapValue),
                                  ScalarArg{DType::kI32, 0, a.slidingWindow}};
  TJ_RETURN_IF_ERROR(device_->launch(*decode_, decodeArgs, stream));
  // (A workspace of one partition gives the merge an empty grid: nothing is launched.)
  if (!reduce_) return absl::OkStatus();
  const KernelArg reduceArgs[] = {a.output, a.partialOut, a.partialLse, a.seqLens};
  return device_->launch(*reduce_, reduceArgs, stream);
}

}  // namespace tilejit
