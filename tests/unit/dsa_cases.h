// The DSA decode kernels' test sets, shared by the CPU suite (tilejit_compiler_tests) and the
// CUDA suite (tilejit_gpu_tests): seed 004's candidate-mask set (ragged ends around the tile
// and the width, starts > 0, row_repeat > 1, block sizes 8 and 16, narrow and saturated
// widths, column stride 2, words past the ends untouched) and the indexer cache kernels at
// ragged sequence lengths in shuffled blocks. Each set returns its failures, so a test expects
// none and a mutant test (the shipped template with one edit) expects some.
#pragma once

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "compiler/ops/candidate_mask/mask_check.h"
#include "compiler/ops/indexer_k_quant_and_cache/indexer_check.h"
#include "device_suite.h"

namespace tilejit::testing {

// A template edit: the shipped text with `from` replaced by `to` (a mutant).
struct TemplateEdit {
  std::string templateName, from, to;
};

// The op with `assignments`, its kernel replaced by the edited template when `edit` is given.
inline absl::StatusOr<std::unique_ptr<Op>> createDsaOp(SuiteResources& suite, std::string_view name,
                                                       std::vector<std::string> assignments,
                                                       const TemplateEdit* edit = nullptr) {
  const OpDefinition* definition = OpRegistry::shipped().find(name);
  if (!definition) return absl::NotFoundError(absl::StrCat("no op ", std::string(name)));
  auto config = definition->schema.parse(assignments);
  if (!config.ok()) return config.status();
  if (edit) {
    auto shipped = KernelSpec::shipped(edit->templateName, suite.device->target());
    if (!shipped.ok()) return shipped.status();
    if (shipped->templateText.find(edit->from) == std::string::npos)
      return absl::InvalidArgumentError(absl::StrCat("mutant text not in ", edit->templateName, ": ", edit->from));
    const std::string path = (std::filesystem::temp_directory_path() /
                              absl::StrCat("tj_mutant_", ::getpid(), "_", edit->templateName, ".mlir")).string();
    std::ofstream(path) << absl::StrReplaceAll(shipped->templateText, {{edit->from, edit->to}});
    config->templateOverrides[edit->templateName] = path;
  }
  return definition->create(*suite.jit, *suite.device, *config);
}

// The fixture of both suites: one device and JIT; a CUDA suite skips without a GPU, a CPU one
// fails instead. op() creates an op (edited when a mutant is given) or records why not.
template <SuiteDevice Kind>
class DsaSuite : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { suite_ = new SuiteResources(Kind); }
  static void TearDownTestSuite() { delete suite_; }
  void SetUp() override {
    if (suite_->skipReason.empty()) return;
    if (Kind == SuiteDevice::kCuda) GTEST_SKIP() << suite_->skipReason;
    FAIL() << suite_->skipReason;
  }
  std::unique_ptr<Op> op(std::string_view name, std::vector<std::string> assignments,
                         const TemplateEdit* edit = nullptr) {
    auto created = createDsaOp(*suite_, name, std::move(assignments), edit);
    EXPECT_TRUE(created.ok()) << created.status();
    return created.ok() ? std::move(*created) : nullptr;
  }
  static inline SuiteResources* suite_ = nullptr;
};

// A mask problem of `ends` (one per bound row) with `perRow` candidates a row: padding (-1),
// blocks past the width (the edge clamp) and blocks of the live range.
inline reference::CandidateMaskProblem maskProblem(const Op& op, int64_t width,
                                                   std::vector<int32_t> ends, int64_t perRow,
                                                   std::mt19937_64& rng) {
  reference::CandidateMaskProblem p;
  EXPECT_TRUE(reference::bindMaskParameters(op, p).ok());
  p.width = width;
  p.ends = std::move(ends);
  p.rows = int64_t(p.ends.size()) * p.rowRepeat;
  p.numCandidates = perRow;
  const int64_t nblocks = (width + p.blockSize - 1) / p.blockSize;
  for (int32_t end : p.ends) p.starts.push_back(p.hasStarts ? int32_t(rng() % (end / 2 + 1)) : 0);
  for (int64_t row = 0; row < p.rows; ++row) {
    const int64_t bound = row / p.rowRepeat;
    const int64_t live = (p.ends[size_t(bound)] - p.starts[size_t(bound)]) / p.blockSize + 2;
    for (int64_t k = 0; k < perRow; ++k) {
      const uint64_t kind = rng() % 10;
      p.candidates.push_back(kind == 0 ? -1 : kind == 1 ? int32_t(nblocks + int64_t(rng() % 3))
                                                        : int32_t(rng() % uint64_t(std::max<int64_t>(live, 1))));
    }
  }
  return p;
}

// Seed 004's set on one op (its block size, row_repeat and has_starts as bound).
inline std::vector<std::string> candidateMaskFailures(SuiteResources& suite, const Op& op) {
  std::vector<std::string> failures;
  const int64_t tile = reference::boundInteger(op, "tile", 0);
  const int64_t grid = reference::boundInteger(op, "grid_cols", 0);
  // Narrow: fewer tiles than programs (the min() of the grid); saturated: every program strides.
  const int64_t narrow = std::max<int64_t>(tile * (std::min<int64_t>(grid, 4) - 1) - tile / 2 - 1, tile / 2 + 3);
  const int64_t saturated = 2 * grid * tile + tile / 2 + 3;
  std::mt19937_64 rng(11);
  for (int64_t width : {narrow, saturated})
    for (int64_t stride : {1, 2}) {
      std::vector<int32_t> ends = {0, 1, int32_t(tile - 1), int32_t(tile), int32_t(tile + 1),
                                   int32_t(width - 1), int32_t(width), int32_t(width / 2)};
      const reference::CandidateMaskProblem p = maskProblem(op, width, ends, 16, rng);
      auto verdict = reference::runCandidateMask(op, *suite.device, p, stride, rng());
      if (!verdict.ok()) failures.push_back(std::string(verdict.status().message()));
      else if (!verdict->passed)
        failures.push_back(absl::StrCat("width ", width, " column stride ", stride, ": ", verdict->detail));
    }
  return failures;
}

// The indexer quantize-and-cache op at `blockSize` on ragged sequences around the block edge.
inline std::vector<std::string> indexerFailures(SuiteResources& suite, const Op& quant,
                                                const Op* gather, int64_t blockSize, bool ue8m0,
                                                uint64_t seed) {
  std::vector<std::string> failures;
  std::mt19937_64 rng(seed);
  const int64_t bs = blockSize;
  reference::IndexerProblem p = reference::makeIndexerProblem(
      bs, ue8m0, {bs + 1, 0, 1, bs - 1, bs, 3 * bs + 2, 37}, rng);
  auto quantVerdict = reference::checkQuantAndCache(quant, *suite.device, p);
  if (!quantVerdict.ok()) failures.push_back(std::string(quantVerdict.status().message()));
  else if (!quantVerdict->passed) failures.push_back(quantVerdict->detail);
  if (!gather) return failures;
  auto gatherVerdict = reference::checkGather(*gather, *suite.device, p);
  if (!gatherVerdict.ok()) failures.push_back(std::string(gatherVerdict.status().message()));
  else if (!gatherVerdict->passed) failures.push_back(gatherVerdict->detail);
  return failures;
}

// The mutants the sets must catch (each a one-line edit of a shipped template).
inline std::vector<TemplateEdit> maskMutants() {
  return {
      // Stop one tile early.
      {"candidate_mask", "scf.for %t = %first to %live step %step",
       "%live_short = arith.subi %live, %tile : index\n    scf.for %t = %first to %live_short step %step"},
      // Drop the grid stride: each program does its first tile only.
      {"candidate_mask", "%step = arith.muli %programs, %tile : index",
       "%step = arith.muli %width, %c1 : index"},
      // Store whole tiles (up to the width): columns past the end change.
      {"candidate_mask", "tj.store %masked, %logits[%row, %t, %c0] limits [%rows, %live, %c1]",
       "tj.store %masked, %logits[%row, %t, %c0] limits [%rows, %width, %c1]"},
  };
}
inline std::vector<TemplateEdit> indexerMutants() {
  return {
      // Quantize with the wrong group: the scale from the first 64 columns only.
      {"indexer_k_quant_and_cache",
       "%amax = tj.reduce max %magnitude axis 1 : tensor<1x128xf32> -> tensor<1xf32>",
       "%half = tj.load %k[%token, %c0] [1, 64] : !tj.view<[num_tokens, 128], !tj.dtype<\"dtype\">> -> tensor<1x64x!tj.dtype<\"dtype\">>\n"
       "        %half_f = arith.extf %half : tensor<1x64x!tj.dtype<\"dtype\">> to tensor<1x64xf32>\n"
       "        %half_abs = math.absf %half_f : tensor<1x64xf32>\n"
       "        %amax = tj.reduce max %half_abs axis 1 : tensor<1x64xf32> -> tensor<1xf32>"},
      // A ue8m0 scale rounded down (the power of two below) instead of up.
      {"indexer_k_quant_and_cache", "%up = arith.addf %p8, %p8 : tensor<1xf32>",
       "%up = arith.maximumf %p8, %p8 : tensor<1xf32>"},
  };
}
inline TemplateEdit gatherMutant() {
  // The sequence search one step short.
  return {"gather_indexer_k_quant_cache", "scf.for %s = %c0 to %steps step %c1",
          "scf.for %s = %c1 to %steps step %c1"};
}

}  // namespace tilejit::testing
