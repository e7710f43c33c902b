// Reference for indexer_k_quant_and_cache (and the host side of the indexer cache shared with
// gather_indexer_k_quant_cache): every kept row's 128 fp8 codes and its scale land bit-exactly
// at its slot in vLLM's layout; every other byte keeps its NaN poison.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <numeric>

#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "compiler/ops/indexer_k_quant_and_cache/indexer_check.h"
#include "support/status.h"
#include "tools/harness/op_reference.h"

namespace tilejit {
namespace reference {

uint8_t fp8E4M3(float x) {
  // The OCP value of each non-negative code below NaN (increasing with the code).
  static const std::vector<double> values = [] {
    std::vector<double> v;
    for (int code = 0; code <= 0x7e; ++code) {
      const int e = code >> 3, m = code & 7;
      v.push_back(e == 0 ? std::ldexp(m / 8.0, -6) : std::ldexp(1.0 + m / 8.0, e - 7));
    }
    return v;
  }();
  if (std::isnan(x)) return 0x7f;
  const uint8_t sign = std::signbit(x) ? 0x80 : 0x00;
  const double a = std::fabs(double(x));
  if (a >= 448.0) return sign | 0x7e;
  // The nearest code; a tie goes to the even one.
  const int above = int(std::lower_bound(values.begin(), values.end(), a) - values.begin());
  if (values[size_t(above)] == a || above == 0) return sign | uint8_t(above);
  const double up = values[size_t(above)] - a, down = a - values[size_t(above - 1)];
  const int code = up < down ? above : down < up ? above - 1 : (above % 2 == 0 ? above : above - 1);
  return sign | uint8_t(code);
}

float indexerScale(float amax, bool ue8m0) {
  const float scale = std::max(amax, 1e-4f) / 448.0f;
  if (!ue8m0) return scale;
  int exponent = 0;
  const float mantissa = std::frexp(scale, &exponent);  // scale = mantissa * 2^exponent
  return mantissa == 0.5f ? scale : std::ldexp(1.0f, exponent);
}

IndexerProblem makeIndexerProblem(int64_t blockSize, bool ue8m0, std::vector<int64_t> seqLens,
                                  std::mt19937_64& rng, int64_t spareBlocks) {
  IndexerProblem p;
  p.blockSize = blockSize;
  p.ue8m0 = ue8m0;
  p.seqLens = std::move(seqLens);
  int64_t used = 0, total = 0;
  for (int64_t len : p.seqLens) {
    const int64_t blocks = (len + blockSize - 1) / blockSize;
    used += blocks, total += len;
    p.maxBlocksPerSeq = std::max(p.maxBlocksPerSeq, std::max<int64_t>(blocks, 1));
  }
  p.numBlocks = used + spareBlocks;  // blocks no sequence owns: they must stay poisoned
  std::vector<int32_t> order(static_cast<size_t>(p.numBlocks));
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  const int64_t seqs = int64_t(p.seqLens.size());
  p.blockTable.assign(size_t(seqs * p.maxBlocksPerSeq), order.back());
  size_t next = 0;
  for (int64_t s = 0; s < seqs; ++s)
    for (int64_t b = 0; b * blockSize < p.seqLens[size_t(s)]; ++b)
      p.blockTable[size_t(s * p.maxBlocksPerSeq + b)] = order[next++];
  // Rows: every token of every sequence and about 10 % padding, in shuffled order.
  const int64_t padding = total / 10 + 1, rows = total + padding;
  std::vector<int64_t> rowOrder(static_cast<size_t>(rows));
  std::iota(rowOrder.begin(), rowOrder.end(), 0);
  std::shuffle(rowOrder.begin(), rowOrder.end(), rng);
  p.slots.assign(size_t(rows), -1);
  p.rowOfToken.clear();
  int64_t token = 0;
  for (int64_t s = 0; s < seqs; ++s)
    for (int64_t i = 0; i < p.seqLens[size_t(s)]; ++i, ++token) {
      const int64_t row = rowOrder[size_t(token)];
      const int64_t block = p.blockTable[size_t(s * p.maxBlocksPerSeq + i / blockSize)];
      p.slots[size_t(row)] = block * blockSize + i % blockSize;
      p.rowOfToken.push_back(row);
    }
  // Magnitudes from 2^-24 (under the 1e-4 floor) to 2^6, so scales of every size occur.
  p.k = HostTensor(DType::kBF16, {rows, kIndexerHeadDim});
  std::normal_distribution<double> normal(0, 1);
  std::uniform_int_distribution<int> exponent(-24, 6);
  for (int64_t r = 0; r < rows; ++r) {
    const double magnitude = std::ldexp(1.0, exponent(rng));
    for (int64_t d = 0; d < kIndexerHeadDim; ++d)
      p.k.set(r * kIndexerHeadDim + d, normal(rng) * magnitude);
  }
  return p;
}

std::vector<uint8_t> referenceCache(const IndexerProblem& p) {
  const int64_t blockBytes = p.blockSize * kIndexerTokenBytes;
  std::vector<uint8_t> cache(size_t(p.numBlocks * blockBytes), 0xFF);
  for (int64_t row = 0; row < int64_t(p.slots.size()); ++row) {
    const int64_t slot = p.slots[size_t(row)];
    if (slot < 0) continue;
    const int64_t block = slot / p.blockSize, offset = slot % p.blockSize;
    float amax = 0;
    for (int64_t d = 0; d < kIndexerHeadDim; ++d)
      amax = std::max(amax, std::fabs(float(p.k.get(row * kIndexerHeadDim + d))));
    const float scale = indexerScale(amax, p.ue8m0);
    uint8_t* values = cache.data() + block * blockBytes + offset * kIndexerHeadDim;
    for (int64_t d = 0; d < kIndexerHeadDim; ++d)
      values[d] = fp8E4M3(float(p.k.get(row * kIndexerHeadDim + d)) / scale);
    std::memcpy(cache.data() + block * blockBytes + p.blockSize * kIndexerHeadDim + offset * 4,
                &scale, 4);
  }
  return cache;
}

std::string boundParameter(const Op& op, std::string_view name) {
  if (op.launches().empty()) return "";
  for (const auto& [parameter, value] : op.launches().front().kernel->metadata().parameters)
    if (parameter == name) return value;
  return "";
}

int64_t boundInteger(const Op& op, std::string_view name, int64_t fallback) {
  int64_t value = 0;
  return absl::SimpleAtoi(boundParameter(op, name), &value) ? value : fallback;
}

OpCheck indexerOpCheck(IndexerCheck check, double bytesPerToken) {
  return [check, bytesPerToken](JitCompiler& jit, Device& device, const OpDefinition& definition,
                                const OpConfig& config,
                                const OpCheckOptions& options) -> absl::StatusOr<OpCheckReport> {
    const auto start = std::chrono::steady_clock::now();
    TJ_ASSIGN_OR_RETURN(std::unique_ptr<Op> op, definition.create(jit, device, config));
    const double loadSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::mt19937_64 rng(options.seed);
    const int64_t bs = boundInteger(*op, "block_size", 64);
    const IndexerProblem problem = makeIndexerProblem(
        bs, boundParameter(*op, "scale_format") == "ue8m0", {bs + 1, 0, 1, 2 * bs, bs - 1, 5}, rng);
    TJ_ASSIGN_OR_RETURN(IndexerVerdict verdict, check(*op, device, problem, options.iterations));
    OpCheckReport report;
    report.compiled = op->compiled();
    report.loadSeconds = loadSeconds;
    report.medianMs = verdict.medianMs;
    report.check.passed = verdict.passed;
    report.check.error = double(verdict.wrong);
    report.check.detail = verdict.detail;
    report.bytes = double(problem.rowOfToken.size()) * bytesPerToken;
    return report;
  };
}

TensorArg cacheViewArg(void* data, const IndexerProblem& p, DType dtype) {
  TensorArg arg;
  arg.data = data;
  arg.dtype = dtype;
  arg.rank = 2;
  arg.shape[0] = p.numBlocks, arg.shape[1] = p.blockSize * kIndexerTokenBytes / dtypeSize(dtype);
  arg.strides[0] = arg.shape[1], arg.strides[1] = 1;
  return arg;
}

absl::StatusOr<double> medianMs(Device& device, const std::function<absl::Status()>& work,
                                int iterations) {
  if (iterations <= 0) return 0.0;
  TJ_ASSIGN_OR_RETURN(std::vector<double> times, device.time(work, 3, iterations));
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

absl::StatusOr<IndexerVerdict> checkQuantAndCache(const Op& op, Device& device,
                                                  const IndexerProblem& p, int iterations) {
  const std::vector<uint8_t> want = referenceCache(p);
  HostTensor cache(DType::kU8, {int64_t(want.size())}), slots(DType::kI64, {int64_t(p.slots.size())});
  std::fill(cache.bytes.begin(), cache.bytes.end(), 0xFF);
  for (size_t i = 0; i < p.slots.size(); ++i) slots.set(int64_t(i), double(p.slots[i]));
  TJ_ASSIGN_OR_RETURN(DeviceTensor k, DeviceTensor::upload(device, p.k));
  TJ_ASSIGN_OR_RETURN(DeviceTensor deviceCache, DeviceTensor::upload(device, cache));
  TJ_ASSIGN_OR_RETURN(DeviceTensor deviceSlots, DeviceTensor::upload(device, slots));
  const std::vector<KernelArg> args = {k.arg(), cacheViewArg(deviceCache.data(), p, DType::kF8E4M3FN),
                                       cacheViewArg(deviceCache.data(), p, DType::kF32), deviceSlots.arg()};
  TJ_RETURN_IF_ERROR(op.run(args));
  TJ_RETURN_IF_ERROR(device.synchronize());
  TJ_RETURN_IF_ERROR(deviceCache.download(cache));
  IndexerVerdict verdict;
  TJ_ASSIGN_OR_RETURN(verdict.medianMs, medianMs(device, [&] { return op.run(args); }, iterations));
  int64_t firstWrong = -1;
  verdict.compared = int64_t(want.size());
  for (size_t i = 0; i < want.size(); ++i)
    if (cache.bytes[i] != want[i] && verdict.wrong++ == 0) firstWrong = int64_t(i);
  verdict.passed = verdict.wrong == 0;
  verdict.detail = absl::StrFormat(
      "block_size %d%s: %d of %d cache bytes differ from the reference%s", p.blockSize,
      p.ue8m0 ? " ue8m0" : "", verdict.wrong, verdict.compared,
      firstWrong < 0 ? "" : absl::StrFormat(" (first: block %d, byte %d of it)",
                                            firstWrong / (p.blockSize * kIndexerTokenBytes),
                                            firstWrong % (p.blockSize * kIndexerTokenBytes)));
  return verdict;
}

absl::Status register_indexer_k_quant_and_cache(OpReferenceRegistry& registry) {
  // K read, values and scale written, the slot read.
  return registry.add({"indexer_k_quant_and_cache", {},
                       indexerOpCheck(checkQuantAndCache, 2 * kIndexerHeadDim + kIndexerTokenBytes + 8)});
}

}  // namespace reference
}  // namespace tilejit
