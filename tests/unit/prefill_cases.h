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

using Edit = std::pair<std::string, std::string>;
using MutantRun = std::function<absl::StatusOr<AttentionCheck>(const std::string& mutant)>;

// The shipped template `name` with each edit's text replaced (it must be there exactly once)
// fails the check `run` makes, which the shipped template (mutant "") passes.
inline void expectMutantCaught(const std::string& name, const std::vector<Edit>& edits,
                               const MutantRun& run) {
  auto text = shippedTemplate(name);
  ASSERT_TRUE(text.ok());
  std::string mutant = *text, to;
  for (const auto& [from, replacement] : edits) {
    size_t at = mutant.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    ASSERT_EQ(mutant.find(from, at + 1), std::string::npos) << from;
    mutant.replace(at, from.size(), replacement);
    to += replacement;
  }
  auto dir = ::testing::TempDir() + "/" + name + "_mutants";
  std::filesystem::create_directories(dir);
  std::string path = dir + "/" + name + "_" + std::to_string(std::hash<std::string>()(to)) + ".mlir";
  { std::ofstream(path) << mutant; }
  auto good = run("");
  ASSERT_TRUE(good.ok()) << good.status();
  EXPECT_TRUE(good->passed) << good->detail;
  auto bad = run(path);
  ASSERT_TRUE(bad.ok()) << bad.status();
  EXPECT_FALSE(bad->passed) << "the mutant (" << to << ") passed: " << bad->detail;
}

}  // namespace tilejit::testing
