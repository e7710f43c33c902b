// Reference for gather_indexer_k_quant_cache: from the reference cache (its sequences in
// shuffled blocks), every token of the batch gets its un-paged row's fp8 codes and scale,
// bit-exactly; output rows past the batch keep their poison.
#include <cstring>

#include "absl/strings/str_format.h"
#include "compiler/ops/indexer_k_quant_and_cache/indexer_check.h"
#include "support/status.h"
#include "tools/harness/op_reference.h"

namespace tilejit {
namespace reference {

absl::StatusOr<IndexerVerdict> checkGather(const Op& op, Device& device, const IndexerProblem& p,
                                           int iterations) {
  const std::vector<uint8_t> cacheBytes = referenceCache(p);
  const int64_t seqs = int64_t(p.seqLens.size()), total = int64_t(p.rowOfToken.size());
  const int64_t outRows = total + 3;  // rows past the batch: never written
  HostTensor cache(DType::kU8, {int64_t(cacheBytes.size())}), table(DType::kI32, {seqs, p.maxBlocksPerSeq}),
      cu(DType::kI32, {seqs + 1}), dstK(DType::kU8, {outRows, kIndexerHeadDim}),
      dstScale(DType::kF32, {outRows, 1});
  cache.bytes = cacheBytes;
  for (size_t i = 0; i < p.blockTable.size(); ++i) table.set(int64_t(i), p.blockTable[i]);
  int64_t sum = 0;
  cu.set(0, 0);
  for (int64_t s = 0; s < seqs; ++s) cu.set(s + 1, double(sum += p.seqLens[size_t(s)]));
  std::fill(dstK.bytes.begin(), dstK.bytes.end(), 0xFF);
  dstScale.fillNaN();
  TJ_ASSIGN_OR_RETURN(DeviceTensor deviceCache, DeviceTensor::upload(device, cache));
  TJ_ASSIGN_OR_RETURN(DeviceTensor deviceTable, DeviceTensor::upload(device, table));
  TJ_ASSIGN_OR_RETURN(DeviceTensor deviceCu, DeviceTensor::upload(device, cu));
  TJ_ASSIGN_OR_RETURN(DeviceTensor deviceK, DeviceTensor::upload(device, dstK));
  TJ_ASSIGN_OR_RETURN(DeviceTensor deviceScale, DeviceTensor::upload(device, dstScale));
  TensorArg kArg = deviceK.arg();
  kArg.dtype = DType::kF8E4M3FN;
  const std::vector<KernelArg> args = {cacheViewArg(deviceCache.data(), p, DType::kF8E4M3FN),
                                       cacheViewArg(deviceCache.data(), p, DType::kF32), kArg,
                                       deviceScale.arg(), deviceTable.arg(), deviceCu.arg()};
  TJ_RETURN_IF_ERROR(op.run(args));
  TJ_RETURN_IF_ERROR(device.synchronize());
  TJ_RETURN_IF_ERROR(deviceK.download(dstK));
  TJ_RETURN_IF_ERROR(deviceScale.download(dstScale));
  TJ_ASSIGN_OR_RETURN(const double timed, medianMs(device, [&] { return op.run(args); }, iterations));
  // The quantized un-paged rows, from a cache that holds each row at its slot.
  IndexerVerdict verdict;
  int64_t firstWrong = -1;
  const int64_t blockBytes = p.blockSize * kIndexerTokenBytes;
  for (int64_t j = 0; j < outRows; ++j) {
    const uint8_t* wantK = nullptr;
    uint32_t wantScale = 0xFFFFFFFFu;
    std::vector<uint8_t> poison(kIndexerHeadDim, 0xFF);
    if (j < total) {
      const int64_t slot = p.slots[size_t(p.rowOfToken[size_t(j)])];
      const int64_t block = slot / p.blockSize, offset = slot % p.blockSize;
      wantK = cacheBytes.data() + block * blockBytes + offset * kIndexerHeadDim;
      std::memcpy(&wantScale, cacheBytes.data() + block * blockBytes + p.blockSize * kIndexerHeadDim + offset * 4, 4);
    } else {
      wantK = poison.data();
      HostTensor nan(DType::kF32, {1});
      nan.fillNaN();
      std::memcpy(&wantScale, nan.bytes.data(), 4);
    }
    uint32_t gotScale;
    std::memcpy(&gotScale, dstScale.bytes.data() + j * 4, 4);
    int64_t wrong = gotScale != wantScale;
    for (int64_t d = 0; d < kIndexerHeadDim; ++d)
      wrong += dstK.bytes[size_t(j * kIndexerHeadDim + d)] != wantK[d];
    verdict.compared += kIndexerHeadDim + 1;
    if (wrong && firstWrong < 0) firstWrong = j;
    verdict.wrong += wrong;
  }
  verdict.passed = verdict.wrong == 0;
  verdict.medianMs = timed;
  verdict.detail = absl::StrFormat(
      "block_size %d: %d of %d gathered bytes and scales differ%s; %d batch tokens, %d output rows",
      p.blockSize, verdict.wrong, verdict.compared,
      firstWrong < 0 ? "" : absl::StrFormat(" (first at output row %d)", firstWrong), total, outRows);
  return verdict;
}

absl::Status register_gather_indexer_k_quant_cache(OpReferenceRegistry& registry) {
  // Values and scale read from the cache and written out.
  return registry.add({"gather_indexer_k_quant_cache", {},
                       indexerOpCheck(checkGather, 2 * kIndexerTokenBytes)});
}

}  // namespace reference
}  // namespace tilejit
