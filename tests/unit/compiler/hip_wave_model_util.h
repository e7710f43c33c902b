// Helpers of the CPU wave model's tests: the wave-model route for the hip backend while a
// scope lives, and probe kernels of the tests' own compiled for the model and run directly.
#pragma once

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "compiler/backends/hip/wave_model_toolchain.h"
#include "compiler/embedded_files.h"
#include "compiler/targets/target_description.h"
#include "support/status.h"

namespace tilejit {
namespace testing {

// The five AMD targets the model runs.
inline const std::vector<std::string>& waveModelTargets() {
  static const std::vector<std::string> targets = {"gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1201"};
  return targets;
}

// Sets $TILEJIT_AMD_TOOLCHAIN to `route` (unset when empty) while it lives.
class AmdRoute {
 public:
  explicit AmdRoute(const std::string& route = kWaveModelRoute) {
    if (const char* old = std::getenv(kAmdToolchainVariable)) saved_ = old;
    if (route.empty()) unsetenv(kAmdToolchainVariable);
    else setenv(kAmdToolchainVariable, route.c_str(), 1);
  }
  ~AmdRoute() {
    if (saved_) setenv(kAmdToolchainVariable, saved_->c_str(), 1);
    else unsetenv(kAmdToolchainVariable);
  }

 private:
  std::optional<std::string> saved_;
};

using ProbeEntry = void (*)(const void*, const int64_t*, const int64_t*);
using ProbeError = int (*)(char*, unsigned long);

// What one workgroup of a probe left: the words as it wrote them, and the model's error.
struct ProbeRun {
  std::vector<int> words;
  std::string error;  // empty: none
};

// The kernel object of `source` (which defines `entry`) for `target`, from the wave-model
// toolchain.
inline absl::StatusOr<std::string> compileProbe(const std::string& target, const std::string& source,
                                                const std::string& entry) {
  TJ_ASSIGN_OR_RETURN(const TargetDescription* description, lookupTarget(target));
  TJ_ASSIGN_OR_RETURN(std::unique_ptr<Toolchain> toolchain, createWaveModelToolchain(*description));
  CompileRequest request;
  request.source = source;
  request.sourceName = entry + ".cpp";
  request.entry = entry;
  request.target = description;
  TJ_ASSIGN_OR_RETURN(request.headers, deviceLibraryHeaders("hip"));
  TJ_ASSIGN_OR_RETURN(CompileResult compiled, toolchain->compile(request));
  return compiled.binary;
}

// Compiles `source` (which defines `entry` taking `int* out`) for `target` with the
// wave-model toolchain and runs one workgroup over `words` ints poisoned with -7.
inline absl::StatusOr<ProbeRun> runProbe(const std::string& target, const std::string& source,
                                         const std::string& entry, int words) {
  TJ_ASSIGN_OR_RETURN(std::string binary, compileProbe(target, source, entry));
  std::string path = ::testing::TempDir() + "/wave_model_" + entry + "_" + target + ".so";
  std::ofstream(path, std::ios::binary) << binary;
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  unlink(path.c_str());
  if (!handle) return absl::InternalError(std::string("dlopen: ") + dlerror());
  auto run = reinterpret_cast<ProbeEntry>(dlsym(handle, entry.c_str()));
  auto error = reinterpret_cast<ProbeError>(dlsym(handle, "tilejit_entry_error"));
  ProbeRun result;
  result.words.assign(size_t(words), -7);
  if (run && error) {
    int* pointer = result.words.data();
    const int64_t programId[3] = {0, 0, 0}, numPrograms[3] = {1, 1, 1};
    run(&pointer, programId, numPrograms);
    char message[2048];
    if (error(message, sizeof(message))) result.error = message;
  }
  dlclose(handle);
  if (!run || !error) return absl::InternalError(entry + " or tilejit_entry_error is not exported");
  return result;
}

}  // namespace testing
}  // namespace tilejit
