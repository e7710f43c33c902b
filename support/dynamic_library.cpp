#include "support/dynamic_library.h"

#include <dlfcn.h>

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace tilejit {

DynamicLibrary::DynamicLibrary(DynamicLibrary&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)), path_(std::move(other.path_)) {}

DynamicLibrary& DynamicLibrary::operator=(DynamicLibrary&& other) noexcept {
  if (this != &other) {
    if (handle_) dlclose(handle_);
    handle_ = std::exchange(other.handle_, nullptr);
    path_ = std::move(other.path_);
  }
  return *this;
}

DynamicLibrary::~DynamicLibrary() {
  if (handle_) dlclose(handle_);
}

absl::StatusOr<DynamicLibrary> DynamicLibrary::open(
    std::initializer_list<std::string_view> candidates) {
  return open(std::vector<std::string>(candidates.begin(), candidates.end()));
}

absl::StatusOr<DynamicLibrary> DynamicLibrary::open(const std::vector<std::string>& candidates) {
  std::vector<std::string> failures;
  for (const std::string& candidate : candidates) {
    // RTLD_LOCAL keeps vendor symbols out of the global namespace, where they could clash
    // with another copy loaded by PyTorch or Triton in the same process.
    void* handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle) return DynamicLibrary(handle, candidate);
    const char* error = dlerror();
    failures.push_back(error ? std::string(error) : absl::StrCat(candidate, ": unknown error"));
  }
  if (candidates.empty()) return absl::InvalidArgumentError("dlopen: no candidate names given");
  return absl::NotFoundError(absl::StrJoin(failures, "; "));
}

absl::StatusOr<void*> DynamicLibrary::rawSymbol(std::string_view name) const {
  if (!handle_) return absl::FailedPreconditionError("dlsym on a library that is not open");
  std::string nameString(name);
  dlerror();  // clear a stale error so a null symbol value is told apart from a failure
  void* address = dlsym(handle_, nameString.c_str());
  if (const char* error = dlerror())
    return absl::NotFoundError(absl::StrCat("dlsym(", nameString, ") in ", path_, ": ", error));
  if (!address)
    return absl::NotFoundError(absl::StrCat("dlsym(", nameString, ") in ", path_, " is null"));
  return address;
}

}  // namespace tilejit
