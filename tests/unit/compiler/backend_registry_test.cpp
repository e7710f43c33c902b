// The compiler backends: every target's backend is registered, an unknown name is a clear
// error, and each backend's suffix and prelude (the defines before tj/device.h) are its own.
#include "compiler/backends/registry.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "compiler/embedded_files.h"
#include "compiler/emit/cpp_emitter.h"
#include "compiler/specialize/specializer.h"
#include "mlir/IR/MLIRContext.h"

namespace tilejit {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(BackendRegistry, EveryTargetsBackendIsRegisteredAndListsIt) {
  std::vector<std::string> names;
  for (const TargetDescription& target : allTargets()) {
    names.push_back(target.name);
    absl::StatusOr<const CompilerBackend*> backend = lookupBackend(target.backend);
    ASSERT_TRUE(backend.ok()) << target.name << ": " << backend.status();
    EXPECT_EQ((*backend)->name(), target.backend);
    std::vector<TargetDescription> served = (*backend)->targets();
    EXPECT_TRUE(std::any_of(served.begin(), served.end(),
                            [&](const TargetDescription& t) { return t.name == target.name; }))
        << target.backend << " does not list " << target.name;
  }
  // The listing order the 'known targets' message shows (backends by listing rank).
  EXPECT_EQ(names, (std::vector<std::string>{"sm_80", "sm_90", "gfx90a", "gfx942", "gfx950",
                                             "gfx1100", "gfx1201", "host"}));
}

TEST(BackendRegistry, UnknownBackendIsAClearError) {
  absl::StatusOr<const CompilerBackend*> backend = lookupBackend("metal");
  ASSERT_FALSE(backend.ok());
  EXPECT_EQ(backend.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(backend.status().message(),
              HasSubstr("no compiler backend 'metal' in this build; registered backends: cuda, hip, cpu"));
}

TEST(BackendRegistry, EachBackendHandsItsToolchainItsLibraryAndTheCommonAbi) {
  for (const CompilerBackend* backend : allBackends()) {
    if (backend->name() == "hip") continue;  // no AMD device library yet
    absl::StatusOr<std::vector<std::pair<std::string, std::string>>> headers =
        deviceLibraryHeaders(backend->deviceLibraryFolder());
    ASSERT_TRUE(headers.ok()) << headers.status();
    std::map<std::string, std::string> byName(headers->begin(), headers->end());
    EXPECT_TRUE(byName.count("tj/device.h")) << backend->name();
    ASSERT_TRUE(byName.count("tj/abi.h")) << backend->name();
    EXPECT_THAT(byName["tj/abi.h"], HasSubstr("struct View"));
    EXPECT_THAT(byName["tj/types.h"], Not(HasSubstr("struct View")));
  }
}

// The emitted TU of a shipped template, specialized for `target` with `values`.
absl::StatusOr<EmittedKernel> emitShipped(const std::string& name, const std::string& target,
                                          const std::map<std::string, std::string>& values) {
  static mlir::MLIRContext context{mlir::MLIRContext::Threading::DISABLED};
  absl::StatusOr<const TargetDescription*> description = lookupTarget(target);
  if (!description.ok()) return description.status();
  absl::StatusOr<std::string> text = shippedTemplate(name);
  if (!text.ok()) return text.status();
  auto parsed = parseTemplate(context, *text, name + ".mlir");
  if (!parsed.ok()) return parsed.status();
  absl::StatusOr<SpecializedKernel> specialized = specializeTemplate(**parsed, **description, ParameterMap(values.begin(), values.end()));
  if (!specialized.ok()) return specialized.status();
  return emitKernel(specialized->templateOp, **description);
}

// The lines the backend wrote: after TJ_THREADS, before the library's include.
std::string preludeOf(const std::string& source) {
  size_t threads = source.find("#define TJ_THREADS");
  size_t begin = source.find('\n', threads) + 1;
  return source.substr(begin, source.find("#include \"tj/device.h\"") - begin);
}

std::string emittedPrelude(const std::string& name, const std::string& target,
                           const std::map<std::string, std::string>& values) {
  absl::StatusOr<EmittedKernel> emitted = emitShipped(name, target, values);
  EXPECT_TRUE(emitted.ok()) << emitted.status();
  return emitted.ok() ? preludeOf(emitted->source) : "";
}

TEST(BackendPrelude, CudaSizesTheScratchAndCapsTheOccupancyHint) {
  absl::StatusOr<EmittedKernel> emitted =
      emitShipped("merge_attn_states", "sm_90", {{"heads_per_program", "16"}, {"min_blocks_per_sm", "10"}});
  ASSERT_TRUE(emitted.ok()) << emitted.status();
  EXPECT_EQ(emitted->sourceName, "merge_attn_states.cu");
  // [16, 128] f32 tiles: 8 KB of scratch; 228 KB holds 25 programs of 9 KB, so the hint stays.
  EXPECT_EQ(preludeOf(emitted->source), "#define TJ_SMEM_BYTES 8192\n#define TJ_MIN_BLOCKS 10\n");
  EXPECT_EQ(emitted->metadata.clusterPrograms, 1);
  EXPECT_EQ(emitted->metadata.dynamicSharedBytes, 0);
}

TEST(BackendPrelude, CudaScratchPlanNumbersAreUnchanged) {
  // The smallest scratch is 2 KiB, the largest 32 KiB (tj/dot.h's plan); in between the
  // largest blocked tile in f32, a power of two, or a dot's staging rounded up to 512 bytes.
  EXPECT_EQ(emittedPrelude("merge_attn_states", "sm_90",
                           {{"heads_per_program", "1"}, {"head_size", "32"}, {"min_blocks_per_sm", "0"}}),
            "#define TJ_SMEM_BYTES 2048\n");
  // [32, 512] f32 tiles want 64 KiB: capped; 228 KB holds 6 programs of 32 + 1 KiB.
  EXPECT_EQ(emittedPrelude("merge_attn_states", "sm_90",
                           {{"heads_per_program", "32"}, {"head_size", "512"}, {"min_blocks_per_sm", "32"}}),
            "#define TJ_SMEM_BYTES 32768\n#define TJ_MIN_BLOCKS 6\n");
  // 16 rows of 64 + 8 bf16 probabilities staged for the PV dot: 2304 bytes, rounded to 2560.
  EXPECT_THAT(emittedPrelude("paged_decode", "sm_90", {{"gqa_ratio", "8"}, {"block_n", "64"}}),
              HasSubstr("#define TJ_SMEM_BYTES 2560\n"));
  const CompilerBackend* cuda = *lookupBackend("cuda");
  EXPECT_EQ(cuda->perProgramReservedBytes(), 1024);
  EXPECT_EQ(cuda->programsThatFit(**lookupTarget("sm_90"), 4096), (227 * 1024 + 1024) / (4096 + 1024));
}

TEST(BackendPrelude, CudaDeclaresClusters) {
  absl::StatusOr<EmittedKernel> emitted = emitShipped(
      "paged_decode", "sm_90", {{"cluster_size", "2"}, {"partition_size", "512"}, {"block_n", "64"}});
  ASSERT_TRUE(emitted.ok()) << emitted.status();
  EXPECT_THAT(preludeOf(emitted->source), HasSubstr("#define TJ_CLUSTER_PROGRAMS 2\n"));
  EXPECT_EQ(emitted->metadata.clusterPrograms, 2);
  EXPECT_GT(emitted->metadata.dynamicSharedBytes, 0);
}

// The emitter asks the backend what its library holds: fragment tiles of which instructions,
// and the bytes of placed buffers (none where a backend places nothing).
TEST(BackendMemoryModel, LibrariesDeclareTheirFragmentTilesAndPlacedBuffers) {
  const CompilerBackend* cuda = *lookupBackend("cuda");
  const CompilerBackend* cpu = *lookupBackend("cpu");
  EXPECT_TRUE(cuda->libraryHasFragmentTiles("mma.sync.m16n8k16"));
  EXPECT_FALSE(cuda->libraryHasFragmentTiles("mfma_f32_32x32x8bf16_1k"));
  EXPECT_FALSE(cpu->libraryHasFragmentTiles("mma.sync.m16n8k16"));
  absl::StatusOr<EmittedKernel> decode = emitShipped("paged_decode", "sm_90", {{"block_n", "64"}});
  ASSERT_TRUE(decode.ok()) << decode.status();
  // K and V tiles of [64, 128] bf16 at least, in CUDA's placed-tile layout (sizes: lit tests).
  EXPECT_GE(decode->metadata.dynamicSharedBytes, 2 * 64 * 128 * 2);
  absl::StatusOr<EmittedKernel> host = emitShipped("paged_decode", "host", {{"block_n", "64"}});
  ASSERT_TRUE(host.ok()) << host.status();
  EXPECT_EQ(host->metadata.dynamicSharedBytes, 0);
}

TEST(BackendPrelude, CpuWritesNoDefinesButChecksTheReservedParameters) {
  absl::StatusOr<EmittedKernel> emitted =
      emitShipped("merge_attn_states", "host", {{"min_blocks_per_sm", "4"}});
  ASSERT_TRUE(emitted.ok()) << emitted.status();
  EXPECT_EQ(emitted->sourceName, "merge_attn_states.cpp");
  EXPECT_EQ(preludeOf(emitted->source), "");
  EXPECT_EQ(emitted->metadata.clusterPrograms, 1);
  absl::StatusOr<EmittedKernel> clustered = emitShipped(
      "paged_decode", "host", {{"cluster_size", "2"}, {"partition_size", "512"}, {"block_n", "64"}});
  ASSERT_FALSE(clustered.ok());
  EXPECT_THAT(clustered.status().message(),
              HasSubstr("cluster_size 2: target host has no thread-block clusters (cluster_size must be 1)"));
}

TEST(BackendPrelude, HipEmitsWithoutALibraryAndPicksAToolchain) {
  absl::StatusOr<EmittedKernel> emitted = emitShipped("merge_attn_states", "gfx942", {});
  ASSERT_TRUE(emitted.ok()) << emitted.status();
  EXPECT_EQ(emitted->sourceName, "merge_attn_states.cpp");
  // The HIP prelude sizes the scratch (hip_prelude_test.cpp has the cases).
  EXPECT_EQ(preludeOf(emitted->source), "#define TJ_SMEM_BYTES 32\n");
  // comgr 5.2 and hiprtc do not know gfx942: the in-process LLVM compiler serves it.
  absl::StatusOr<std::unique_ptr<Toolchain>> toolchain = createToolchain(**lookupTarget("gfx942"));
  ASSERT_TRUE(toolchain.ok()) << toolchain.status();
  EXPECT_THAT((*toolchain)->identity(), HasSubstr("llvm-amdgpu 22"));
}

}  // namespace
}  // namespace tilejit
