// Checks a HIP kernel's code object against the launch contract the runtime keeps for it: the
// entry is in the object, compiled for the metadata's target, and its kernel arguments take the
// bytes runtime/launch.cpp packs (templates/device/README.md, "Kernel ABI": 8-byte slots, a view
// of rank R = data pointer, R extents, R strides), before hipModuleLoadData sees it.
#pragma once

#include <string_view>

#include "absl/status/statusor.h"
#include "runtime/backends/hip/code_object.h"
#include "runtime/kernel_metadata.h"

namespace tilejit {

// The entry's descriptor, or an error naming the kernel and what does not match; with
// `deviceArchName` (gcnArchName), the code object's target features are checked against it.
absl::StatusOr<AmdKernelDescriptor> checkHipCodeObject(const KernelMetadata& metadata,
                                                       std::string_view codeObject,
                                                       std::string_view deviceArchName = {});

// The explicit (not hidden_*) arguments of `kernel` against the slots the runtime packs for
// `metadata.args`: one by-value struct of the packed size at offset 0, or one argument per
// slot run, each starting a slot, with nothing left over.
absl::Status checkHipKernelArguments(const KernelMetadata& metadata,
                                     const AmdKernelDescriptor& kernel);

// A code object compiled for a target feature setting ("amdgcn-amd-amdhsa--gfx90a:xnack+")
// loads only on a device with the same setting (gcnArchName "gfx90a:sramecc-:xnack+"); one
// that leaves a feature unnamed loads with either.
absl::Status checkHipTargetFeatures(std::string_view codeObjectTarget,
                                    std::string_view deviceArchName);

}  // namespace tilejit
