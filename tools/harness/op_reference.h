// Reference checks of ops, found by op name: each op folder's reference*.cpp registers its check
// (a random problem, an fp32/fp64 reference from un-paged inputs, NaN-poisoned tails, poisoned
// outputs) through the generated registerShippedReferences(). `tilejit run` and the tests run
// every op's check through here without naming one.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ops/op.h"
#include "tools/harness/kernel_case.h"

namespace tilejit {

struct OpCheckOptions {
  std::map<std::string, int64_t> shape;  // problem sizes replacing the check's own
  int iterations = 20;                   // timed runs after 3 warm-up ones (0: none)
  uint64_t seed = 1;
};

struct OpCheckReport {
  CompiledKernel compiled;  // the op's first kernel
  double loadSeconds = 0;   // what the check counts as getting the op ready (see its comment)
  CheckResult check;
  double medianMs = 0;
  double bytes = 0;         // bytes the op must move at least
};

using OpCheck = std::function<absl::StatusOr<OpCheckReport>(
    JitCompiler&, Device&, const OpDefinition&, const OpConfig&, const OpCheckOptions&)>;

struct OpReference {
  std::string op;
  // Config values the check's problem runs with where the caller gives none.
  std::map<std::string, ParameterValue> defaults;
  OpCheck check;
};

class OpReferenceRegistry {
 public:
  static const OpReferenceRegistry& shipped();
  const absl::Status& status() const { return status_; }

  absl::Status add(OpReference reference);
  // A single-kernel op's case: its check runs the case's inputs through the op.
  absl::Status addKernelCase(const std::string& op, std::unique_ptr<KernelCase> kernelCase);
  const OpReference* find(std::string_view op) const;
  const KernelCase* findKernelCase(std::string_view templateName) const;

 private:
  std::map<std::string, OpReference, std::less<>> references_;
  std::vector<std::unique_ptr<KernelCase>> cases_;
  absl::Status status_;
};

}  // namespace tilejit
