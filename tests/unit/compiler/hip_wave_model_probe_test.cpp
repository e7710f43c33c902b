// The CPU wave model below the ops: cross-lane words no shipped template's legal parameters
// reach, a workgroup that deadlocks (reported, not hung), the target header generated from the
// target description, and how a named AMD target reaches the model's device.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "compiler/backends/hip/wave_model_target.h"
#include "runtime/backends/hip/wave_model_device.h"
#include "runtime/device.h"
#include "tests/unit/compiler/hip_wave_model_util.h"

namespace tilejit {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::AmdRoute;
using testing::runProbe;

class WaveModelProbe : public ::testing::TestWithParam<std::string> {
 protected:
  int wave() const { return (*lookupTarget(GetParam()))->warpSize; }
};

// xor 16 and 32, a gather from any lane, readfirstlane, through the library's own functions:
// each lane of a 128-lane workgroup writes what it read.
constexpr char kCrossLaneProbe[] = R"(
#define TJ_THREADS 128
#include "tj/device.h"
struct ProbeArgs { int* out; };
TJ_KERNEL_ENTRY(cross_lane, ProbeArgs) {
  const int t = tj::detail::threadId(), l = tj::detail::laneId();
  int* row = args.out + 4 * t;
  row[0] = tj::detail::xorLane<16>(t);
  row[1] = TJ_WAVE == 64 ? tj::detail::xorLane<TJ_WAVE / 2>(t) : -1;
  row[2] = tj::detail::fromLane(t, (l * 5 + 3) % TJ_WAVE);
  row[3] = tj::detail::uniform(t + 1000 * tj::detail::waveId());
}
)";

TEST_P(WaveModelProbe, CrossLaneWordsComeFromTheDocumentedLanes) {
  const int wave = this->wave();
  auto run = runProbe(GetParam(), kCrossLaneProbe, "cross_lane", 4 * 128);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->error, "");
  for (int t = 0; t < 128; ++t) {
    const int base = t - t % wave, l = t % wave;
    EXPECT_EQ(run->words[4 * t + 0], t ^ 16) << "xor 16, lane " << t;
    EXPECT_EQ(run->words[4 * t + 1], wave == 64 ? t ^ 32 : -1) << "xor 32, lane " << t;
    EXPECT_EQ(run->words[4 * t + 2], base + (l * 5 + 3) % wave) << "gather, lane " << t;
    EXPECT_EQ(run->words[4 * t + 3], base + 1000 * (t / wave)) << "readfirstlane, lane " << t;
  }
}

// Lanes 0-15 of every wave exchange words (a wave barrier) where the others went on to the
// workgroup barrier: neither barrier can open.
constexpr char kDivergentBarrierProbe[] = R"(
#define TJ_THREADS 128
#include "tj/device.h"
struct ProbeArgs { int* out; };
TJ_KERNEL_ENTRY(divergent_barrier, ProbeArgs) {
  const int t = tj::detail::threadId();
  int v = t;
  if (tj::detail::laneId() < 16) v = tj::detail::xorLane<1>(v);
  tj::detail::barrier();
  args.out[t] = v;
}
)";

TEST_P(WaveModelProbe, ADeadlockedWorkgroupEndsWithAnErrorNamingWhereLanesWait) {
  auto run = runProbe(GetParam(), kDivergentBarrierProbe, "divergent_barrier", 128);
  ASSERT_TRUE(run.ok()) << run.status();
  const int wave = this->wave();
  EXPECT_THAT(run->error,
              AllOf(HasSubstr("kernel 'divergent_barrier' deadlocked in workgroup (0, 0, 0) of 128 lanes"),
                    HasSubstr("lanes 0-15 wait at wave 0's barrier (a cross-lane operation)"),
                    HasSubstr("lanes 16-" + std::to_string(wave - 1) +
                              " wait at the workgroup barrier (s_barrier)"),
                    HasSubstr("lanes " + std::to_string(wave) + "-" + std::to_string(wave + 15) +
                              " wait at wave 1's barrier"),
                    HasSubstr("divergent control flow")));
  for (int t = 0; t < 128; ++t) EXPECT_EQ(run->words[size_t(t)], -7) << "lane " << t << " went past";
  // The object's error was taken: the next workgroup starts clean and deadlocks again.
  auto again = runProbe(GetParam(), kDivergentBarrierProbe, "divergent_barrier", 128);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_THAT(again->error, HasSubstr("deadlocked"));
}

// Through the device, as every op launches: the deadlock fails the launch with the model's
// message (the CPU device asks the object's tilejit_entry_error), and the next launch too.
TEST(WaveModelDevice, ADeadlockFailsTheLaunchWithTheModelsMessage) {
  auto binary = testing::compileProbe("gfx942", kDivergentBarrierProbe, "divergent_barrier");
  ASSERT_TRUE(binary.ok()) << binary.status();
  KernelMetadata metadata;
  metadata.templateName = metadata.entry = "divergent_barrier";
  metadata.target = "gfx942";
  metadata.backend = "hip";
  metadata.threadsPerProgram = 128;
  ArgSpec out;
  out.name = "out";
  out.dtype = DType::kI32;
  out.dims = {DimSpec{"", 128}};
  out.writable = true;
  metadata.args = {out};
  auto device = createWaveModelDevice("gfx942");
  ASSERT_TRUE(device.ok()) << device.status();
  auto kernel = (*device)->load(metadata, *binary);
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  std::vector<int32_t> words(128, -7);
  const TensorArg view = TensorArg::contiguous(words.data(), DType::kI32, {128});
  for (int launch = 0; launch < 2; ++launch) {
    absl::Status status = (*device)->launch(**kernel, {KernelArg(view)});
    EXPECT_THAT(std::string(status.message()),
                AllOf(HasSubstr("kernel 'divergent_barrier' failed: kernel 'divergent_barrier' deadlocked"),
                      HasSubstr("lanes 0-15 wait at wave 0's barrier")))
        << "launch " << launch;
  }
  EXPECT_EQ(words[20], -7);
}

// Waves that return before a barrier no longer hold it up (as on the hardware): no deadlock.
constexpr char kEarlyReturnProbe[] = R"(
#define TJ_THREADS 128
#include "tj/device.h"
struct ProbeArgs { int* out; };
TJ_KERNEL_ENTRY(early_return, ProbeArgs) {
  const int t = tj::detail::threadId();
  if (tj::detail::waveId() == 1) return;
  tj::detail::barrier();
  args.out[t] = tj::detail::xorLane<1>(t);
  tj::detail::barrier();
}
)";

TEST_P(WaveModelProbe, WavesThatReturnEarlyDoNotHoldABarrier) {
  auto run = runProbe(GetParam(), kEarlyReturnProbe, "early_return", 128);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->error, "");
  const int wave = this->wave();
  for (int t = 0; t < 128; ++t)
    EXPECT_EQ(run->words[size_t(t)], t / wave == 1 ? -7 : t ^ 1) << "lane " << t;
}

INSTANTIATE_TEST_SUITE_P(Targets, WaveModelProbe, ::testing::ValuesIn(testing::waveModelTargets()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

// The generated header holds each instruction of the description with the (row, col) the
// dialect's bases give, e.g. gfx950's 16x16x32 MFMA: lane 17 element 3 holds A[1][8 + 3].
TEST(WaveModelTargetHeader, HoldsTheDescriptionsInstructionsAndMacros) {
  auto gfx950 = waveModelTargetHeader(**lookupTarget("gfx950"));
  ASSERT_TRUE(gfx950.ok()) << gfx950.status();
  EXPECT_THAT(*gfx950, AllOf(HasSubstr("#define __gfx950__ 1\n#define __GFX9__ 1\n"),
                             HasSubstr("#define TJ_WAVE_MODEL_WAVE 64"),
                             HasSubstr("struct mfma_f32_16x16x32_bf16 {"),
                             HasSubstr("struct mfma_f32_16x16x16bf16_1k {"),
                             HasSubstr("static constexpr short kA[64][8][2]"),
                             HasSubstr("static constexpr short kC[64][4][2]"),
                             // lane 17: A row 1, k 8..15 (the only lane holding them)
                             HasSubstr("    {{1, 8}, {1, 9}, {1, 10}, {1, 11}, {1, 12}, {1, 13}, {1, 14}, {1, 15}},\n")));
  auto gfx1201 = waveModelTargetHeader(**lookupTarget("gfx1201"));
  ASSERT_TRUE(gfx1201.ok()) << gfx1201.status();
  EXPECT_THAT(*gfx1201, AllOf(HasSubstr("#define __GFX12__ 1"), HasSubstr("#define TJ_WAVE_MODEL_WAVE 32"),
                              HasSubstr("struct wmma_f32_16x16x16_bf16_w32_gfx12 {"),
                              HasSubstr("static constexpr short kA[32][8][2]"),
                              Not(HasSubstr("mfma"))));
  auto gfx1100 = waveModelTargetHeader(**lookupTarget("gfx1100"));
  ASSERT_TRUE(gfx1100.ok()) << gfx1100.status();
  EXPECT_THAT(*gfx1100, AllOf(HasSubstr("#define __GFX11__ 1"), HasSubstr("static constexpr short kA[32][16][2]")));
}

// A row whose bases do not cover its tile is refused before the model would run it.
TEST(WaveModelTargetHeader, RefusesARowThatDoesNotCoverItsTile) {
  TargetDescription broken = **lookupTarget("gfx950");
  // Lane bit 0 moves a column as bit 1 does: half the columns held twice, half never.
  broken.matrixInstructions[0].acc.laneBases[0] = broken.matrixInstructions[0].acc.laneBases[1];
  auto header = waveModelTargetHeader(broken);
  ASSERT_FALSE(header.ok());
  EXPECT_THAT(std::string(header.status().message()),
              AllOf(HasSubstr("mfma_f32_16x16x32_bf16 operand C"), HasSubstr("is held 2 time(s), not 1")));
  TargetDescription unnamed = **lookupTarget("gfx942");
  unnamed.name = "mi300";
  EXPECT_THAT(std::string(waveModelTargetHeader(unnamed).status().message()),
              HasSubstr("not 'mi300'"));
}

// A named AMD target: the model's device when the switch is on; without it and without an AMD
// GPU, an error that says how to run the model.
TEST(WaveModelDevice, ANamedAmdTargetRunsOnTheModelWhenSelected) {
  for (const std::string& target : testing::waveModelTargets()) {
    AmdRoute route;
    auto device = createDeviceForTarget(target);
    ASSERT_TRUE(device.ok()) << device.status();
    EXPECT_EQ((*device)->target(), target);
    EXPECT_THAT((*device)->name(), HasSubstr(target + " wave model on the host CPU"));
  }
  AmdRoute none("");
  auto device = createDeviceForTarget("gfx942");
  if (device.ok()) GTEST_SKIP() << "an AMD GPU runs gfx942 here: " << (*device)->name();
  EXPECT_THAT(std::string(device.status().message()),
              AllOf(HasSubstr("no device here runs target 'gfx942'"), HasSubstr("hip: no AMD"),
                    HasSubstr("to run gfx942 on the CPU wave model instead, set "
                              "TILEJIT_AMD_TOOLCHAIN=wave-model")));
}

TEST(WaveModelDevice, RefusesANameThatIsNoAmdgpuProcessor) {
  auto device = createWaveModelDevice("sm_90");
  ASSERT_FALSE(device.ok());
  EXPECT_THAT(std::string(device.status().message()), HasSubstr("not 'sm_90'"));
}

}  // namespace
}  // namespace tilejit
