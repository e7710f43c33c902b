// The HIP backend's device factory, for tests and tools that name it.
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "runtime/device.h"

namespace tilejit {

// The HIP device `ordinal` through the process's HIP runtime (hip_runtime.h); "no AMD driver"
// or "no AMD GPU: hipInit returned 101 (hipErrorInvalidDevice)" style errors when absent.
absl::StatusOr<std::unique_ptr<Device>> createHipDevice(int ordinal = 0);

}  // namespace tilejit
