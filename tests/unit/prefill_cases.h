// Prefill and extend through the shipped ops on any device, for the CPU, wave-model and CUDA
// tests: the op made from "name=value" parameters (optionally with a mutant template) and
// checked against the float64 reference of compiler/ops/prefill/reference_attention.h; the
// problems' builders; and the mutant check both CPU suites run.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "compiler/embedded_files.h"
#include "tests/unit/template_mutants.h"

#include "compiler/ops/extend/reference.h"
#include "compiler/ops/prefill/reference.h"
#include "support/status.h"

namespace tilejit::testing {

inline absl::StatusOr<std::unique_ptr<Op>> makeOp(JitCompiler& jit, Device& device,
                                                  const std::string& name,
                                                  const std::vector<std::string>& assignments,
                                                  const std::string& mutant) {
  const OpDefinition* definition = OpRegistry::shipped().find(name);
  if (!definition) return absl::NotFoundError(name + " is not registered");
  TJ_ASSIGN_OR_RETURN(OpConfig config, definition->schema.parse(assignments));
  if (!mutant.empty()) config.templateOverrides[name] = mutant;
  return definition->create(jit, device, config);
}

inline absl::StatusOr<AttentionCheck> checkPrefillCase(JitCompiler& jit, Device& device,
                                                       const std::vector<std::string>& assignments,
                                                       const PrefillProblem& problem,
                                                       const std::string& mutant = "") {
  TJ_ASSIGN_OR_RETURN(std::unique_ptr<Op> op, makeOp(jit, device, "prefill", assignments, mutant));
  return checkPrefillOp(device, *op, problem);
}

inline absl::StatusOr<AttentionCheck> checkExtendCase(JitCompiler& jit, Device& device,
                                                      const std::vector<std::string>& assignments,
                                                      const ExtendProblem& problem,
                                                      const std::string& mutant = "") {
  TJ_ASSIGN_OR_RETURN(std::unique_ptr<Op> op, makeOp(jit, device, "extend", assignments, mutant));
  return checkExtendOp(device, *op, problem);
}

inline PrefillProblem prefillProblem(int64_t heads, std::vector<int64_t> qLens,
                                     std::vector<int64_t> kLens = {}, int64_t window = 0) {
  PrefillProblem p;
  p.numQHeads = heads;
  p.qLens = std::move(qLens);
  p.kLens = std::move(kLens);
  p.window = window;
  return p;
}

inline ExtendProblem extendProblem(int64_t heads, std::vector<int64_t> qLens,
                                   std::vector<int64_t> contextLens, int64_t window = 0) {
  ExtendProblem p;
  p.numQHeads = heads;
  p.qLens = std::move(qLens);
  p.contextLens = std::move(contextLens);
  p.window = window;
  return p;
}

}  // namespace tilejit::testing
