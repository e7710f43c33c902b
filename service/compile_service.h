// What tilejitd does with a compile request: the key, then the daemon's memory tier, then one
// compile job per key (single-flight) on the compile pool, where the JIT's own tiers answer
// first (disk, Redis) and the toolchain runs only when they miss. Entries land in the disk
// cache, so a restarted daemon serves them again without compiling.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "compiler/jit_compiler.h"
#include "service/compile_pool.h"
#include "service/memory_tier.h"
#include "service/metrics.h"
#include "service/protocol.h"
#include "service/single_flight.h"

namespace tilejit::service {

struct CompileServiceOptions {
  int jobs = 0;                            // compile workers; 0 = hardware threads
  int64_t memoryBytes = int64_t(512) << 20;  // the memory tier's bound
  JitOptions jit;                          // the cache (disk, Redis) the daemon compiles into
  std::string manifestPath;                // AOT manifest to pre-warm from; empty: none
};

class CompileService {
 public:
  static absl::StatusOr<std::unique_ptr<CompileService>> create(CompileServiceOptions options);
  ~CompileService();

  // The reply to a compile request, or why not (the request's fault or the compile's).
  absl::StatusOr<CompileReply> compile(const CompileRequest& request);

  // Starts compiling every spec of the manifest in the background (clients asking for one
  // meanwhile join its compile). A manifest that does not parse is an error here.
  absl::Status startPrewarm(const std::string& manifestPath, FILE* log);

  std::string healthText() const;
  std::string metricsText(int64_t connections) const;
  ServiceMetrics& metrics() { return metrics_; }

 private:
  struct Served {
    std::shared_ptr<const std::string> entry;
    ServedTier tier = ServedTier::kCompiled;
  };
  using Outcome = absl::StatusOr<Served>;

  explicit CompileService(CompileServiceOptions options, std::unique_ptr<JitCompiler> jit);
  Outcome compileOnPool(const KernelSpec& spec, const std::string& key);

  CompileServiceOptions options_;
  std::unique_ptr<JitCompiler> jit_;
  MemoryTier memory_;
  SingleFlight<Outcome> flight_;
  ServiceMetrics metrics_;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  std::atomic<int64_t> prewarmTotal_{0}, prewarmDone_{0}, prewarmFailed_{0};
  std::thread prewarm_;
  std::atomic<bool> stopping_{false};
  CompilePool pool_;  // last: joined first, while everything its jobs use still exists
};

}  // namespace tilejit::service
