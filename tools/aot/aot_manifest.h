// The AOT manifest: which kernels to precompile into a bundle. JSON, e.g.
//   {"bundle": "out.tjb",
//    "jobs": [{"template": "reshape_and_cache", "targets": ["sm_90", "host"],
//              "grid": {"dtype": ["bf16", "f16"], "block_size": [1, 16, 32]}}]}
// Each job expands to the cartesian product targets x grid values. A specialization the
// template rejects (a value outside its domain, a constraint that fails) is an error unless the
// job, or the manifest for every job, says "skip_rejected": true. "template" is a shipped
// template name or a path to a .mlir file; relative paths (template files and the bundle) are
// taken relative to the manifest's folder, so a manifest means the same from any directory.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace tilejit {

struct AotJob {
  std::string templateRef;  // shipped name, or a .mlir path (already resolved)
  std::vector<std::string> targets;
  // Parameter name -> values to sweep, in manifest order (the product's order follows it).
  std::vector<std::pair<std::string, std::vector<std::string>>> grid;
  bool skipRejected = false;  // rejected specializations are skipped instead of failing
};

struct AotManifest {
  std::string bundlePath;  // empty when the manifest names none (then -o must)
  std::vector<AotJob> jobs;
};

// One specialization to compile.
struct AotSpecRequest {
  std::string templateRef;
  std::string target;
  std::map<std::string, std::string> parameters;
  bool skipRejected = false;  // from its job
  std::string describe() const;  // "reshape_and_cache host block_size=4 kv_layout=shuffled"
};

// True when `ref` names a template file rather than a shipped template.
bool isTemplatePath(std::string_view ref);

// `baseDir` resolves relative paths ("" = leave them as written). Errors are InvalidArgument
// and name the job and field ("jobs[1].grid.block_size: ...").
absl::StatusOr<AotManifest> parseAotManifest(std::string_view json, const std::string& baseDir);
absl::StatusOr<AotManifest> loadAotManifest(const std::string& path);

// Cartesian expansion, jobs in order, targets outermost, then grid parameters in manifest
// order with the last varying fastest. Duplicate requests (same template, target and
// parameters from two jobs) are kept once.
std::vector<AotSpecRequest> expandAotManifest(const AotManifest& manifest);

}  // namespace tilejit
