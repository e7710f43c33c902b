// The JIT pipeline end to end: template text + target + parameters -> specialized IR ->
// C++ -> code object (through the target's toolchain) -> on-disk cache -> loaded kernel.
// Every stage can be printed (`tilejit compile --emit ...`).
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <type_traits>
#include <unordered_map>

#include "absl/status/statusor.h"
#include "cache/disk_cache.h"
#include "compiler/parameter_value.h"
#include "compiler/targets/target_description.h"
#include "runtime/device.h"
#include "runtime/kernel_metadata.h"
#include "service/service_environment.h"

namespace tilejit {

struct KernelSpec {
  std::string templateText;
  std::string sourceName;  // file name for diagnostics ("templates/merge_attn_states.mlir")
  std::string target;      // "sm_90", "host"
  ParameterMap parameters;  // unset ones: target tuning, then default

  // A shipped template by name (embedded in the binary).
  static absl::StatusOr<KernelSpec> shipped(std::string_view name, std::string_view target,
                                            ParameterMap parameters = {});
  // A template file on disk.
  static absl::StatusOr<KernelSpec> fromFile(const std::string& path, std::string_view target,
                                             ParameterMap parameters = {});
  // The same with every value as text (manifests, test tables).
  template <typename Text, typename = std::enable_if_t<std::is_convertible_v<Text, std::string>>>
  static absl::StatusOr<KernelSpec> shipped(std::string_view name, std::string_view target,
                                            const std::map<std::string, Text>& parameters) {
    return shipped(name, target, ParameterMap(parameters.begin(), parameters.end()));
  }
  template <typename Text, typename = std::enable_if_t<std::is_convertible_v<Text, std::string>>>
  static absl::StatusOr<KernelSpec> fromFile(const std::string& path, std::string_view target,
                                             const std::map<std::string, Text>& parameters) {
    return fromFile(path, target, ParameterMap(parameters.begin(), parameters.end()));
  }
};

// asm: the toolchain's assembly (PTX from nvrtc), compiled fresh, not from the cache.
enum class Stage { kIr, kSpecialized, kCpp, kAsm, kBinary, kResources };
absl::StatusOr<Stage> parseStage(std::string_view name);  // "ir", "specialized", ...

struct CompiledKernel {
  std::string key;  // cache key (64 hex)
  KernelMetadata metadata;
  std::string binary;
  bool cacheHit = false;          // the code object came from the cache
  CacheSource source = CacheSource::kComputed;  // which tier (the daemon's, when it served it)
  bool fromService = false;       // tilejitd served it (TILEJIT_COMPILE_SERVICE)
  double specializeSeconds = 0;   // parse + specialize + emit (0 on a hit)
  double toolchainSeconds = 0;    // nvrtc / host compiler (0 on a hit)
  double totalSeconds = 0;        // wall time of compile(), lookup included
  std::string toolchainLog;       // empty on a hit
};

struct JitOptions {
  bool useDiskCache = true;
  DiskCacheOptions cache;  // directory empty: from the environment
  // The node's compile service (tilejitd): unset = TILEJIT_COMPILE_SERVICE (off when unset);
  // an empty socket = TILEJIT_SERVICE_SOCKET or its default. The daemon's own JIT is kOff.
  std::optional<service::CompileServiceMode> compileService;
  std::string serviceSocket;
};

class JitCompiler {
 public:
  static absl::StatusOr<std::unique_ptr<JitCompiler>> create(JitOptions options = {});
  ~JitCompiler();

  // The cache key of a spec: hashes the template text, every bound parameter, the target,
  // the emitter version, the device library's content and the toolchain's identity.
  absl::StatusOr<std::string> cacheKey(const KernelSpec& spec);

  // The parameters the spec's template declares, in template order (parses; no compile).
  absl::StatusOr<std::vector<std::string>> parameterNames(const KernelSpec& spec);

  // The specialization's metadata - its arguments (names, dtypes, shapes), bound parameters
  // and launch - from specializing and emitting only: no toolchain runs.
  absl::StatusOr<KernelMetadata> signature(const KernelSpec& spec);

  // Specializes, emits and compiles, or finds the code object in the cache.
  absl::StatusOr<CompiledKernel> compile(const KernelSpec& spec);

  // One stage as text (binary: the code object's bytes, resources: a report).
  absl::StatusOr<std::string> dumpStage(const KernelSpec& spec, Stage stage);

  // compile() + load on `device`, memoized in memory per (device, key): the hot path of a
  // serving engine asking for a kernel it has used before touches neither disk nor compiler.
  absl::StatusOr<const LoadedKernel*> load(Device& device, const KernelSpec& spec,
                                           CompiledKernel* info = nullptr);

 private:
  struct Impl;
  explicit JitCompiler(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

std::string formatResources(const KernelMetadata& metadata);

}  // namespace tilejit
