// The HIP backend where no AMD GPU exists (CI, this machine): the runtime library is found or
// reported missing by name, hipInit's failure is one clear message, and the searches fall back.
#include "runtime/backends/hip/hip_device.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "absl/strings/match.h"
#include "runtime/backends/hip/hip_runtime.h"
#include "runtime/device_registry.h"
#include "support/dynamic_library.h"

namespace tilejit {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

// Why this machine is not the one these tests describe, or empty: a HIP runtime is installed
// and finds no GPU.
std::string whyNotNoGpuMachine() {
  absl::StatusOr<std::unique_ptr<hip::LoadedRuntime>> loaded =
      hip::loadRuntime(hip::defaultRuntimeLibraries());
  if (loaded.ok()) return "an AMD GPU is present: tilejit_gpu_tests would cover this machine";
  if (absl::StartsWith(loaded.status().message(), "no AMD driver"))
    return "no HIP runtime (libamdhip64) is installed here; HipRuntime.ReportsAMissingLibrary "
           "covers this";
  return "";
}

TEST(HipRuntime, ReportsAMissingLibraryByName) {
  absl::StatusOr<std::unique_ptr<hip::LoadedRuntime>> loaded =
      hip::loadRuntime({"libamdhip64.so.missing-for-test", "/nonexistent/libamdhip64.so"});
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(loaded.status().message()),
              AllOf(HasSubstr("no AMD driver: dlopen(libamdhip64.so.missing-for-test, "
                              "/nonexistent/libamdhip64.so) failed: "),
                    HasSubstr("libamdhip64.so.missing-for-test")));
}

TEST(HipRuntime, TriesTheRocmSonamesNewestFirst) {
  EXPECT_EQ(hip::defaultRuntimeLibraries(),
            (std::vector<std::string>{"libamdhip64.so.7", "libamdhip64.so.6", "libamdhip64.so.5",
                                      "libamdhip64.so"}));
}

TEST(HipRuntime, WithoutAGpuHipInitFailsWithOneMessage) {
  if (std::string why = whyNotNoGpuMachine(); !why.empty()) GTEST_SKIP() << why;
  absl::StatusOr<std::unique_ptr<hip::LoadedRuntime>> loaded =
      hip::loadRuntime(hip::defaultRuntimeLibraries());
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().message(), "no AMD GPU: hipInit returned 101 (hipErrorInvalidDevice)");
  absl::StatusOr<std::unique_ptr<Device>> device = createHipDevice();
  ASSERT_FALSE(device.ok());
  EXPECT_EQ(device.status().message(), "no AMD GPU: hipInit returned 101 (hipErrorInvalidDevice)");
}

TEST(HipDevice, TheBestDeviceFallsBackToTheCpu) {
  if (std::string why = whyNotNoGpuMachine(); !why.empty()) GTEST_SKIP() << why;
  if (DynamicLibrary::open({"libcuda.so.1"}).ok())
    GTEST_SKIP() << "libcuda.so.1 is present: the CUDA backend comes first";
  std::string why;
  std::unique_ptr<Device> best = createBestDevice(&why);
  ASSERT_NE(best, nullptr);
  EXPECT_EQ(best->target(), "host");
  EXPECT_THAT(why, HasSubstr("no NVIDIA driver"));
  EXPECT_THAT(why, HasSubstr("; no AMD GPU: hipInit returned 101 (hipErrorInvalidDevice)"));
}

TEST(HipDevice, AnAmdTargetSaysWhyThereIsNoDevice) {
  if (std::string why = whyNotNoGpuMachine(); !why.empty()) GTEST_SKIP() << why;
  absl::StatusOr<std::unique_ptr<Device>> device = createDeviceForTarget("gfx942");
  ASSERT_FALSE(device.ok());
  EXPECT_EQ(device.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(device.status().message()),
              AllOf(HasSubstr("no device here runs target 'gfx942'"),
                    HasSubstr("hip: no AMD GPU: hipInit returned 101 (hipErrorInvalidDevice)"),
                    HasSubstr("cpu: host CPU")));
}

TEST(HipDevice, IsRegisteredAfterCudaAndBeforeTheCpu) {
  const std::vector<DeviceBackend>& backends = builtInDeviceBackends().backends();
  auto position = [&](const std::string& name) {
    return std::find_if(backends.begin(), backends.end(),
                        [&](const DeviceBackend& backend) { return backend.name == name; });
  };
  auto cuda = position("cuda"), hip = position("hip"), cpu = position("cpu");
  ASSERT_NE(hip, backends.end());
  EXPECT_EQ(hip->rank, 200);
  EXPECT_LT(cuda, hip);
  EXPECT_LT(hip, cpu);
  for (const char* target : {"gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1201"})
    EXPECT_TRUE(hip->runsTarget(target)) << target;
  EXPECT_FALSE(hip->runsTarget("sm_90"));
  EXPECT_FALSE(hip->runsTarget("host"));
}

}  // namespace
}  // namespace tilejit
