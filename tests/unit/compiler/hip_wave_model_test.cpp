// The HIP device library on the CPU wave model (templates/device/hip_wave_model): the emitted
// HIP translation units of shipped ops, compiled by the host clang with every lane of a
// workgroup a fiber and the wave operations modelled lane-exactly, pass the ops' reference
// checks for a wave64 (gfx942) and a wave32 (gfx1100) target. Not run on AMD silicon.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "compiler/backends/hip/wave_model_toolchain.h"
#include "compiler/embedded_files.h"
#include "compiler/ops/op.h"
#include "compiler/targets/target_description.h"
#include "runtime/backends/hip/wave_model_device.h"
#include "support/status.h"
#include "tools/harness/op_reference.h"

namespace tilejit {
namespace {

using ::testing::HasSubstr;

// Chooses the wave-model toolchain for the hip backend while it lives; other tests of this
// binary see the route they had.
class WaveModelRoute {
 public:
  WaveModelRoute() {
    if (const char* route = std::getenv("TILEJIT_AMD_TOOLCHAIN")) saved_ = route;
    setenv("TILEJIT_AMD_TOOLCHAIN", "wave-model", 1);
  }
  ~WaveModelRoute() {
    if (saved_) setenv("TILEJIT_AMD_TOOLCHAIN", saved_->c_str(), 1);
    else unsetenv("TILEJIT_AMD_TOOLCHAIN");
  }

 private:
  std::optional<std::string> saved_;
};

absl::StatusOr<OpCheckReport> checkOnWaveModel(const std::string& op, const std::string& target,
                                               const std::vector<std::string>& assignments = {}) {
  WaveModelRoute route;
  TJ_ASSIGN_OR_RETURN(std::unique_ptr<Device> device, createWaveModelDevice(target));
  TJ_ASSIGN_OR_RETURN(std::unique_ptr<JitCompiler> jit, JitCompiler::create());
  const OpDefinition* definition = OpRegistry::shipped().find(op);
  const OpReference* reference = OpReferenceRegistry::shipped().find(op);
  if (!definition || !reference) return absl::NotFoundError("no op or reference " + op);
  TJ_ASSIGN_OR_RETURN(OpConfig config, definition->schema.parse(assignments, reference->defaults));
  OpCheckOptions options;
  options.iterations = 0;
  options.shape = {{"num_tokens", 12}, {"num_heads", 4}, {"num_kv_heads", 2},
                   {"num_blocks", 16}, {"num_seqs", 3}, {"context", 100}};
  return reference->check(*jit, *device, *definition, config, options);
}

class WaveModel : public ::testing::TestWithParam<std::string> {};

TEST_P(WaveModel, MergeAttnStatesPassesItsReference) {
  auto report = checkOnWaveModel("merge_attn_states", GetParam());
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_TRUE(report->check.passed) << report->check.detail;
}

TEST_P(WaveModel, ReshapeAndCachePassesItsReference) {
  auto report = checkOnWaveModel("reshape_and_cache", GetParam());
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_TRUE(report->check.passed) << report->check.detail;
}

TEST_P(WaveModel, PagedDecodePassesItsReference) {
  auto report = checkOnWaveModel("paged_decode", GetParam());
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_TRUE(report->check.passed) << report->check.detail;
}

// Rows of 128 scores (row reductions across 16 lanes: ds_swizzle xor 8) over the shuffled
// cache layout (ShuffledK's X-element pieces, ShuffledV's single elements).
TEST_P(WaveModel, PagedDecodeShuffledWithWideBlocksPassesItsReference) {
  auto report = checkOnWaveModel("paged_decode", GetParam(), {"block_n=128", "kv_layout=shuffled"});
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_TRUE(report->check.passed) << report->check.detail;
}

INSTANTIATE_TEST_SUITE_P(Targets, WaveModel, ::testing::Values("gfx942", "gfx1100"));

// The cross-lane words no shipped template's legal parameters reach (xor 16 and 32, a gather
// from any lane, readfirstlane), through the library's own functions: each lane of a
// 128-lane workgroup writes what it read.
constexpr char kCrossLaneProbe[] = R"(
#define TJ_THREADS 128
#include "tj/device.h"
struct ProbeArgs { int* out; };
TJ_KERNEL_ENTRY(probe, ProbeArgs) {
  const int t = tj::detail::threadId(), l = tj::detail::laneId();
  int* row = args.out + 4 * t;
  row[0] = tj::detail::xorLane<16>(t);
  row[1] = TJ_WAVE == 64 ? tj::detail::xorLane<TJ_WAVE / 2>(t) : -1;
  row[2] = tj::detail::fromLane(t, (l * 5 + 3) % TJ_WAVE);
  row[3] = tj::detail::uniform(t + 1000 * tj::detail::waveId());
}
)";

using ProbeEntry = void (*)(const void*, const int64_t*, const int64_t*);

// Compiles the probe for `target` with the wave-model toolchain, runs one workgroup and
// returns every lane's four words.
absl::StatusOr<std::vector<int>> runCrossLaneProbe(const std::string& target) {
  TJ_ASSIGN_OR_RETURN(const TargetDescription* description, lookupTarget(target));
  TJ_ASSIGN_OR_RETURN(std::unique_ptr<Toolchain> toolchain, createWaveModelToolchain(*description));
  CompileRequest request;
  request.source = kCrossLaneProbe;
  request.sourceName = "probe.cpp";
  request.entry = "probe";
  request.target = description;
  TJ_ASSIGN_OR_RETURN(request.headers, deviceLibraryHeaders("hip"));
  TJ_ASSIGN_OR_RETURN(CompileResult compiled, toolchain->compile(request));
  std::string path = ::testing::TempDir() + "/wave_model_probe_" + target + ".so";
  std::ofstream(path, std::ios::binary) << compiled.binary;
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  unlink(path.c_str());
  if (!handle) return absl::InternalError(std::string("dlopen: ") + dlerror());
  auto entry = reinterpret_cast<ProbeEntry>(dlsym(handle, "probe"));
  std::vector<int> out(4 * 128, -7);
  if (entry) {
    int* pointer = out.data();
    const int64_t programId[3] = {0, 0, 0}, numPrograms[3] = {1, 1, 1};
    entry(&pointer, programId, numPrograms);
  }
  dlclose(handle);
  if (!entry) return absl::InternalError("probe is not exported");
  return out;
}

TEST_P(WaveModel, CrossLaneWordsComeFromTheDocumentedLanes) {
  const int wave = GetParam() == "gfx942" ? 64 : 32;
  auto out = runCrossLaneProbe(GetParam());
  ASSERT_TRUE(out.ok()) << out.status();
  for (int t = 0; t < 128; ++t) {
    const int base = t - t % wave, l = t % wave;
    EXPECT_EQ((*out)[4 * t + 0], t ^ 16) << "xor 16, lane " << t;
    EXPECT_EQ((*out)[4 * t + 1], wave == 64 ? t ^ 32 : -1) << "xor 32, lane " << t;
    EXPECT_EQ((*out)[4 * t + 2], base + (l * 5 + 3) % wave) << "gather, lane " << t;
    EXPECT_EQ((*out)[4 * t + 3], base + 1000 * (t / wave)) << "readfirstlane, lane " << t;
  }
}

TEST(WaveModelDevice, RefusesTargetsItDoesNotModel) {
  auto device = createWaveModelDevice("gfx1201");
  ASSERT_FALSE(device.ok());
  EXPECT_THAT(std::string(device.status().message()), HasSubstr("not 'gfx1201'"));
}

}  // namespace
}  // namespace tilejit
