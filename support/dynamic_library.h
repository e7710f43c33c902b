// RAII owner of a dlopen handle. Vendor libraries (libcuda, libnvrtc, ...) are loaded at run
// time so that one build serves machines with and without them (DESIGN principle 6).
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace tilejit {

class DynamicLibrary {
 public:
  DynamicLibrary() = default;
  DynamicLibrary(DynamicLibrary&& other) noexcept;
  DynamicLibrary& operator=(DynamicLibrary&& other) noexcept;
  DynamicLibrary(const DynamicLibrary&) = delete;
  DynamicLibrary& operator=(const DynamicLibrary&) = delete;
  ~DynamicLibrary();

  // Opens the first candidate that loads (sonames or paths, tried in order). The error lists
  // every attempt with its dlerror text, so a missing library is diagnosable from the message.
  static absl::StatusOr<DynamicLibrary> open(std::initializer_list<std::string_view> candidates);
  static absl::StatusOr<DynamicLibrary> open(const std::vector<std::string>& candidates);

  // Address of `name` converted to T (a function pointer type).
  template <typename T>
  absl::StatusOr<T> symbol(std::string_view name) const {
    absl::StatusOr<void*> address = rawSymbol(name);
    if (!address.ok()) return address.status();
    return reinterpret_cast<T>(*address);
  }
  absl::StatusOr<void*> rawSymbol(std::string_view name) const;

  bool isOpen() const { return handle_ != nullptr; }
  // The candidate that was opened, e.g. "libcuda.so.1".
  const std::string& path() const { return path_; }

 private:
  DynamicLibrary(void* handle, std::string path) : handle_(handle), path_(std::move(path)) {}
  void* handle_ = nullptr;
  std::string path_;
};

}  // namespace tilejit
