// The runtime's view of a specialized kernel: argument specs (with cache layouts resolved to
// their physical extents), grid expressions and threads per program.
#pragma once

#include "absl/status/statusor.h"
#include "compiler/targets/target_description.h"
#include "dialects/tj/TjDialect.h"
#include "runtime/kernel_metadata.h"

namespace tilejit {

absl::StatusOr<DType> dtypeOf(mlir::Type type);

// Physical extents of a view or kv_cache argument, outermost first.
absl::StatusOr<std::vector<DimSpec>> physicalDims(mlir::Type type);

// Fills everything but resources: args, grid, threads, names, parameters.
absl::StatusOr<KernelMetadata> buildKernelMetadata(mlir::tj::TemplateOp specialized,
                                                   const TargetDescription& target);

}  // namespace tilejit
