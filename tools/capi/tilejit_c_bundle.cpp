// The C ABI's bundles: the runtime half of AOT (open, list, load) for engines that ship
// precompiled kernels.
#include "absl/strings/str_cat.h"
#include "tools/capi/capi_internal.h"

using namespace tilejit::capi;

TJ_EXPORT tj_bundle* tj_bundle_open(const char* path) {
  if (path == nullptr) return fail(missing("tj_bundle_open", "path"), static_cast<tj_bundle*>(nullptr));
  absl::StatusOr<tilejit::Bundle> bundle = tilejit::Bundle::open(path);
  if (!bundle.ok()) return fail(bundle.status(), static_cast<tj_bundle*>(nullptr));
  auto* handle = new tj_bundle{*std::move(bundle), {}, {}};
  for (const tilejit::BundleEntry& entry : handle->bundle.entries())
    handle->parameterTexts.push_back(tilejit::formatBundleParameters(entry.parameters));
  handles().add(handle, HandleKind::kBundle);
  return handle;
}

TJ_EXPORT void tj_bundle_destroy(tj_bundle* bundle) {
  destroyHandle(bundle, HandleKind::kBundle, "tj_bundle_destroy");
}

TJ_EXPORT int tj_bundle_num_entries(const tj_bundle* bundle) {
  if (absl::Status ok = handles().check(bundle, HandleKind::kBundle, "tj_bundle_num_entries", "bundle");
      !ok.ok())
    return fail(ok, -1);
  return int(bundle->bundle.entries().size());
}

namespace {
// The entry at `index`, or nullptr with the error set.
const tilejit::BundleEntry* entryAt(const tj_bundle* bundle, int index, const char* function) {
  if (absl::Status ok = handles().check(bundle, HandleKind::kBundle, function, "bundle"); !ok.ok())
    return fail(ok, static_cast<const tilejit::BundleEntry*>(nullptr));
  const auto& entries = bundle->bundle.entries();
  if (index < 0 || size_t(index) >= entries.size()) {
    return fail(absl::OutOfRangeError(absl::StrCat(function, ": the bundle has ", entries.size(),
                                                   " entries, no entry ", index)),
                static_cast<const tilejit::BundleEntry*>(nullptr));
  }
  return &entries[size_t(index)];
}
}  // namespace

TJ_EXPORT const char* tj_bundle_entry_template(const tj_bundle* bundle, int index) {
  const tilejit::BundleEntry* entry = entryAt(bundle, index, "tj_bundle_entry_template");
  return entry ? entry->templateName.c_str() : nullptr;
}

TJ_EXPORT const char* tj_bundle_entry_target(const tj_bundle* bundle, int index) {
  const tilejit::BundleEntry* entry = entryAt(bundle, index, "tj_bundle_entry_target");
  return entry ? entry->target.c_str() : nullptr;
}

TJ_EXPORT const char* tj_bundle_entry_parameters(const tj_bundle* bundle, int index) {
  const tilejit::BundleEntry* entry = entryAt(bundle, index, "tj_bundle_entry_parameters");
  return entry ? bundle->parameterTexts[size_t(index)].c_str() : nullptr;
}

TJ_EXPORT const tj_kernel* tj_bundle_load(tj_bundle* bundle, tj_device* device, const char* templ,
                                          const char* const* params, int num_params) {
  absl::Status usable = handles().check(bundle, HandleKind::kBundle, "tj_bundle_load", "bundle");
  if (usable.ok()) usable = handles().check(device, HandleKind::kDevice, "tj_bundle_load", "device");
  if (usable.ok() && templ == nullptr) usable = missing("tj_bundle_load", "templ");
  if (!usable.ok()) return fail(usable, static_cast<const tj_kernel*>(nullptr));
  absl::StatusOr<std::map<std::string, std::string>> wanted = parseAssignments(params, num_params);
  if (!wanted.ok()) return fail(wanted.status(), static_cast<const tj_kernel*>(nullptr));
  absl::StatusOr<const tilejit::BundleEntry*> entry =
      bundle->bundle.find(templ, device->target, *wanted);
  if (!entry.ok()) return fail(entry.status(), static_cast<const tj_kernel*>(nullptr));
  absl::StatusOr<std::unique_ptr<tilejit::LoadedKernel>> loaded =
      device->device->load((*entry)->metadata, (*entry)->binary);
  if (!loaded.ok()) return fail(loaded.status(), static_cast<const tj_kernel*>(nullptr));
  bundle->loaded.push_back(*std::move(loaded));
  const auto* handle = reinterpret_cast<const tj_kernel*>(bundle->loaded.back().get());
  handles().add(handle, HandleKind::kKernel, {bundle, device});
  return handle;
}
