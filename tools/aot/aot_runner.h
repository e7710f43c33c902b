// Compiles every request of an AOT manifest in parallel and writes the bundle. Reruns are
// cheap: compiled code objects land in the disk cache, so a second run of the same manifest
// (or one resumed after an interruption) is all cache hits. A journal, `<bundle>.progress`,
// lists the keys finished so far so an interrupted run can say how much it resumes; it is
// removed once the bundle is written.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/jit_compiler.h"
#include "tools/aot/aot_manifest.h"

namespace tilejit {

struct AotOptions {
  std::string bundlePath;     // required
  int jobs = 0;               // worker threads; 0 = std::thread::hardware_concurrency()
  FILE* progress = stderr;    // the progress line; nullptr = quiet
  JitOptions jit;             // each worker's JitCompiler is created with these
};

struct AotOutcome {
  AotSpecRequest request;
  std::string reason;  // skipped: the template's reason; failed: the error
};

struct AotReport {
  size_t total = 0;
  size_t compiled = 0;    // cache misses: went through the toolchain
  size_t cacheHits = 0;
  size_t resumed = 0;     // finished keys found in an earlier run's journal
  size_t duplicates = 0;  // requests that compiled to a key already in the bundle
  size_t bundleEntries = 0;
  std::vector<AotOutcome> skipped;   // rejected by the template's constraints or domains
  std::vector<AotOutcome> failures;  // everything else that went wrong
  double seconds = 0;
  double specializeSeconds = 0;  // summed over specs (cache misses only)
  double toolchainSeconds = 0;   // summed over specs (cache misses only)
  int jobs = 0;
  std::string bundlePath;
};

// True for the errors that mean "this template does not admit this specialization", which
// the AOT tool reports as skipped rather than failed (a grid routinely crosses a constraint).
bool isRejectedSpecialization(const absl::Status& status);

// Errors only for what stops the whole run (no bundle path, the bundle cannot be written, no
// compiler could be created); per-spec problems are in the report. The bundle is written
// with every spec that compiled, even when some failed.
absl::StatusOr<AotReport> runAot(const std::vector<AotSpecRequest>& requests,
                                 const AotOptions& options);

// Human-readable summary (skips and failures listed with their reasons).
std::string formatAotReport(const AotReport& report);

}  // namespace tilejit
