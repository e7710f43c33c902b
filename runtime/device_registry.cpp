#include "runtime/device_registry.h"

#include <algorithm>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace tilejit {

// Each backend folder defines `DeviceBackend <folder>DeviceBackend()`; the generated list names
// them as TJ_DEVICE_BACKEND(<folder>).
#define TJ_DEVICE_BACKEND(folder) DeviceBackend folder##DeviceBackend();
#include "runtime/backends/device_backends.inc"
#undef TJ_DEVICE_BACKEND

void DeviceRegistry::add(DeviceBackend backend) {
  auto after = std::upper_bound(
      backends_.begin(), backends_.end(), backend.rank,
      [](int rank, const DeviceBackend& existing) { return rank < existing.rank; });
  backends_.insert(after, std::move(backend));
}

absl::StatusOr<std::unique_ptr<Device>> DeviceRegistry::createBest(
    std::vector<std::string>* skipped) const {
  std::vector<std::string> reasons;
  for (const DeviceBackend& backend : backends_) {
    absl::StatusOr<std::unique_ptr<Device>> device = backend.create();
    if (device.ok()) {
      if (skipped) *skipped = std::move(reasons);
      return device;
    }
    reasons.emplace_back(device.status().message());
  }
  if (skipped) *skipped = reasons;
  return absl::UnavailableError(
      absl::StrCat("no device backend has a device here: ", absl::StrJoin(reasons, "; ")));
}

absl::StatusOr<std::unique_ptr<Device>> DeviceRegistry::createForTarget(
    std::string_view target) const {
  // What each backend found, kept for the error: the backends that may run `target` are tried
  // first, so that the others' devices are created only when none of them has it.
  std::vector<std::optional<std::string>> found(backends_.size());
  for (size_t i = 0; i < backends_.size(); ++i) {
    if (!backends_[i].runsTarget(target)) continue;
    absl::StatusOr<std::unique_ptr<Device>> device =
        backends_[i].createFor ? backends_[i].createFor(target) : backends_[i].create();
    if (!device.ok()) {
      found[i] = std::string(device.status().message());
      continue;
    }
    if ((*device)->target() == target) return device;
    found[i] = absl::StrCat((*device)->name(), " runs ", (*device)->target());
  }
  std::vector<std::string> lines;
  for (size_t i = 0; i < backends_.size(); ++i) {
    if (!found[i]) {
      absl::StatusOr<std::unique_ptr<Device>> device = backends_[i].create();
      found[i] = device.ok() ? absl::StrCat((*device)->name(), " runs ", (*device)->target())
                             : std::string(device.status().message());
    }
    lines.push_back(absl::StrCat(backends_[i].name, ": ", *found[i]));
  }
  return absl::NotFoundError(absl::StrCat("no device here runs target '", std::string(target), "'; found ",
                                          lines.empty() ? "no device backend" : "",
                                          absl::StrJoin(lines, "; ")));
}

const DeviceRegistry& builtInDeviceBackends() {
  static const DeviceRegistry* registry = [] {
    auto* backends = new DeviceRegistry;
#define TJ_DEVICE_BACKEND(folder) backends->add(folder##DeviceBackend());
#include "runtime/backends/device_backends.inc"
#undef TJ_DEVICE_BACKEND
    return backends;
  }();
  return *registry;
}

std::unique_ptr<Device> createBestDevice(std::string* whyNotGpu) {
  std::vector<std::string> skipped;
  absl::StatusOr<std::unique_ptr<Device>> device = builtInDeviceBackends().createBest(&skipped);
  if (whyNotGpu) *whyNotGpu = absl::StrJoin(skipped, "; ");
  if (!device.ok()) return nullptr;
  return *std::move(device);
}

absl::StatusOr<std::unique_ptr<Device>> createDeviceForTarget(std::string_view target) {
  return builtInDeviceBackends().createForTarget(target);
}

}  // namespace tilejit
