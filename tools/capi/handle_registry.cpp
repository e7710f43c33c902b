#include "tools/capi/handle_registry.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace tilejit::capi {
namespace {

const char* kindName(HandleKind kind) {
  switch (kind) {
    case HandleKind::kJit: return "tj_jit";
    case HandleKind::kDevice: return "tj_device";
    case HandleKind::kKernel: return "tj_kernel";
    case HandleKind::kPagedDecode: return "tj_paged_decode";
    case HandleKind::kOp: return "tj_op";
    case HandleKind::kBundle: return "tj_bundle";
  }
  return "handle";
}

}  // namespace

HandleRegistry& HandleRegistry::instance() {
  static HandleRegistry* registry = new HandleRegistry;  // never destroyed: atexit-order safe
  return *registry;
}

void HandleRegistry::add(const void* handle, HandleKind kind, std::vector<const void*> dependsOn) {
  std::unique_lock<std::shared_mutex> lock(mutex_);
  live_[handle] = Record{kind, std::move(dependsOn)};
}

absl::Status HandleRegistry::checkLocked(const void* handle, HandleKind kind, const char* function,
                                         const char* what) const {
  if (handle == nullptr) return absl::InvalidArgumentError(absl::StrCat(function, ": ", what, " is NULL"));
  auto found = live_.find(handle);
  if (found == live_.end()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: %s %p is not a live %s (destroyed, or not made by this library)", function, what,
        handle, kindName(kind)));
  }
  if (found->second.kind != kind) {
    return absl::InvalidArgumentError(absl::StrFormat("%s: %s %p is a %s, not a %s", function, what,
                                                      handle, kindName(found->second.kind),
                                                      kindName(kind)));
  }
  return absl::OkStatus();
}

absl::Status HandleRegistry::check(const void* handle, HandleKind kind, const char* function,
                                   const char* what) const {
  std::shared_lock<std::shared_mutex> lock(mutex_);
  return checkLocked(handle, kind, function, what);
}

absl::Status HandleRegistry::checkKernelFor(const void* kernel, const void* device,
                                            const char* function) const {
  std::shared_lock<std::shared_mutex> lock(mutex_);
  if (absl::Status status = checkLocked(device, HandleKind::kDevice, function, "device"); !status.ok())
    return status;
  if (absl::Status status = checkLocked(kernel, HandleKind::kKernel, function, "kernel"); !status.ok())
    return status;
  const std::vector<const void*>& owners = live_.at(kernel).dependsOn;
  if (std::find(owners.begin(), owners.end(), device) == owners.end()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: kernel %p was loaded for another device than %p", function, kernel, device));
  }
  return absl::OkStatus();
}

absl::Status HandleRegistry::release(const void* handle, HandleKind kind, const char* function) {
  std::unique_lock<std::shared_mutex> lock(mutex_);
  if (absl::Status status = checkLocked(handle, kind, function, "handle"); !status.ok()) return status;
  std::vector<const void*> dyingKernels;
  int users = 0;
  for (const auto& [other, record] : live_) {
    const auto& deps = record.dependsOn;
    if (std::find(deps.begin(), deps.end(), handle) == deps.end()) continue;
    if (record.kind == HandleKind::kKernel && kind != HandleKind::kDevice) {
      dyingKernels.push_back(other);
    } else {
      ++users;
    }
  }
  if (users > 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        function, ": ", users, " live handle", users == 1 ? "" : "s",
        " still use this ", kindName(kind), ": destroy ", users == 1 ? "it" : "them",
        " first (nothing was destroyed)"));
  }
  for (const void* kernel : dyingKernels) live_.erase(kernel);
  live_.erase(handle);
  return absl::OkStatus();
}

}  // namespace tilejit::capi
