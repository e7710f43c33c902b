// Emission: a specialized tj template -> one self-contained C++ translation unit over the
// device library, plus the runtime metadata (signature, grid expressions, threads).
// Deterministic: the same module gives the same bytes.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "compiler/targets/target_description.h"
#include "dialects/tj/TjDialect.h"
#include "runtime/kernel_metadata.h"

namespace tilejit {

// Bumped whenever emitted code or its metadata changes for the same input; part of every
// cache key (15: a cluster merge stages its partial over the placed tiles, not in the
// scratch).
inline constexpr const char* kEmitterVersion = "tj-emit-15";

struct EmittedKernel {
  std::string source;       // the translation unit
  std::string sourceName;   // the template name and the backend's source suffix
  KernelMetadata metadata;  // resources left empty: the toolchain reports them
};

absl::StatusOr<EmittedKernel> emitKernel(mlir::tj::TemplateOp specialized,
                                         const TargetDescription& target);

}  // namespace tilejit
