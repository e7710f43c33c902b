// The HIP backend's prelude: TJ_SMEM_BYTES sized to what the HIP library asks of each kernel
// (capped by the target's LDS less the wave slices), min_blocks_per_sm as TJ_MIN_BLOCKS within
// what the LDS holds, cluster_size refused (AMD has no clusters).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "compiler/backends/registry.h"
#include "compiler/embedded_files.h"
#include "compiler/emit/cpp_emitter.h"
#include "compiler/specialize/specializer.h"
#include "mlir/IR/MLIRContext.h"

namespace tilejit {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// The defines between TJ_THREADS and tj/device.h of a shipped template's HIP TU, or the error.
std::string hipPrelude(const std::string& name, const std::string& target,
                       const std::map<std::string, std::string>& values) {
  static mlir::MLIRContext context{mlir::MLIRContext::Threading::DISABLED};
  auto parsed = parseTemplate(context, *shippedTemplate(name), name + ".mlir");
  if (!parsed.ok()) return std::string(parsed.status().message());
  const TargetDescription& description = **lookupTarget(target);
  auto specialized = specializeTemplate(**parsed, description, ParameterMap(values.begin(), values.end()));
  if (!specialized.ok()) return std::string(specialized.status().message());
  absl::StatusOr<EmittedKernel> emitted = emitKernel(specialized->templateOp, description);
  if (!emitted.ok()) return std::string(emitted.status().message());
  const std::string& source = emitted->source;
  const size_t begin = source.find('\n', source.find("#define TJ_THREADS")) + 1;
  return source.substr(begin, source.find("#include \"tj/device.h\"") - begin);
}

TEST(HipPrelude, DecodeScratchIsItsLargestDotStagingOnEveryTarget) {
  // 16 query rows, block_n 64, head 128, bf16: QK stages (16 + 64) x (128 + 8) x 2 bytes.
  for (const char* target : {"gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1201"})
    EXPECT_EQ(hipPrelude("paged_decode", target, {{"block_n", "64"}, {"min_blocks_per_sm", "0"}}), "#define TJ_SMEM_BYTES 21760\n") << target;
}

TEST(HipPrelude, KernelsWithoutLdsUsersGetTheSmallestBuffer) {
  EXPECT_EQ(hipPrelude("reshape_and_cache", "gfx942", {}), "#define TJ_SMEM_BYTES 16\n");
}

TEST(HipPrelude, OccupancyHintStaysWithinWhatTheLdsHolds) {
  // 21760 + 8 KB of wave slices: 64 KB holds 2 programs; gfx950's 160 KB holds 5.
  EXPECT_THAT(hipPrelude("paged_decode", "gfx942", {{"block_n", "64"}, {"min_blocks_per_sm", "4"}}),
              HasSubstr("#define TJ_MIN_BLOCKS 2\n"));
  EXPECT_THAT(hipPrelude("paged_decode", "gfx950", {{"block_n", "64"}, {"min_blocks_per_sm", "4"}}),
              HasSubstr("#define TJ_MIN_BLOCKS 4\n"));
  EXPECT_THAT(hipPrelude("paged_decode", "gfx942", {{"min_blocks_per_sm", "0"}}),
              Not(HasSubstr("TJ_MIN_BLOCKS")));
}

TEST(HipPrelude, Gfx9DecodeTuningAsksForTheWavesItsRegistersAllow) {
  // block_n 32: 13056 + 8 KB of wave slices; 3 programs of 4 waves are 3 waves per SIMD.
  EXPECT_EQ(hipPrelude("paged_decode", "gfx942", {}), "#define TJ_SMEM_BYTES 13056\n#define TJ_MIN_BLOCKS 3\n");
  EXPECT_EQ(hipPrelude("paged_decode", "gfx1100", {}), "#define TJ_SMEM_BYTES 13056\n");
}

TEST(HipPrelude, ClustersAreRefusedByName) {
  EXPECT_THAT(hipPrelude("paged_decode", "gfx942", {{"cluster_size", "2"}, {"partition_size", "512"}}),
              HasSubstr("cluster_size 2: AMD target gfx942 has no thread-block clusters"));
}

}  // namespace
}  // namespace tilejit
