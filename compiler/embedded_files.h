// Files compiled into the binary: the device library (templates/device/<backend>/...) and the
// shipped kernel templates (templates/*.mlir), keyed by their path under templates/.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace tilejit {

struct EmbeddedFile {
  std::string_view path;  // "device/cuda/tj/device.h", "merge_attn_states.mlir"
  std::string_view content;
};

const std::vector<EmbeddedFile>& embeddedFiles();

// The device library of one backend (its folder under device/) and the common kernel ABI
// (device/common/) as (include name, content) pairs, e.g. ("tj/device.h", ...), sorted by
// name. When $TILEJIT_DEVICE_LIB_DIR is set, the headers are read from that folder instead
// (kernel authors editing the library without rebuilding); without a common/ there, the
// embedded one is used.
absl::StatusOr<std::vector<std::pair<std::string, std::string>>> deviceLibraryHeaders(
    std::string_view backend);

// A shipped template's text by name ("merge_attn_states"), or an error listing the names.
absl::StatusOr<std::string> shippedTemplate(std::string_view name);
std::vector<std::string> shippedTemplateNames();

}  // namespace tilejit
