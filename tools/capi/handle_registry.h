// The handles the C ABI has given out and not taken back, with the handles each depends on,
// so that a destroyed, foreign or mistyped handle is an error naming it instead of a crash
// inside a serving process, and a handle others still use is not destroyed under them.
#pragma once

#include <mutex>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/status/status.h"

namespace tilejit::capi {

enum class HandleKind { kJit, kDevice, kKernel, kPagedDecode, kOp, kBundle };

class HandleRegistry {
 public:
  static HandleRegistry& instance();

  void add(const void* handle, HandleKind kind, std::vector<const void*> dependsOn = {});
  // OK when `handle` is live and of `kind`; else an error "<function>: <what> ...".
  absl::Status check(const void* handle, HandleKind kind, const char* function,
                     const char* what) const;
  // OK when `kernel` is live and was loaded for `device`.
  absl::Status checkKernelFor(const void* kernel, const void* device, const char* function) const;
  // Takes `handle` back for destruction: an error (and nothing removed) when it is not a live
  // handle of `kind` or when live handles other than kernels depend on it; kernels depending
  // on it (they die with their jit or bundle) are removed with it.
  absl::Status release(const void* handle, HandleKind kind, const char* function);

 private:
  struct Record {
    HandleKind kind;
    std::vector<const void*> dependsOn;
  };
  absl::Status checkLocked(const void* handle, HandleKind kind, const char* function,
                           const char* what) const;

  // Shared for the checks every launch makes, exclusive for add and release: launches from
  // many threads do not queue behind one another.
  mutable std::shared_mutex mutex_;
  std::unordered_map<const void*, Record> live_;
};

}  // namespace tilejit::capi
