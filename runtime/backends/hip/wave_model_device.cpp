#include "runtime/backends/hip/wave_model_device.h"

#include <cstdlib>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "runtime/backends/cpu/cpu_device.h"

namespace tilejit {

bool waveModelSelected() {
  const char* route = std::getenv(kAmdToolchainVariable);
  return route && std::string_view(route) == kWaveModelRoute;
}

absl::StatusOr<std::unique_ptr<Device>> createWaveModelDevice(const std::string& target) {
  if (!absl::StartsWith(target, "gfx") || target.size() < 6)
    return absl::InvalidArgumentError(absl::StrCat(
        "the wave model runs AMDGPU processors (gfx90a, gfx942, ...), not '", target, "'"));
  return createHostEntryDevice("hip", target);
}

}  // namespace tilejit
