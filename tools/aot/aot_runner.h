// Compiles every request of an AOT manifest in parallel and writes the bundle - only when every
// request compiled (or was a rejected specialization its job skips): a bundle missing kernels
// its manifest asked for would fail at serving time instead of now. Reruns are
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

// Grids larger than this need an explicit --max-specs: a typo'd grid of millions of specs
// should stop at once, not start an ETA of weeks.
inline constexpr size_t kDefaultAotMaxSpecs = 20000;

struct AotOptions {
  std::string bundlePath;     // required
  int jobs = 0;               // worker threads; 0 = std::thread::hardware_concurrency()
  // Progress: a redrawn line on a terminal, a plain line per tenth of the run otherwise (logs,
  // pipes); nullptr = quiet.
  FILE* progress = stderr;
  size_t maxSpecs = kDefaultAotMaxSpecs;
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
  std::vector<AotOutcome> failures;  // everything else, and rejections a job does not skip
  bool bundleWritten = false;        // false when anything failed: nothing is written
  double seconds = 0;
  double specializeSeconds = 0;  // summed over specs (cache misses only)
  double toolchainSeconds = 0;   // summed over specs (cache misses only)
  int jobs = 0;
  std::string bundlePath;
};

// True for the errors that mean "this template does not admit this specialization", which
// the AOT tool reports as skipped rather than failed (a grid routinely crosses a constraint).
bool isRejectedSpecialization(const absl::Status& status);

// Errors for what stops the whole run, found before any compile (aot_preflight.h: no or an
// unwritable bundle path, too many specs, an unknown template, target or parameter) or after
// (no compiler could be created); per-spec problems are in the report, and then no bundle is
// written.
absl::StatusOr<AotReport> runAot(const std::vector<AotSpecRequest>& requests,
                                 const AotOptions& options);

// The kernel spec of one request: its shipped template, or the template file it names.
absl::StatusOr<KernelSpec> aotKernelSpec(const AotSpecRequest& request);

// Human-readable summary (skips and failures listed with their reasons).
std::string formatAotReport(const AotReport& report);

}  // namespace tilejit
