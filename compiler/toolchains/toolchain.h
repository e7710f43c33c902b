// One interface over every compiler that turns an emitted C++ translation unit into a code
// object: nvrtc (NVIDIA), the host C++ compiler (CPU backend), hiprtc/comgr (AMD, later).
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/targets/target_description.h"
#include "runtime/kernel_metadata.h"

namespace tilejit {

struct CompileRequest {
  std::string source;        // the emitted translation unit
  std::string sourceName;    // the template name and the backend's suffix, shown in diagnostics
  std::string entry;         // kernel symbol the code object must export
  const TargetDescription* target = nullptr;
  // Device-library headers as (include name, content), e.g. ("tj/device.h", "..."): the TU
  // includes them by these names; no include path on disk is needed.
  std::vector<std::pair<std::string, std::string>> headers;
};

struct CompileResult {
  std::string binary;        // CUBIN / shared object / code object bytes
  std::string intermediate;  // PTX (nvrtc) or assembly when the toolchain produces it
  std::string log;           // the compiler's full log
  ResourceUsage resources;
  double seconds = 0;        // wall time of the compile
};

class Toolchain {
 public:
  virtual ~Toolchain() = default;
  // Name and version of the compiler plus the options that change its output; part of every
  // cache key, so a different compiler never reuses a binary.
  virtual std::string identity() const = 0;
  virtual absl::StatusOr<CompileResult> compile(const CompileRequest& request) const = 0;
};

// The toolchain the target's backend picks (compiler/backends/<backend>/; defined by the
// registry). Fails with a clear message when the vendor library cannot be loaded. With a `stateDirectory` (the
// disk cache's root) a vendor library's version is remembered there, and a later process gets
// a toolchain that loads the library only when it first compiles (or fails to, then).
absl::StatusOr<std::unique_ptr<Toolchain>> createToolchain(const TargetDescription& target,
                                                           const std::string& stateDirectory = "");

}  // namespace tilejit
