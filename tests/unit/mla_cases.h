// MLA decode through the shipped op on any device, for the CPU and CUDA tests: the op made from
// "name=value" parameters (optionally with a mutant template for mla_decode) and checked
// against the float64 reference of compiler/ops/mla_decode/reference.h.
#pragma once

#include <string>
#include <vector>

#include "compiler/ops/mla_decode/reference.h"
#include "support/status.h"

namespace tilejit::testing {

inline MlaProblem mlaProblem(int64_t heads, std::vector<int64_t> lens, int64_t maxModelLen = 0,
                             int64_t qLen = 1) {
  MlaProblem p;
  p.numQHeads = heads;
  p.qLen = qLen;
  p.seqLens = std::move(lens);
  p.maxModelLen = maxModelLen;
  return p;
}

inline absl::StatusOr<MlaCheck> checkMlaCase(JitCompiler& jit, Device& device,
                                             const std::vector<std::string>& assignments,
                                             const MlaProblem& problem,
                                             const std::string& mutant = "") {
  const OpDefinition* definition = OpRegistry::shipped().find("mla_decode");
  if (!definition) return absl::NotFoundError("mla_decode is not registered");
  TJ_ASSIGN_OR_RETURN(OpConfig config, definition->schema.parse(assignments));
  if (!mutant.empty()) config.templateOverrides["mla_decode"] = mutant;
  TJ_ASSIGN_OR_RETURN(std::unique_ptr<Op> op, definition->create(jit, device, config));
  return checkMlaDecodeOp(device, *op, problem);
}

}  // namespace tilejit::testing
