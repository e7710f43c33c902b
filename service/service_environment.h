// How a client finds and uses the compile service: TILEJIT_COMPILE_SERVICE=off|auto|required
// (off: compile in-process, today's default; auto: ask the daemon when it answers, else compile
// in-process after one warning; required: fail when it does not answer) and
// TILEJIT_SERVICE_SOCKET (default: $XDG_RUNTIME_DIR/tilejit/tilejitd.sock, else
// tilejitd.sock in the kernel cache's directory).
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace tilejit::service {

enum class CompileServiceMode { kOff, kAuto, kRequired };

absl::StatusOr<CompileServiceMode> parseCompileServiceMode(std::string_view text);
const char* compileServiceModeName(CompileServiceMode mode);

// Off when unset; an unparseable value is off with the reason in `warning`.
CompileServiceMode compileServiceModeFromEnvironment(std::string* warning);

// TILEJIT_SERVICE_SOCKET, else the default above; an error only when no default exists (no
// XDG_RUNTIME_DIR and no cache directory).
absl::StatusOr<std::string> serviceSocketPathFromEnvironment();

}  // namespace tilejit::service
