// The AOT manifest parser and its expansion on arbitrary bytes: errors, never a crash, and an
// expansion whose size matches its grids.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "tools/aot/aot_manifest.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<tilejit::AotManifest> manifest = tilejit::parseAotManifest(text, "/base");
  if (!manifest.ok()) return 0;
  size_t bound = 0;
  for (const tilejit::AotJob& job : manifest->jobs) {
    size_t product = job.targets.size();
    for (const auto& [name, values] : job.grid) {
      product *= values.size();
      if (product > 100000) return 0;  // large grids are the runner's limit to enforce
    }
    bound += product;
  }
  if (tilejit::expandAotManifest(*manifest).size() > bound) std::abort();
  return 0;
}
