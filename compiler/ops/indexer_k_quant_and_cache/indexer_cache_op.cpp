#include "compiler/ops/indexer_k_quant_and_cache/indexer_cache_op.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "support/status.h"

namespace tilejit::ops {
namespace {

constexpr int64_t kTokenBytes = 128 + 4;  // 128 fp8 values and one float32 scale

class IndexerCacheOp final : public Op {
 public:
  IndexerCacheOp(Device& device, const std::string& kernel, const OpConfig& config) {
    device_ = &device;
    name_ = kernel;
    config_ = config;
  }

  absl::Status setKernel(const LoadedKernel& loaded, CompiledKernel compiled) {
    for (const ArgSpec& arg : loaded.metadata().args)
      arguments_.push_back({arg.name, arg.kind == ArgSpec::Kind::kView, arg.dtype});
    launches_.push_back({&loaded, {}});
    compiled_ = std::move(compiled);
    compiled_.binary.clear();
    for (const auto& [name, value] : loaded.metadata().parameters)
      if (name == "block_size" && !absl::SimpleAtoi(value, &blockSize_))
        return absl::InternalError(absl::StrCat(name_, ": block_size '", value, "' is no integer"));
    values_ = argumentIndex("cache_values");
    scales_ = argumentIndex("cache_scales");
    if (blockSize_ <= 0 || values_ < 0 || scales_ < 0)
      return absl::InternalError(absl::StrCat(name_, ": the kernel has no block_size or cache views"));
    return absl::OkStatus();
  }

 protected:
  absl::Status checkArguments(absl::Span<const KernelArg> args) const override {
    if (args.size() != arguments_.size()) return absl::OkStatus();  // the launch says so
    const TensorArg& values = args[size_t(values_)].tensor;
    const TensorArg& scales = args[size_t(scales_)].tensor;
    const int64_t bytes = blockSize_ * kTokenBytes;
    if (values.rank == 2 && values.shape[1] != bytes)
      return absl::InvalidArgumentError(absl::StrCat(
          name_, ": argument 'cache_values' has ", values.shape[1], " bytes per block, but block_size ",
          blockSize_, " needs ", bytes, " (the cache [num_blocks, ", blockSize_, ", 132] flattened per block)"));
    if (scales.rank == 2 && scales.shape[1] * 4 != bytes)
      return absl::InvalidArgumentError(absl::StrCat(
          name_, ": argument 'cache_scales' has ", scales.shape[1], " words per block, but block_size ",
          blockSize_, " needs ", bytes / 4, " (the same cache as 32-bit words)"));
    if (values.data != scales.data)
      return absl::InvalidArgumentError(absl::StrCat(
          name_, ": arguments 'cache_values' and 'cache_scales' must view the same cache (their data "
          "pointers differ)"));
    return absl::OkStatus();
  }

 private:
  int64_t blockSize_ = 0;
  int values_ = -1, scales_ = -1;
};

}  // namespace

absl::Status addIndexerCacheOp(OpRegistry& registry, const std::string& kernel,
                               std::string summary, std::vector<OpParameter> parameters) {
  return registry.add(
      {kernel, std::move(summary), OpSchema(kernel, std::move(parameters)), {kernel},
       [kernel](JitCompiler& jit, Device& device,
                const OpConfig& config) -> absl::StatusOr<std::unique_ptr<Op>> {
         ParameterMap parameters(config.values().begin(), config.values().end());
         TJ_ASSIGN_OR_RETURN(KernelSpec spec,
                             opKernelSpec(config, kernel, device.target(), std::move(parameters)));
         auto op = std::make_unique<IndexerCacheOp>(device, kernel, config);
         CompiledKernel compiled;
         TJ_ASSIGN_OR_RETURN(const LoadedKernel* loaded, jit.load(device, spec, &compiled));
         TJ_RETURN_IF_ERROR(op->setKernel(*loaded, std::move(compiled)));
         return std::unique_ptr<Op>(std::move(op));
       }});
}

}  // namespace tilejit::ops
