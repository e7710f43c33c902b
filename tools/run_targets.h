// What `tilejit run` runs: ops by name, or template files - whatever they are called - checked
// against the op that launches the template they declare (`tj.template @name`), each file
// replacing that kernel of the op; `--check OP` names the op where the template's own name
// does not, and `--template NAME=FILE` replaces any kernel of the ops run (a decode's reduce).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ops/op.h"

namespace tilejit {

struct RunTarget {
  std::string op;
  std::map<std::string, std::string> templateOverrides;  // kernel name -> template file
  // An author's reference file a template declares (`tj.reference`), or "".
  std::string reference;
};

// `positional`: op names, kernel names (run through their op) and template files; empty = every
// op. A template may name what checks it: `tj.template @k attributes {tj.reference = "R"}`, R an
// op name (its shipped check, as --check R) or a reference file relative to the template (as
// --reference; both flags win over it). Errors name the file or name that cannot be run and why.
absl::StatusOr<std::vector<RunTarget>> resolveRunTargets(
    const std::vector<std::string>& positional, const std::string& checkOp,
    const std::map<std::string, std::string>& templateFlags, const OpRegistry& ops);

}  // namespace tilejit
