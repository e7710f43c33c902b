// What an engine that links only the runtime does with the compile service: ask for a kernel
// by template name and parameters, verify the entry, and load it on a device. No MLIR, LLVM,
// nvrtc or compiler is linked (tests/check_no_llvm.sh checks tilejit-client).
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "runtime/device.h"
#include "service/client.h"

namespace tilejit::service {

struct ServiceLoadInfo {
  std::string key;
  ServedTier tier = ServedTier::kCompiled;
  double serverSeconds = 0;  // the daemon's time on the request
  double totalSeconds = 0;   // request, verification and load
};

// `request.target` empty means the device's target. FailedPrecondition when the entry was
// built for another target than the device runs.
absl::StatusOr<std::unique_ptr<LoadedKernel>> loadFromService(ServiceClient& client,
                                                              Device& device,
                                                              CompileRequest request,
                                                              ServiceLoadInfo* info = nullptr);

}  // namespace tilejit::service
