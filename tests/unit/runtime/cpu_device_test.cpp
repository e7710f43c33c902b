#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "runtime/device.h"
#include "support/dynamic_library.h"

namespace tilejit {
namespace {

using ::testing::HasSubstr;

KernelMetadata cpuMetadata() {
  KernelMetadata metadata;
  metadata.templateName = "fill";
  metadata.entry = "tj_fill";
  metadata.target = "host";
  metadata.backend = "cpu";
  metadata.args = {{"out", ArgSpec::Kind::kView, DType::kF32, {{"n"}}}};
  metadata.grid = {"n", "1", "1"};
  return metadata;
}

TEST(CpuDevice, Describes) {
  std::unique_ptr<Device> device = createCpuDevice();
  EXPECT_THAT(device->name(), HasSubstr("host CPU"));
  EXPECT_EQ(device->target(), "host");
}

TEST(CpuDevice, RejectsOtherBackends) {
  std::unique_ptr<Device> device = createCpuDevice();
  KernelMetadata metadata = cpuMetadata();
  metadata.backend = "cuda";
  metadata.target = "sm_90";
  auto loaded = device->load(metadata, "");
  ASSERT_FALSE(loaded.ok());
  EXPECT_THAT(loaded.status().message(), HasSubstr("runs only 'cpu' kernels"));
}

TEST(CpuDevice, RejectsAnObjectThatIsNotALibrary) {
  std::unique_ptr<Device> device = createCpuDevice();
  auto loaded = device->load(cpuMetadata(), "definitely not an ELF file");
  ASSERT_FALSE(loaded.ok());
  EXPECT_THAT(loaded.status().message(), HasSubstr("dlopen of the kernel object failed"));
}

TEST(CpuDevice, RejectsBadGridBeforeLoading) {
  std::unique_ptr<Device> device = createCpuDevice();
  KernelMetadata metadata = cpuMetadata();
  metadata.grid[0] = "cdiv(m, 2)";
  auto loaded = device->load(metadata, "");
  ASSERT_FALSE(loaded.ok());
  EXPECT_THAT(loaded.status().message(), HasSubstr("unknown shape symbol 'm'"));
}

TEST(CpuDevice, MemoryHelpers) {
  std::unique_ptr<Device> device = createCpuDevice();
  absl::StatusOr<void*> memory = device->allocate(1000);
  ASSERT_TRUE(memory.ok());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(*memory) % 256, 0u);
  int values[4] = {1, 2, 3, 4};
  int back[4] = {};
  ASSERT_TRUE(device->copyToDevice(*memory, values, sizeof(values)).ok());
  ASSERT_TRUE(device->copyToHost(back, *memory, sizeof(back)).ok());
  EXPECT_EQ(back[3], 4);
  EXPECT_TRUE(device->free(*memory).ok());
  int calls = 0;
  auto times = device->time(
      [&] {
        ++calls;
        return absl::OkStatus();
      },
      2, 5);
  ASSERT_TRUE(times.ok());
  EXPECT_EQ(times->size(), 5u);
  EXPECT_EQ(calls, 7);
  auto failing = device->time([] { return absl::InternalError("boom"); }, 0, 1);
  EXPECT_EQ(failing.status().message(), "boom");
}

TEST(CudaDevice, ReportsAMissingDriver) {
  if (DynamicLibrary::open({"libcuda.so.1"}).ok())
    GTEST_SKIP() << "libcuda.so.1 is present; tilejit_gpu_tests covers this machine";
  absl::StatusOr<std::unique_ptr<Device>> device = createCudaDevice();
  ASSERT_FALSE(device.ok());
  EXPECT_THAT(device.status().message(),
              HasSubstr("no NVIDIA driver: dlopen(libcuda.so.1) failed: libcuda.so.1"));
  std::string why;
  std::unique_ptr<Device> best = createBestDevice(&why);
  EXPECT_EQ(best->target(), "host");
  EXPECT_THAT(why, HasSubstr("no NVIDIA driver"));
}

TEST(DynamicLibrary, ListsEveryAttempt) {
  absl::StatusOr<DynamicLibrary> library =
      DynamicLibrary::open({"libtilejit-missing-1.so", "/nonexistent/libtilejit-missing-2.so"});
  ASSERT_FALSE(library.ok());
  EXPECT_THAT(library.status().message(), HasSubstr("libtilejit-missing-1.so"));
  EXPECT_THAT(library.status().message(), HasSubstr("/nonexistent/libtilejit-missing-2.so"));
}

TEST(DynamicLibrary, ResolvesSymbols) {
  absl::StatusOr<DynamicLibrary> library = DynamicLibrary::open({"libc.so.6"});
  ASSERT_TRUE(library.ok()) << library.status();
  auto strlenFn = library->symbol<size_t (*)(const char*)>("strlen");
  ASSERT_TRUE(strlenFn.ok());
  EXPECT_EQ((*strlenFn)("four"), 4u);
  auto missing = library->symbol<void (*)()>("tilejit_no_such_symbol");
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(), HasSubstr("tilejit_no_such_symbol"));
}

}  // namespace
}  // namespace tilejit
