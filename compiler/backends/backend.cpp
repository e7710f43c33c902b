#include "compiler/backends/backend.h"

#include <algorithm>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "dialects/tj/TjDialect.h"
#include "mlir/Pass/PassManager.h"
#include "support/status.h"

namespace tilejit {

void CompilerBackend::addTargetPasses(mlir::OpPassManager&, const TargetDescription&) const {}

void CompilerBackend::registerPasses() const {}

int64_t CompilerBackend::libraryScratchBytes(mlir::Operation*) const { return 0; }

std::map<int64_t, int64_t> CompilerBackend::placedBufferSizes(mlir::Operation*) const { return {}; }

bool CompilerBackend::clusterMergeStagesInPlacedBuffers(mlir::Operation*) const { return false; }

bool CompilerBackend::libraryHasFragmentTiles(std::string_view) const { return false; }

int64_t CompilerBackend::perProgramReservedBytes() const { return 0; }

std::string CompilerBackend::resourceReport(const KernelMetadata&, const std::string&) const {
  return std::string();
}

absl::StatusOr<std::string> CompilerBackend::emitPrelude(const KernelPrelude& kernel,
                                                         KernelMetadata& metadata) const {
  metadata.dynamicSharedBytes = kernel.dynamicSharedBytes;
  TJ_ASSIGN_OR_RETURN(metadata.clusterPrograms, clusterProgramsOf(kernel.kernel, metadata, *kernel.target));
  return std::string();
}

int64_t CompilerBackend::programsThatFit(const TargetDescription& target,
                                         int64_t bytesPerProgram) const {
  // A multiprocessor holds the per-program maximum plus one program's reserve.
  const int64_t reserve = perProgramReservedBytes();
  return (target.sharedBytesPerProgram + reserve) / std::max<int64_t>(1, bytesPerProgram + reserve);
}

absl::StatusOr<int64_t> clusterProgramsOf(mlir::Operation* kernel, const KernelMetadata& metadata,
                                          const TargetDescription& target) {
  int64_t programs = 1;
  for (const auto& [name, value] : metadata.parameters)
    if (name == "cluster_size" && !absl::SimpleAtoi(value, &programs))
      return absl::InvalidArgumentError(absl::StrCat("cluster_size '", value, "' is not an integer"));
  if (programs < 1 || programs > std::max<int64_t>(1, target.maxClusterPrograms))
    return absl::InvalidArgumentError(absl::StrCat(
        "cluster_size ", programs, ": target ", target.name,
        target.maxClusterPrograms > 1
            ? absl::StrCat(" holds 1..", target.maxClusterPrograms, " programs per cluster")
            : " has no thread-block clusters (cluster_size must be 1)"));
  mlir::tj::ClusterMergeStoreOp merge;
  kernel->walk([&](mlir::tj::ClusterMergeStoreOp op) { merge = op; });
  if (merge && programs < 2)
    return absl::InvalidArgumentError(absl::StrCat(
        "template '", metadata.templateName,
        "' merges through a thread-block cluster (tj.cluster_merge_store) but is specialized "
        "with cluster_size ", programs, "; it needs 2 or more"));
  return programs;
}

}  // namespace tilejit
