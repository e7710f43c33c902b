// The JIT's way to tilejitd (TILEJIT_COMPILE_SERVICE, service/service_environment.h): a
// kernel missing from this process's cache is asked of the node's daemon, which compiles each
// key once for every process. In auto mode a daemon that does not answer, or that was built
// from another tilejit (its key differs from ours), costs one warning and an in-process
// compile; in required mode either is an error.
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "cache/disk_cache.h"
#include "service/service_environment.h"

namespace tilejit {

struct KernelSpec;

class CompileServiceRoute {
 public:
  CompileServiceRoute(service::CompileServiceMode mode, std::string socketPath,
                      std::function<void(const std::string&)> warningSink);

  // The daemon's entry for `spec`, whose key here is `localKey`; nullopt: compile in-process.
  // Errors: required mode without an answer, and what the daemon answered with an error (a
  // rejected specialization fails the same way in-process).
  absl::StatusOr<std::optional<CacheEntry>> fetch(const KernelSpec& spec,
                                                  const std::string& localKey,
                                                  CacheSource* source);

  service::CompileServiceMode mode() const { return mode_; }
  const std::string& socketPath() const { return socketPath_; }

 private:
  // Auto mode: warn (once per process) and compile in-process; required: the error.
  absl::StatusOr<std::optional<CacheEntry>> unavailable(const absl::Status& why);

  service::CompileServiceMode mode_;
  std::string socketPath_;
  std::function<void(const std::string&)> warningSink_;
  std::atomic<bool> warned_{false};
};

}  // namespace tilejit
