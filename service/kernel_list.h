// A list of kernels to load, one per line: a shipped template's name, then `name=value`
// parameters ("paged_decode head_size=128 gqa_ratio=4"); '#' starts a comment. What an engine
// (or the start-up benchmark) asks the daemon for at start.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "service/protocol.h"

namespace tilejit::service {

// Requests with an empty target (the loader's device decides). Errors name the line.
absl::StatusOr<std::vector<CompileRequest>> parseKernelList(const std::string& text);

}  // namespace tilejit::service
