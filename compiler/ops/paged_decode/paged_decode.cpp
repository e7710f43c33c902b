#include "compiler/ops/paged_decode/paged_decode.h"

#include <algorithm>
#include <future>
#include <system_error>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "compiler/ops/paged_decode.h"
#include "support/status.h"

namespace tilejit {

namespace {

constexpr absl::string_view kReducePrefix = "reduce_";

OpParameter integer(std::string name, std::optional<int64_t> fallback, std::string help = "",
                    std::optional<int64_t> minimum = std::nullopt) {
  return {std::move(name), OpParameterKind::kInt,
          fallback ? std::optional<ParameterValue>(*fallback) : std::nullopt, {}, std::move(help),
          minimum};
}

// The op's own parameters; every other one is a kernel's tiling parameter (unset: the target's
// tuning, then the template's default).
const std::vector<std::string> kOpParameters = {"dtype", "head_size", "block_size", "gqa_ratio",
                                                "kv_layout", "soft_cap", "alibi", "sinks",
                                                "kv_cache_dtype", "kv_scale", "num_seqs",
                                                "num_kv_heads", "max_model_len"};

bool isTiling(std::string_view name) {
  return std::find(kOpParameters.begin(), kOpParameters.end(), name) == kOpParameters.end();
}

// The template's value of an integer parameter: given, else the target's tuning, else its
// default.
int64_t decodeValue(const ParameterMap& params, const TargetDescription& target,
                    const std::string& name, int64_t templateDefault) {
  if (auto it = params.find(name); it != params.end()) return it->second.integer();
  return target.tuned("paged_decode." + name).value_or(templateDefault);
}

// The merge's parameters: the split-K kernel's dtype, head size and partition size, then the
// target's rules for its step and heads per program, then the caller's "reduce_" tuning.
ParameterMap reduceParameters(const OpConfig& config, const TargetDescription& target,
                              const ParameterMap& decode, int64_t partitionSize) {
  ParameterMap params = {{"dtype", decode.at("dtype")},
                         {"head_size", decode.at("head_size")},
                         {"partition_size", partitionSize}};
  const int64_t maxModelLen = config.integer("max_model_len");
  // A merge step wider than the partitions a sequence can have only costs registers and
  // exchanges (measured: 64/8 heads, batch 256 at 1K tokens, 16-wide steps over 1 partition).
  auto widest = target.tuned("paged_decode_reduce.partitions_per_step");
  if (widest && maxModelLen > 0) {
    int64_t partitions = (maxModelLen + partitionSize - 1) / partitionSize;
    int64_t step = 1;
    while (step < partitions && step < *widest) step *= 2;
    params["partitions_per_step"] = step;
  }
  for (const auto& [name, value] : config.values())
    if (absl::StartsWith(name, kReducePrefix)) params[name.substr(kReducePrefix.size())] = value;
  // Heads per program follow the step the merge ends up with, unless the caller chose them.
  if (!params.count("heads_per_program")) {
    int64_t step = widest.value_or(1);
    if (auto it = params.find("partitions_per_step"); it != params.end()) step = it->second.integer();
    int64_t pairs = config.integer("num_seqs") * config.integer("num_kv_heads") *
                    config.integer("gqa_ratio");
    if (auto heads = mergeHeadsPerProgram(target, pairs, step)) params["heads_per_program"] = *heads;
  }
  return params;
}

PagedDecodeSpec buildSpec(const OpConfig& config, const TargetDescription& target) {
  PagedDecodeSpec spec;
  ParameterMap& params = spec.decode;
  for (const char* name : {"dtype", "head_size", "block_size", "gqa_ratio", "kv_layout", "soft_cap",
                           "alibi", "sinks", "kv_scale"})
    params[name] = *config.find(name);
  // The caches' element type: the queries' or an fp8 one.
  const std::string kvCache = config.text("kv_cache_dtype");
  params["kv_dtype"] = ParameterValue::typeName(kvCache == "fp8_e4m3"   ? "f8E4M3FN"
                                                : kvCache == "fp8_e5m2" ? "f8E5M2"
                                                                        : config.text("dtype"));
  const int64_t numSeqs = config.integer("num_seqs"), numKvHeads = config.integer("num_kv_heads");
  spec.maxModelLen = config.integer("max_model_len");
  bool clusterRow = false;
  if (numSeqs > 0 && numKvHeads > 0 && spec.maxModelLen > 0) {
    if (auto tiling = chooseDecodeTiling(target, numSeqs * numKvHeads, spec.maxModelLen,
                                         config.integer("head_size"))) {
      params["partition_size"] = tiling->partitionSize;
      params["block_n"] = tiling->blockN;
      params["prefetch_depth"] = tiling->prefetchDepth;
      if (tiling->numWarps > 0) params["num_warps"] = tiling->numWarps;
      clusterRow = tiling->clusterMerge;
    }
  }
  for (const auto& [name, value] : config.values())
    if (isTiling(name) && !absl::StartsWith(name, kReducePrefix)) params[name] = value;
  // The row's merge through a thread-block cluster, with the partition size the caller's
  // tuning left (unless the caller chose how to merge): where a sequence's partitions fit in
  // one cluster.
  if (clusterRow && !params.count("cluster_size") && !params.count("merge_in_kernel") &&
      params.at("partition_size").integer() > 0) {
    int64_t chosen = params.at("partition_size").integer();
    int64_t partitions = (spec.maxModelLen + chosen - 1) / chosen;
    if (partitions >= 2 && partitions <= target.maxClusterPrograms)
      params["cluster_size"] = partitions;
  }
  spec.partitionSize = decodeValue(params, target, "partition_size", 0);
  spec.clusterSize = decodeValue(params, target, "cluster_size", 1);
  spec.mergesItself = decodeValue(params, target, "merge_in_kernel", 0) == 1 || spec.clusterSize > 1;
  if (spec.partitionSize > 0)
    spec.reduce = reduceParameters(config, target, params, spec.partitionSize);
  return spec;
}

std::vector<OpParameter> schemaParameters() {
  std::vector<OpParameter> parameters = {
      {"dtype", OpParameterKind::kDType, ParameterValue::typeName("bf16"), {}, ""},
      integer("head_size", 128),
      integer("block_size", 16),
      integer("gqa_ratio", 1, "q heads per kv head"),
      {"kv_layout", OpParameterKind::kEnum, ParameterValue::string("standard"),
       {"standard", "shuffled"}, ""},
      {"soft_cap", OpParameterKind::kBool, ParameterValue(0), {}, "compile the logit soft-cap in"},
      {"alibi", OpParameterKind::kBool, ParameterValue(0), {}, "compile ALiBi in"},
      {"sinks", OpParameterKind::kBool, ParameterValue(0), {},
       "attention sinks: one f32 logit per q head joins the softmax denominator"},
      {"kv_cache_dtype", OpParameterKind::kEnum, ParameterValue::string("auto"),
       {"auto", "fp8_e4m3", "fp8_e5m2"}, "the caches' elements: dtype, or fp8 codes x scale"},
      {"kv_scale", OpParameterKind::kEnum, ParameterValue::string("per_tensor"),
       {"per_tensor", "per_head"}, "an fp8 cache's scales: k_scales/v_scales of 1 or num_kv_heads"},
      integer("num_seqs", 0, "the grid served (0 = unknown; all three: the measured tiling)", 0),
      integer("num_kv_heads", 0, "", 0),
      integer("max_model_len", 0, "", 0),
      tunedParameter("grid_order", OpParameterKind::kEnum, {"seqs_first", "heads_first"}),
      tunedParameter("merge_in_kernel", OpParameterKind::kBool),
  };
  for (const char* name : {"q_rows", "block_n", "partition_size", "num_warps", "prefetch_depth",
                           "min_blocks_per_sm", "cluster_size",
                           "reduce_partitions_per_step", "reduce_heads_per_program",
                           "reduce_num_warps", "reduce_min_blocks_per_sm"})
    parameters.push_back(integer(name, std::nullopt));
  return parameters;
}

std::vector<int64_t> partialShape(const PagedDecodeOp* op, const ProblemSizes& sizes, bool lse) {
  std::vector<int64_t> shape = {sizes.at("num_seqs"), op->maxPartitions(sizes.at("max_model_len")),
                                sizes.at("num_kv_heads") * op->config().integer("gqa_ratio")};
  if (!lse) shape.push_back(op->config().integer("head_size"));
  return shape;
}

}  // namespace

const OpSchema& pagedDecodeSchema() {
  static const OpSchema* schema = new OpSchema("paged_decode", schemaParameters());
  return *schema;
}

absl::StatusOr<OpConfig> pagedDecodeOpConfig(const PagedDecodeConfig& config) {
  std::map<std::string, ParameterValue> values = {
      {"dtype", config.dtype},         {"head_size", config.headSize},
      {"block_size", config.blockSize}, {"gqa_ratio", config.gqaRatio},
      {"kv_layout", config.kvLayout},   {"soft_cap", int64_t(config.softCap)},
      {"alibi", int64_t(config.alibi)}, {"sinks", int64_t(config.sinks)},
      {"kv_cache_dtype", ParameterValue::string(config.kvCacheDtype)},
      {"kv_scale", ParameterValue::string(config.kvScale)},
      {"num_seqs", config.numSeqs},
      {"num_kv_heads", config.numKvHeads}, {"max_model_len", config.maxModelLen}};
  for (const auto& [name, value] : config.tuning) values[name] = value;
  TJ_ASSIGN_OR_RETURN(OpConfig op, pagedDecodeSchema().bind(values));
  op.templateOverrides = config.templateOverrides;
  return op;
}

absl::StatusOr<std::unique_ptr<PagedDecodeOp>> PagedDecodeOp::create(JitCompiler& jit,
                                                                     Device& device,
                                                                     const OpConfig& config) {
  TJ_ASSIGN_OR_RETURN(const TargetDescription* target, lookupTarget(device.target()));
  auto op = std::make_unique<PagedDecodeOp>();
  op->device_ = &device;
  op->name_ = "paged_decode";
  op->config_ = config;
  op->spec_ = buildSpec(config, *target);
  const PagedDecodeSpec& spec = op->spec_;
  TJ_ASSIGN_OR_RETURN(KernelSpec decodeSpec,
                      opKernelSpec(config, "paged_decode", device.target(), spec.decode));

  // Both kernels compile at once (a cold op costs its slower kernel, not the sum); with the
  // merge in the split-K kernel the merge kernel is neither compiled nor launched.
  std::future<absl::StatusOr<const LoadedKernel*>> early;
  absl::StatusOr<const LoadedKernel*> reduce(nullptr);
  if (!spec.mergesItself && spec.partitionSize > 0) {
    TJ_ASSIGN_OR_RETURN(KernelSpec reduceSpec, opKernelSpec(config, "paged_decode_reduce",
                                                            device.target(), spec.reduce));
    try {
      early = std::async(std::launch::async, [&jit, &device, reduceSpec] {
        return jit.load(device, reduceSpec);
      });
    } catch (const std::system_error&) {
      reduce = jit.load(device, reduceSpec);  // no thread to be had: one after the other
    }
  }
  absl::StatusOr<const LoadedKernel*> decode = jit.load(device, decodeSpec, &op->compiled_);
  if (early.valid()) reduce = early.get();
  if (!decode.ok()) return decode.status();
  op->compiled_.binary.clear();  // kept for its times and flags, not its bytes
  if (spec.partitionSize <= 0)
    return absl::InternalError("paged_decode was specialized without a positive partition_size");
  if (spec.clusterSize > 1 &&
      (spec.maxModelLen <= 0 || op->maxPartitions(spec.maxModelLen) != spec.clusterSize)) {
    // One cluster holds every partition of a (sequence, kv head): the workspace must have
    // exactly cluster_size of them.
    return absl::InvalidArgumentError(absl::StrCat(
        "paged_decode with cluster_size ", spec.clusterSize,
        " merges one cluster's partitions, so max_model_len must split into exactly that many "
        "partitions of ", spec.partitionSize, " tokens; max_model_len ",
        spec.maxModelLen > 0 ? std::to_string(spec.maxModelLen) : "unknown (0)", " gives ",
        spec.maxModelLen > 0 ? std::to_string(op->maxPartitions(spec.maxModelLen)) : "none"));
  }
  if (!reduce.ok()) return reduce.status();

  for (const ArgSpec& arg : (*decode)->metadata().args)
    op->arguments_.push_back({arg.name, arg.kind == ArgSpec::Kind::kView, arg.dtype});
  op->launches_.push_back({*decode, {}});
  // (A workspace of one partition gives the merge an empty grid: nothing is launched.)
  if (!spec.mergesItself) {
    std::vector<int> mergeArgs;
    for (const char* name : {"output", "partial_out", "partial_lse", "seq_lens"})
      mergeArgs.push_back(op->argumentIndex(name));
    if (std::count(mergeArgs.begin(), mergeArgs.end(), -1))
      return absl::InternalError("paged_decode's signature lacks an argument the merge reads");
    op->launches_.push_back({*reduce, std::move(mergeArgs)});
  }
  const PagedDecodeOp* self = op.get();
  const std::vector<std::string> sizes = {"num_seqs", "num_kv_heads", "max_model_len"};
  op->workspaces_ = {
      {"partial_out", DType::kF32, sizes,
       [self](const ProblemSizes& s) { return partialShape(self, s, false); }, false},
      {"partial_lse", DType::kF32, sizes,
       [self](const ProblemSizes& s) { return partialShape(self, s, true); }, false},
      {"arrivals", DType::kI32, {"num_seqs", "num_kv_heads"},
       [](const ProblemSizes& s) {
         return std::vector<int64_t>{s.at("num_seqs"), s.at("num_kv_heads")};
       },
       true},
  };
  return op;
}

int64_t PagedDecodeOp::maxPartitions(int64_t maxModelLen) const {
  return std::max<int64_t>(1, (maxModelLen + spec_.partitionSize - 1) / spec_.partitionSize);
}

absl::Status PagedDecodeOp::checkArguments(absl::Span<const KernelArg> args) const {
  // An fp8 cache's scales: one, or one per kv head (the K cache's [.., .., kv_heads, ..]).
  if (config().text("kv_cache_dtype") != "auto") {
    const bool perHead = config().text("kv_scale") == "per_head";
    const TensorArg& keys = args[size_t(argumentIndex("key_cache"))].tensor;
    const int64_t want = perHead ? (keys.rank == 4 ? keys.shape[2] : -1) : 1;
    for (const char* name : {"k_scales", "v_scales"}) {
      const TensorArg& scales = args[size_t(argumentIndex(name))].tensor;
      if (scales.rank != 1 || scales.shape[0] != want)
        return absl::InvalidArgumentError(absl::StrCat(
            "paged_decode with kv_scale=", config().text("kv_scale"), " reads '", name, "' as [",
            perHead ? "num_kv_heads = " : "", want, "] f32; got rank ", scales.rank,
            scales.rank > 0 ? absl::StrCat(" of ", scales.shape[0]) : std::string()));
    }
  }
  const TensorArg& partialOut = args[1].tensor;  // the signature's order (partial_out second)
  if (spec_.clusterSize > 1 && (partialOut.rank < 2 || partialOut.shape[1] != spec_.clusterSize))
    return absl::InvalidArgumentError(absl::StrCat(
        "paged_decode merges in clusters of ", spec_.clusterSize,
        " partitions: partial_out must have ", spec_.clusterSize, " partitions (dimension 1), not ",
        partialOut.rank < 2 ? std::string("none") : std::to_string(partialOut.shape[1])));
  return absl::OkStatus();
}

absl::StatusOr<PagedDecode> PagedDecode::create(JitCompiler& jit, Device& device,
                                                const PagedDecodeConfig& config) {
  TJ_ASSIGN_OR_RETURN(OpConfig opConfig, pagedDecodeOpConfig(config));
  return create(jit, device, opConfig);
}

absl::StatusOr<PagedDecode> PagedDecode::create(JitCompiler& jit, Device& device,
                                                const OpConfig& config) {
  TJ_ASSIGN_OR_RETURN(std::unique_ptr<PagedDecodeOp> op, PagedDecodeOp::create(jit, device, config));
  PagedDecode decode;
  decode.op_ = std::move(op);
  return decode;
}

absl::Status PagedDecode::operator()(const PagedDecodeArgs& a, Stream stream) const {
  // Arguments of an option that is off are never read: any f32 view of the shape does (the
  // partials' LSEs, [num_q_heads] or [1] of them).
  auto unread = [&](const TensorArg& given, bool read, const char* name, const char* shape,
                    int64_t extent) -> absl::StatusOr<TensorArg> {
    if (given.rank > 0) return given;
    if (read)
      return absl::InvalidArgumentError(absl::StrCat("paged_decode with this config reads the argument '",
                                                     name, "' (", shape, " f32): none given"));
    TensorArg stand_in = a.partialLse;
    stand_in.rank = 1;
    stand_in.shape[0] = extent;
    stand_in.strides[0] = 1;
    return stand_in;
  };
  const int64_t qHeads = a.partialLse.rank > 0 ? a.partialLse.shape[a.partialLse.rank - 1] : 0;
  const bool fp8 = op_->config().text("kv_cache_dtype") != "auto";
  TJ_ASSIGN_OR_RETURN(TensorArg sinks, unread(a.sinks, op_->config().flag("sinks"), "sinks",
                                              "[num_q_heads]", qHeads));
  TJ_ASSIGN_OR_RETURN(TensorArg kScales, unread(a.kScales, fp8, "k_scales", "[1] or [num_kv_heads]", 1));
  TJ_ASSIGN_OR_RETURN(TensorArg vScales, unread(a.vScales, fp8, "v_scales", "[1] or [num_kv_heads]", 1));
  const KernelArg args[] = {a.output,      a.partialOut,  a.partialLse,  a.query,
                            a.keyCache,    a.valueCache,  a.blockTables,
                            a.seqLens,     a.alibiSlopes, sinks,         kScales,
                            vScales,       a.arrivals,
                            ScalarArg::f32(a.scale),       ScalarArg::f32(a.softCapValue),
                            ScalarArg{DType::kI32, 0, a.slidingWindow}};
  return op_->run(args, stream);
}

namespace ops {
absl::Status register_paged_decode(OpRegistry& registry) {
  return registry.add({"paged_decode",
                       "paged attention decode: the split-K kernel and the merge of its partitions",
                       pagedDecodeSchema(),
                       {"paged_decode", "paged_decode_reduce"},
                       [](JitCompiler& jit, Device& device, const OpConfig& config)
                           -> absl::StatusOr<std::unique_ptr<Op>> {
                         TJ_ASSIGN_OR_RETURN(std::unique_ptr<PagedDecodeOp> op,
                                             PagedDecodeOp::create(jit, device, config));
                         return std::unique_ptr<Op>(std::move(op));
                       }});
}
}  // namespace ops

}  // namespace tilejit
