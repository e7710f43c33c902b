// A reference the kernel author supplies (`tilejit run FILE --reference PATH`): a C or C++ file
// defining tilejit_reference() over host tensors (tools/harness/tilejit_reference.h), or a
// Python file defining reference(**tensors) over numpy arrays. The op's own check makes the
// problem and runs the op; its first run's arguments are recorded and given to the author's
// reference, whose outputs the kernel's must match (tools/harness/README.md).
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tools/harness/op_recorder.h"
#include "tools/harness/op_reference.h"

namespace tilejit {

// What the reference at `path` computes for every written argument of `arguments`, in their
// order. Errors name the file: it does not compile or load, crashed, threw, returned nonzero,
// or returned an output of the wrong shape.
absl::StatusOr<std::vector<std::vector<double>>> evaluateAuthorReference(
    const std::string& path, const std::vector<RecordedArgument>& arguments);

// The kernel's outputs against `expected`: relative L-inf over the elements that are not NaN
// in both (a NaN in one only fails), per output, the worst one reported.
CheckResult compareWithAuthorReference(const std::string& path,
                                       const std::vector<RecordedArgument>& arguments,
                                       const std::vector<std::vector<double>>& expected,
                                       double tolerance);

// The op's check run with its first op run recorded, judged by the reference at `path` with
// the tolerance of the op's own check.
absl::StatusOr<OpCheckReport> runWithAuthorReference(const std::string& path,
                                                     const OpReference& reference,
                                                     JitCompiler& jit, Device& device,
                                                     const OpDefinition& op,
                                                     const OpConfig& config,
                                                     const OpCheckOptions& options);

}  // namespace tilejit

namespace tilejit {

// The two kinds of reference (author_reference_cxx.cpp, author_reference_python.cpp), same
// contract as evaluateAuthorReference.
absl::StatusOr<std::vector<std::vector<double>>> evaluateCxxReference(
    const std::string& path, const std::vector<RecordedArgument>& arguments);
absl::StatusOr<std::vector<std::vector<double>>> evaluatePythonReference(
    const std::string& path, const std::vector<RecordedArgument>& arguments);

}  // namespace tilejit
