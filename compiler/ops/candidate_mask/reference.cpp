// Reference for candidate_mask: vLLM's shared mask (mask_reference.h) within each row's
// [0, end), bitwise; every word past a row's end and between strided columns unchanged (a
// kernel that rewrites the whole row fails, not only one that masks wrongly).
#include <algorithm>
#include <chrono>
#include <cstring>

#include "absl/strings/str_format.h"
#include "compiler/ops/candidate_mask/mask_check.h"
#include "compiler/ops/indexer_k_quant_and_cache/indexer_check.h"
#include "support/status.h"
#include "tools/harness/op_reference.h"

namespace tilejit {
namespace reference {
namespace {

HostTensor wordsTensor(const std::vector<int32_t>& values, std::vector<int64_t> shape) {
  HostTensor tensor(DType::kI32, std::move(shape));
  std::memcpy(tensor.bytes.data(), values.data(), values.size() * 4);
  return tensor;
}

absl::StatusOr<std::unique_ptr<DeviceTensor>> uploaded(Device& device, const HostTensor& host) {
  TJ_ASSIGN_OR_RETURN(DeviceTensor tensor, DeviceTensor::upload(device, host));
  return std::make_unique<DeviceTensor>(std::move(tensor));
}

}  // namespace

absl::Status bindMaskParameters(const Op& op, CandidateMaskProblem& problem) {
  if (op.launches().empty()) return absl::InternalError("candidate_mask launches nothing");
  problem.blockSize = boundInteger(op, "block_size", problem.blockSize);
  problem.rowRepeat = boundInteger(op, "row_repeat", problem.rowRepeat);
  problem.hasStarts = boundInteger(op, "has_starts", 0) != 0;
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<MaskBuffers>> MaskBuffers::create(
    Device& device, const CandidateMaskProblem& problem, int64_t columnStride) {
  std::unique_ptr<MaskBuffers> buffers(new MaskBuffers(problem.rows, problem.width, columnStride));
  const int64_t bounds = int64_t(problem.ends.size());
  std::vector<int32_t> starts = problem.starts;
  starts.resize(size_t(bounds), 0);
  TJ_ASSIGN_OR_RETURN(buffers->logits_,
                      uploaded(device, HostTensor(DType::kI32, {buffers->storageWords()})));
  TJ_ASSIGN_OR_RETURN(buffers->starts_, uploaded(device, wordsTensor(starts, {bounds})));
  TJ_ASSIGN_OR_RETURN(buffers->ends_, uploaded(device, wordsTensor(problem.ends, {bounds})));
  TJ_ASSIGN_OR_RETURN(buffers->candidates_,
                      uploaded(device, wordsTensor(problem.candidates,
                                                   {problem.rows, problem.numCandidates})));
  return buffers;
}

absl::Status MaskBuffers::reset(const std::vector<uint32_t>& storage,
                                const CandidateMaskProblem& problem) {
  HostTensor words(DType::kI32, {storageWords()});
  std::memcpy(words.bytes.data(), storage.data(), words.bytes.size());
  TJ_RETURN_IF_ERROR(logits_->overwrite(words));
  std::vector<int32_t> starts = problem.starts;
  starts.resize(problem.ends.size(), 0);
  TJ_RETURN_IF_ERROR(starts_->overwrite(wordsTensor(starts, {int64_t(starts.size())})));
  return ends_->overwrite(wordsTensor(problem.ends, {int64_t(problem.ends.size())}));
}

absl::StatusOr<std::vector<uint32_t>> MaskBuffers::logits() const {
  HostTensor words;
  TJ_RETURN_IF_ERROR(logits_->download(words));
  std::vector<uint32_t> out(static_cast<size_t>(storageWords()));
  std::memcpy(out.data(), words.bytes.data(), out.size() * 4);
  return out;
}

std::vector<KernelArg> MaskBuffers::args() const {
  TensorArg logits;
  logits.data = logits_->data();
  logits.dtype = DType::kI32;
  logits.rank = 3;
  logits.shape[0] = rows_, logits.shape[1] = width_, logits.shape[2] = 1;
  logits.strides[0] = width_ * stride_, logits.strides[1] = stride_, logits.strides[2] = 1;
  return {logits, starts_->arg(), ends_->arg(), candidates_->arg()};
}

MaskVerdict judgeCandidateMask(const CandidateMaskProblem& problem, int64_t columnStride,
                               const std::vector<uint32_t>& before,
                               const std::vector<uint32_t>& after) {
  std::vector<uint32_t> dense(size_t(problem.rows * problem.width));
  for (int64_t i = 0; i < int64_t(dense.size()); ++i) dense[size_t(i)] = before[size_t(i * columnStride)];
  const std::vector<uint32_t> shared = sharedCandidateMask(problem, std::move(dense));
  MaskVerdict verdict;
  int64_t firstRow = -1, firstCol = -1;
  for (int64_t row = 0; row < problem.rows; ++row) {
    const int64_t end = problem.ends[size_t(row / problem.rowRepeat)];
    for (int64_t word = 0; word < problem.width * columnStride; ++word) {
      const size_t at = size_t(row * problem.width * columnStride + word);
      const int64_t col = word / columnStride;
      if (word % columnStride == 0 && col < end) {
        ++verdict.compared;
        if (after[at] != shared[size_t(row * problem.width + col)]) {
          if (verdict.wrongInside++ == 0) firstRow = row, firstCol = col;
        }
      } else if (after[at] != before[at]) {
        ++verdict.writtenOutside;
      }
    }
  }
  verdict.passed = verdict.wrongInside == 0 && verdict.writtenOutside == 0;
  verdict.detail = absl::StrFormat(
      "%d of %d columns within [0, end) differ from vLLM's shared mask%s; %d words past the ends "
      "or between strided columns changed",
      verdict.wrongInside, verdict.compared,
      firstRow < 0 ? "" : absl::StrFormat(" (first: row %d column %d)", firstRow, firstCol),
      verdict.writtenOutside);
  return verdict;
}

std::vector<uint32_t> randomWords(int64_t count, std::mt19937_64& rng) {
  std::vector<uint32_t> words(static_cast<size_t>(count));
  for (uint32_t& word : words) word = uint32_t(rng());
  return words;
}

absl::StatusOr<MaskVerdict> runCandidateMask(const Op& op, Device& device,
                                             const CandidateMaskProblem& problem,
                                             int64_t columnStride, uint64_t seed, int iterations) {
  TJ_ASSIGN_OR_RETURN(std::unique_ptr<MaskBuffers> buffers,
                      MaskBuffers::create(device, problem, columnStride));
  std::mt19937_64 rng(seed);
  const std::vector<uint32_t> before = randomWords(buffers->storageWords(), rng);
  TJ_RETURN_IF_ERROR(buffers->reset(before, problem));
  const std::vector<KernelArg> args = buffers->args();
  TJ_RETURN_IF_ERROR(op.run(args));
  TJ_RETURN_IF_ERROR(device.synchronize());
  TJ_ASSIGN_OR_RETURN(std::vector<uint32_t> after, buffers->logits());
  MaskVerdict verdict = judgeCandidateMask(problem, columnStride, before, after);
  TJ_ASSIGN_OR_RETURN(verdict.medianMs, medianMs(device, [&] { return op.run(args); }, iterations));
  return verdict;
}

namespace {

// The check's problem: ragged ends around the tile and width edges, candidates in and out of
// range (padding, past the width: the edge clamp) for the op's bound block size.
CandidateMaskProblem randomProblem(const Op& op, const OpCheckOptions& options,
                                   std::mt19937_64& rng, absl::Status& status) {
  CandidateMaskProblem problem;
  status = bindMaskParameters(op, problem);
  auto size = [&](const char* name, int64_t fallback) {
    auto it = options.shape.find(name);
    return it == options.shape.end() ? fallback : it->second;
  };
  problem.rows = size("num_rows", 12);
  problem.width = size("width", 3000);
  problem.numCandidates = size("num_candidates", 24);
  const int64_t bounds = (problem.rows + problem.rowRepeat - 1) / problem.rowRepeat;
  const int64_t nblocks = (problem.width + problem.blockSize - 1) / problem.blockSize;
  std::uniform_int_distribution<int64_t> anyEnd(0, problem.width), anyBlock(-1, nblocks + 1);
  const int64_t edges[] = {0, 1, problem.width - 1, problem.width, problem.width / 2};
  for (int64_t b = 0; b < bounds; ++b) {
    problem.ends.push_back(int32_t(b < 5 ? edges[b] : anyEnd(rng)));
    problem.starts.push_back(problem.hasStarts ? int32_t(anyEnd(rng) / 4) : 0);
  }
  for (int64_t i = 0; i < problem.rows * problem.numCandidates; ++i)
    problem.candidates.push_back(int32_t(anyBlock(rng)));
  return problem;
}

absl::StatusOr<OpCheckReport> checkOp(JitCompiler& jit, Device& device,
                                      const OpDefinition& definition, const OpConfig& config,
                                      const OpCheckOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  TJ_ASSIGN_OR_RETURN(std::unique_ptr<Op> op, definition.create(jit, device, config));
  const double loadSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::mt19937_64 rng(options.seed);
  absl::Status bound;
  CandidateMaskProblem problem = randomProblem(*op, options, rng, bound);
  TJ_RETURN_IF_ERROR(bound);
  TJ_ASSIGN_OR_RETURN(MaskVerdict verdict,
                      runCandidateMask(*op, device, problem, 1, options.seed, options.iterations));
  OpCheckReport report;
  report.compiled = op->compiled();
  report.loadSeconds = loadSeconds;
  report.medianMs = verdict.medianMs;
  report.check.passed = verdict.passed;
  report.check.error = double(verdict.wrongInside + verdict.writtenOutside);
  report.check.detail = verdict.detail;
  int64_t live = 0;
  for (int64_t row = 0; row < problem.rows; ++row)
    live += std::clamp<int64_t>(problem.ends[size_t(row / problem.rowRepeat)], 0, problem.width);
  report.bytes = 8.0 * double(live);  // each live column read and written
  return report;
}

}  // namespace

absl::Status register_candidate_mask(OpReferenceRegistry& registry) {
  return registry.add({"candidate_mask", {}, checkOp});
}

}  // namespace reference
}  // namespace tilejit
