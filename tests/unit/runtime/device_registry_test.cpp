#include "runtime/device_registry.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "absl/strings/str_join.h"

namespace tilejit {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A backend whose device is the host CPU (or `error`), counting how often it was created.
DeviceBackend fakeBackend(std::string name, int rank, std::string_view runs,
                          absl::Status error = absl::OkStatus(), int* created = nullptr) {
  return {std::move(name), rank,
          [runs = std::string(runs)](std::string_view target) { return target == runs; },
          [error, created]() -> absl::StatusOr<std::unique_ptr<Device>> {
            if (created) ++*created;
            if (!error.ok()) return error;
            return createCpuDevice();
          }};
}

std::vector<std::string> namesOf(const DeviceRegistry& registry) {
  std::vector<std::string> names;
  for (const DeviceBackend& backend : registry.backends()) names.push_back(backend.name);
  return names;
}

TEST(DeviceRegistry, OrdersBackendsByRankThenByArrival) {
  DeviceRegistry registry;
  registry.add(fakeBackend("last", 30, "host"));
  registry.add(fakeBackend("first", 10, "host"));
  registry.add(fakeBackend("second", 20, "host"));
  registry.add(fakeBackend("second_too", 20, "host"));
  EXPECT_THAT(namesOf(registry), ElementsAre("first", "second", "second_too", "last"));
}

TEST(DeviceRegistry, BestIsTheFirstRankThatHasADevice) {
  DeviceRegistry registry;
  int fallbackCreated = 0;
  registry.add(fakeBackend("fallback", 1000, "host", absl::OkStatus(), &fallbackCreated));
  registry.add(fakeBackend("gpu", 10, "host"));
  std::vector<std::string> skipped = {"stale"};
  absl::StatusOr<std::unique_ptr<Device>> best = registry.createBest(&skipped);
  ASSERT_TRUE(best.ok()) << best.status();
  EXPECT_TRUE(skipped.empty());
  EXPECT_EQ(fallbackCreated, 0);
}

TEST(DeviceRegistry, FallsBackToTheNextRankAndSaysWhy) {
  DeviceRegistry registry;
  int fallbackCreated = 0;
  registry.add(fakeBackend("fallback", 1000, "host", absl::OkStatus(), &fallbackCreated));
  registry.add(fakeBackend("gpu_a", 10, "a", absl::UnavailableError("no A driver: dlopen(a)")));
  registry.add(fakeBackend("gpu_b", 20, "b", absl::UnavailableError("no B device")));
  std::vector<std::string> skipped;
  absl::StatusOr<std::unique_ptr<Device>> best = registry.createBest(&skipped);
  ASSERT_TRUE(best.ok()) << best.status();
  EXPECT_EQ((*best)->target(), "host");
  EXPECT_EQ(fallbackCreated, 1);
  EXPECT_THAT(skipped, ElementsAre("no A driver: dlopen(a)", "no B device"));
}

TEST(DeviceRegistry, BestFailsWithEveryReasonWhenNoBackendHasADevice) {
  DeviceRegistry registry;
  registry.add(fakeBackend("gpu_a", 10, "a", absl::UnavailableError("no A driver")));
  registry.add(fakeBackend("gpu_b", 20, "b", absl::UnavailableError("no B device")));
  absl::StatusOr<std::unique_ptr<Device>> best = registry.createBest();
  ASSERT_FALSE(best.ok());
  EXPECT_THAT(best.status().message(), AllOf(HasSubstr("no A driver"), HasSubstr("no B device")));
}

TEST(DeviceRegistry, ForTargetCreatesOnlyTheBackendsThatRunIt) {
  DeviceRegistry registry;
  int gpuCreated = 0;
  registry.add(fakeBackend("gpu", 10, "sm_90", absl::OkStatus(), &gpuCreated));
  registry.add(fakeBackend("cpu", 1000, "host"));
  absl::StatusOr<std::unique_ptr<Device>> device = registry.createForTarget("host");
  ASSERT_TRUE(device.ok()) << device.status();
  EXPECT_EQ((*device)->target(), "host");
  EXPECT_EQ(gpuCreated, 0);
}

TEST(DeviceRegistry, ForTargetListsWhatEachBackendFound) {
  DeviceRegistry registry;
  registry.add(fakeBackend("gpu_a", 10, "sm_90", absl::UnavailableError("no A driver")));
  // Claims the target, but its device runs another one.
  registry.add(fakeBackend("gpu_b", 20, "sm_90"));
  registry.add(fakeBackend("cpu", 1000, "host"));
  absl::StatusOr<std::unique_ptr<Device>> device = registry.createForTarget("sm_90");
  ASSERT_FALSE(device.ok());
  EXPECT_EQ(device.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(device.status().message(),
              AllOf(HasSubstr("no device here runs target 'sm_90'"), HasSubstr("gpu_a: no A driver"),
                    HasSubstr("gpu_b: host CPU"), HasSubstr("cpu: host CPU"),
                    HasSubstr("runs host")));
}

TEST(BuiltInDeviceBackends, TriesTheGpuBeforeTheCpu) {
  std::vector<std::string> names = namesOf(builtInDeviceBackends());
  auto cuda = std::find(names.begin(), names.end(), "cuda");
  auto cpu = std::find(names.begin(), names.end(), "cpu");
  ASSERT_NE(cuda, names.end());
  ASSERT_NE(cpu, names.end());
  EXPECT_LT(cuda, cpu);
  EXPECT_EQ(names.back(), "cpu");
}

TEST(BuiltInDeviceBackends, HostRunsOnTheCpu) {
  absl::StatusOr<std::unique_ptr<Device>> device = createDeviceForTarget("host");
  ASSERT_TRUE(device.ok()) << device.status();
  EXPECT_EQ((*device)->target(), "host");
  EXPECT_THAT((*device)->name(), HasSubstr("host CPU"));
}

TEST(BuiltInDeviceBackends, AnUnknownTargetSaysWhatIsHere) {
  absl::StatusOr<std::unique_ptr<Device>> device = createDeviceForTarget("gfx000");
  ASSERT_FALSE(device.ok());
  EXPECT_EQ(device.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(device.status().message(),
              AllOf(HasSubstr("no device here runs target 'gfx000'"), HasSubstr("cuda: "),
                    HasSubstr("cpu: host CPU"), HasSubstr("runs host")));
}

TEST(BuiltInDeviceBackends, BestDeviceReportsEverySkippedBackend) {
  std::string why = "stale";
  std::unique_ptr<Device> best = createBestDevice(&why);
  ASSERT_NE(best, nullptr);
  std::vector<std::string> skipped;
  absl::StatusOr<std::unique_ptr<Device>> again = builtInDeviceBackends().createBest(&skipped);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ((*again)->target(), best->target());
  EXPECT_EQ(why, absl::StrJoin(skipped, "; "));
  if (best->target() == "host") EXPECT_FALSE(why.empty());
  else EXPECT_TRUE(why.empty());
}

}  // namespace
}  // namespace tilejit
