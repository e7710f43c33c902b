// What every AMD toolchain shares: the options that fix the output (code object v5, -O3), the
// check of a produced code object (its metadata names the entry; the resources come from it),
// the vendor library loading and a RAII owner for the vendor libraries' handles.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "compiler/targets/target_description.h"
#include "compiler/toolchains/toolchain.h"
#include "runtime/backends/hip/code_object.h"
#include "support/dynamic_library.h"

namespace tilejit {

// Code object v5 everywhere: clang 22 defaults to v6, which ROCm before 6.2 rejects, and v5 is
// what ROCm 6 and 7 load (TOOLCHAIN.md, AMD).
inline constexpr int kAmdCodeObjectVersion = 5;

// The clang options every AMD route passes beside its target (--offload-arch or the ISA).
std::vector<std::string> amdCompileOptions();

// The descriptor of `entry` in the code object's amdhsa.kernels metadata; fails unless
// `binary` is an AMDGPU code object that holds that kernel.
absl::StatusOr<AmdKernelDescriptor> amdKernelOf(const std::string& binary,
                                                const std::string& entry);

// Checks `result.binary` holds `entry` and fills `result.resources` from its metadata.
absl::Status takeAmdResources(CompileResult& result, const std::string& entry);

// The first of `candidates` that dlopen loads; else an Unavailable error that names `what`
// ("comgr") and every candidate tried.
absl::StatusOr<DynamicLibrary> openVendorLibrary(const std::string& what,
                                                 const std::vector<std::string>& candidates);

// `load(candidates)` once per candidate list for the process (the result, failure included, is
// kept; a library is never unloaded: toolchains compile from many threads).
template <typename Api>
absl::StatusOr<const Api*> loadOnce(
    const std::vector<std::string>& candidates,
    absl::StatusOr<std::unique_ptr<Api>> (*load)(const std::vector<std::string>&)) {
  static std::mutex mutex;
  static auto* loaded =
      new std::map<std::vector<std::string>, absl::StatusOr<std::unique_ptr<Api>>>();
  std::lock_guard<std::mutex> lock(mutex);
  auto it = loaded->find(candidates);
  if (it == loaded->end()) it = loaded->emplace(candidates, load(candidates)).first;
  if (!it->second.ok()) return it->second.status();
  return it->second.value().get();
}

// Owns one vendor handle and releases it with `release` (comgr data, data sets, action infos;
// hiprtc programs).
template <typename Handle, typename Release>
class VendorHandle {
 public:
  VendorHandle(Handle handle, Release release) : handle_(handle), release_(std::move(release)) {}
  VendorHandle(const VendorHandle&) = delete;
  VendorHandle& operator=(const VendorHandle&) = delete;
  ~VendorHandle() { release_(handle_); }
  Handle get() const { return handle_; }

 private:
  Handle handle_;
  Release release_;
};

}  // namespace tilejit
