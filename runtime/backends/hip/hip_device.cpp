// The HIP backend's registration; its device follows the code object reader.
#include "runtime/device_registry.h"

namespace tilejit {

DeviceBackend hipDeviceBackend() {
  return {"hip", 200, [](std::string_view target) { return target.substr(0, 3) == "gfx"; },
          []() -> absl::StatusOr<std::unique_ptr<Device>> {
            return absl::UnavailableError(
                "no AMD GPU: the HIP backend has no device yet (only its code object reader)");
          }};
}

}  // namespace tilejit
