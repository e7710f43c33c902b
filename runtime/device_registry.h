// The device backends built into the runtime (one folder each under runtime/backends/) and the
// searches over them: the best device present, the device that runs a given target.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/device.h"

namespace tilejit {

struct DeviceBackend {
  std::string name;  // the backend's folder name: "cuda", "cpu"
  int rank = 0;      // searches try lower ranks first
  // Whether this backend's devices may run kernels for `target` ("sm_90", "host"); lets a
  // search skip backends without creating their device.
  std::function<bool(std::string_view target)> runsTarget;
  // The backend's default device; an error says what is missing (driver, GPU) and names the
  // vendor, since createBestDevice reports it without the backend's name.
  std::function<absl::StatusOr<std::unique_ptr<Device>>()> create;
  // The backend's device for a named target where that may differ from create()'s (the AMD
  // wave model runs the target it is asked for); unset: create(). Used by createForTarget.
  std::function<absl::StatusOr<std::unique_ptr<Device>>(std::string_view target)> createFor;
};

class DeviceRegistry {
 public:
  // Keeps the backends ordered by rank; equal ranks keep the order they were added in.
  void add(DeviceBackend backend);
  const std::vector<DeviceBackend>& backends() const { return backends_; }

  // The first backend's device that can be created; `skipped` gets, in order, why each backend
  // before it had none. An error lists every reason when no backend has a device.
  absl::StatusOr<std::unique_ptr<Device>> createBest(
      std::vector<std::string>* skipped = nullptr) const;
  // The first backend's device whose target() is `target`; an error lists what each backend
  // found here (its device and target, or why it has none).
  absl::StatusOr<std::unique_ptr<Device>> createForTarget(std::string_view target) const;

 private:
  std::vector<DeviceBackend> backends_;
};

// Every backend folder under runtime/backends/, registered through the list CMake generates
// from them (no static initialisers, which a static library would drop).
const DeviceRegistry& builtInDeviceBackends();

}  // namespace tilejit
