#include "runtime/backends/hip/wave_model_device.h"

#include "absl/strings/str_cat.h"
#include "runtime/backends/cpu/cpu_device.h"

namespace tilejit {

absl::StatusOr<std::unique_ptr<Device>> createWaveModelDevice(const std::string& target) {
  if (target != "gfx90a" && target != "gfx942" && target != "gfx1100")
    return absl::InvalidArgumentError(absl::StrCat(
        "the wave model runs gfx90a, gfx942 and gfx1100, not '", target, "'"));
  return createHostEntryDevice("hip", target);
}

}  // namespace tilejit
