#include "service/service_environment.h"

#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "cache/disk_cache.h"

namespace tilejit::service {

absl::StatusOr<CompileServiceMode> parseCompileServiceMode(std::string_view text) {
  if (text == "off" || text == "0" || text.empty()) return CompileServiceMode::kOff;
  if (text == "auto") return CompileServiceMode::kAuto;
  if (text == "required") return CompileServiceMode::kRequired;
  return absl::InvalidArgumentError(absl::StrCat("TILEJIT_COMPILE_SERVICE='", std::string(text),
                                                 "' is not one of off, auto, required"));
}

const char* compileServiceModeName(CompileServiceMode mode) {
  switch (mode) {
    case CompileServiceMode::kOff: return "off";
    case CompileServiceMode::kAuto: return "auto";
    case CompileServiceMode::kRequired: return "required";
  }
  return "off";
}

CompileServiceMode compileServiceModeFromEnvironment(std::string* warning) {
  const char* value = std::getenv("TILEJIT_COMPILE_SERVICE");
  if (!value) return CompileServiceMode::kOff;
  absl::StatusOr<CompileServiceMode> mode = parseCompileServiceMode(value);
  if (mode.ok()) return *mode;
  if (warning) *warning = absl::StrCat(mode.status().message(), "; compiling in-process");
  return CompileServiceMode::kOff;
}

absl::StatusOr<std::string> serviceSocketPathFromEnvironment() {
  if (const char* path = std::getenv("TILEJIT_SERVICE_SOCKET"); path && *path) return std::string(path);
  // The runtime directory is per user, 0700 and on tmpfs: what systemd gives a user's sockets.
  if (const char* runtime = std::getenv("XDG_RUNTIME_DIR"); runtime && *runtime)
    return absl::StrCat(runtime, "/tilejit/tilejitd.sock");
  absl::StatusOr<std::string> cacheDirectory = defaultCacheDirectory();
  if (!cacheDirectory.ok())
    return absl::FailedPreconditionError(absl::StrCat(
        "no socket path for the compile service: set TILEJIT_SERVICE_SOCKET (",
        cacheDirectory.status().message(), ")"));
  return absl::StrCat(*cacheDirectory, "/tilejitd.sock");
}

}  // namespace tilejit::service
