// The HIP backend where no AMD GPU exists (CI, this machine): the runtime library is found or
// reported missing by name, hipInit's failure is one clear message, and the searches fall back.
#include "runtime/backends/hip/hip_device.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <type_traits>

#include "absl/strings/match.h"
#include "runtime/backends/hip/hip_runtime.h"
#include "runtime/backends/hip/wave_model_device.h"
#include "runtime/device_registry.h"
#include "support/dynamic_library.h"

namespace tilejit {
namespace testing {
// hip_header_values_test.cpp: the installed ROCm header's values by name (empty without it).
std::map<std::string, int64_t> installedHipHeaderValues();
}  // namespace testing
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

// The installed runtime resolves every entry point, and its properties entry point is one
// whose gcnArchName offset is known.
TEST(HipRuntime, ResolvesTheInstalledLibrary) {
  absl::StatusOr<std::unique_ptr<hip::LoadedRuntime>> opened =
      hip::openRuntime(hip::defaultRuntimeLibraries());
  if (!opened.ok() && absl::StartsWith(opened.status().message(), "no AMD driver"))
    GTEST_SKIP() << opened.status().message();
  ASSERT_TRUE(opened.ok()) << opened.status();
  const hip::RuntimeApi& api = (*opened)->api;
  int version = 0;
  ASSERT_EQ(api.hipRuntimeGetVersion(&version), hip::hipSuccess);
  bool known = false;
  for (const hip::PropertiesLayout& layout : hip::kPropertiesLayouts)
    known |= std::string(layout.entryPoint) == api.propertiesEntryPoint &&
             layout.archOffset == api.propertiesArchOffset;
  EXPECT_TRUE(known) << api.propertiesEntryPoint;
  // ROCm 5 exports only the unversioned name, ROCm 6+ the R0600 one as well.
  EXPECT_STREQ(api.propertiesEntryPoint,
               version >= 60000000 ? "hipGetDevicePropertiesR0600" : "hipGetDeviceProperties")
      << "HIP " << version;
  EXPECT_STREQ(api.hipGetErrorName(101), "hipErrorInvalidDevice");
  EXPECT_STREQ(api.hipGetErrorName(100), "hipErrorNoDevice");
}

// The values hip_runtime.h declares, against the installed ROCm's own header.
TEST(HipRuntime, ConstantsMatchTheInstalledHeader) {
  const std::map<std::string, int64_t> header = testing::installedHipHeaderValues();
  if (header.empty()) GTEST_SKIP() << "no hip/hip_runtime_api.h installed (libamdhip64-dev)";
  const auto value = [](auto constant) {
    if constexpr (std::is_pointer_v<decltype(constant)>)
      return static_cast<int64_t>(reinterpret_cast<intptr_t>(constant));
    else
      return static_cast<int64_t>(constant);
  };
  const std::map<std::string, int64_t> ours = {
      {"hipSuccess", value(hip::hipSuccess)},
      {"hipMemcpyHostToDevice", value(hip::hipMemcpyHostToDevice)},
      {"hipMemcpyDeviceToHost", value(hip::hipMemcpyDeviceToHost)},
      {"hipStreamNonBlocking", value(hip::hipStreamNonBlocking)},
      {"hipStreamCaptureModeThreadLocal", value(hip::hipStreamCaptureModeThreadLocal)},
      {"HIP_LAUNCH_PARAM_BUFFER_POINTER", value(hip::HIP_LAUNCH_PARAM_BUFFER_POINTER)},
      {"HIP_LAUNCH_PARAM_BUFFER_SIZE", value(hip::HIP_LAUNCH_PARAM_BUFFER_SIZE)},
      {"HIP_LAUNCH_PARAM_END", value(hip::HIP_LAUNCH_PARAM_END)},
      {"hipDeviceAttributeMaxThreadsPerBlock", value(hip::hipDeviceAttributeMaxThreadsPerBlock)},
      {"hipDeviceAttributeMaxSharedMemoryPerBlock",
       value(hip::hipDeviceAttributeMaxSharedMemoryPerBlock)}};
  for (const auto& [name, number] : ours) {
    auto found = header.find(name);
    ASSERT_NE(found, header.end()) << name;
    EXPECT_EQ(number, found->second) << name;
  }
  const char* entryPoint = header.at("HIP_VERSION_MAJOR") >= 6 ? "hipGetDevicePropertiesR0600"
                                                               : "hipGetDeviceProperties";
  for (const hip::PropertiesLayout& layout : hip::kPropertiesLayouts)
    if (std::string(layout.entryPoint) == entryPoint)
      EXPECT_EQ(static_cast<int64_t>(layout.archOffset), header.at("gcnArchNameOffset"))
          << entryPoint;
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
                    HasSubstr("hip: no AMD GPU: hipInit returned 101 (hipErrorInvalidDevice); "
                              "to run gfx942 on the CPU wave model instead, set "
                              "TILEJIT_AMD_TOOLCHAIN=wave-model"),
                    HasSubstr("cpu: host CPU")));
}

// The switch gives a named AMD target the wave model's device, GPU or not; the best device
// (no target named) stays what the machine has.
TEST(HipDevice, TheWaveModelSwitchGivesANamedTargetTheModel) {
  const char* saved = std::getenv(kAmdToolchainVariable);
  const std::string old = saved ? saved : "";
  setenv(kAmdToolchainVariable, kWaveModelRoute, 1);
  absl::StatusOr<std::unique_ptr<Device>> device = createDeviceForTarget("gfx1201");
  absl::StatusOr<std::unique_ptr<Device>> notAmd = createDeviceForTarget("sm_90");
  std::unique_ptr<Device> best = createBestDevice();
  if (saved) setenv(kAmdToolchainVariable, old.c_str(), 1);
  else unsetenv(kAmdToolchainVariable);
  ASSERT_TRUE(device.ok()) << device.status();
  EXPECT_EQ((*device)->target(), "gfx1201");
  EXPECT_EQ((*device)->name().find("gfx1201 wave model on the host CPU"), 0u) << (*device)->name();
  EXPECT_FALSE(notAmd.ok() && (*notAmd)->name().find("wave model") != std::string::npos);
  ASSERT_NE(best, nullptr);
  EXPECT_EQ(best->name().find("wave model"), std::string::npos) << best->name();
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
