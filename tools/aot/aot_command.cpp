#include "tools/aot/aot_command.h"

#include <cstdio>
#include <set>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "tools/aot/aot_manifest.h"
#include "tools/aot/aot_runner.h"

namespace tilejit {
namespace {

constexpr const char* kAotUsage = R"(usage: tilejit aot MANIFEST.json [options]
  --jobs N            parallel compiles (default: the number of hardware threads)
  -o BUNDLE           write the bundle here (overrides the manifest's "bundle")
  --quiet             no progress (a redrawn line on a terminal, plain lines otherwise)
  --max-specs N       compile up to N specializations (default 20000; more is an error)
  --no-cache          do not read or write the disk cache (reruns recompile everything)

MANIFEST: {"bundle": "out.tjb", "jobs": [{"template": "reshape_and_cache",
           "targets": ["sm_90", "host"], "grid": {"dtype": ["bf16", "f16"],
           "block_size": [1, 16, 32]}}]}
Each job compiles the cartesian product of its targets and grid values. A specialization the
template rejects fails the run unless the job (or the manifest) says "skip_rejected": true.
Unknown templates, targets and parameters and an unwritable bundle are found before anything
compiles. Relative paths are relative to the manifest's folder.
Exit status: 0 bundle written, 1 some specs failed (no bundle written), 2 fatal error.
)";

int fail(const std::string& message) {
  std::fprintf(stderr, "tilejit aot: error: %s\n", message.c_str());
  return 2;
}

}  // namespace

int runAotCommand(const std::vector<std::string>& args) {
  std::string manifestPath, output;
  AotOptions options;
  std::set<std::string> given;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (!arg.empty() && arg[0] == '-' && !given.insert(arg == "-j" ? "--jobs" : arg).second)
      return fail(absl::StrCat("option '", arg, "' given twice"));
    if (arg == "--help" || arg == "-h") {
      std::printf("%s", kAotUsage);
      return 0;
    } else if (arg == "--jobs" || arg == "-j") {
      if (i + 1 >= args.size() || !absl::SimpleAtoi(args[i + 1], &options.jobs) ||
          options.jobs < 1)
        return fail(arg + " expects a positive count");
      ++i;
    } else if (arg == "-o") {
      if (i + 1 >= args.size()) return fail("-o needs a path");
      output = args[++i];
    } else if (arg == "--max-specs") {
      if (i + 1 >= args.size() || !absl::SimpleAtoi(args[i + 1], &options.maxSpecs) ||
          options.maxSpecs < 1)
        return fail(arg + " expects a positive count");
      ++i;
    } else if (arg == "--quiet") {
      options.progress = nullptr;
    } else if (arg == "--no-cache") {
      options.jit.useDiskCache = false;
    } else if (!arg.empty() && arg[0] == '-') {
      return fail(absl::StrCat("unknown option '", arg, "' (tilejit aot --help)"));
    } else if (manifestPath.empty()) {
      manifestPath = arg;
    } else {
      return fail("aot takes one MANIFEST");
    }
  }
  if (manifestPath.empty()) return fail("aot needs a MANIFEST (tilejit aot --help)");

  absl::StatusOr<AotManifest> manifest = loadAotManifest(manifestPath);
  if (!manifest.ok()) return fail(std::string(manifest.status().message()));
  options.bundlePath = output.empty() ? manifest->bundlePath : output;
  std::vector<AotSpecRequest> requests = expandAotManifest(*manifest);
  if (options.progress)
    std::fprintf(options.progress, "%zu specializations from %zu jobs -> %s\n", requests.size(),
                 manifest->jobs.size(), options.bundlePath.c_str());
  absl::StatusOr<AotReport> report = runAot(requests, options);
  if (!report.ok()) return fail(std::string(report.status().message()));
  std::printf("%s", formatAotReport(*report).c_str());
  return report->failures.empty() ? 0 : 1;
}

}  // namespace tilejit
