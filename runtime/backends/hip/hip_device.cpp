// The HIP backend: loads AMDGPU code objects with hipModuleLoadData, after checking their
// metadata against the kernel's launch contract, and launches kernels that take their
// arguments as one struct by value (templates/device/README.md, "Kernel ABI").
#include "runtime/backends/hip/hip_device.h"

#include <algorithm>
#include <cstdint>
#include <limits>

#include "absl/strings/str_cat.h"
#include "runtime/backends/hip/hip_runtime.h"
#include "runtime/backends/hip/kernel_arguments.h"
#include "runtime/backends/hip/wave_model_device.h"
#include "runtime/device_registry.h"
#include "support/status.h"

namespace tilejit {
namespace {

using namespace hip;  // NOLINT: this file is the HIP backend
using Grid = std::array<GridExpression, 3>;

class HipKernel : public LoadedKernel {
 public:
  HipKernel(KernelMetadata metadata, Grid grid, Module module, hipFunction_t function)
      : LoadedKernel(std::move(metadata), std::move(grid)),
        module_(std::move(module)),
        function_(function) {}
  hipFunction_t function() const { return function_; }

 private:
  Module module_;
  hipFunction_t function_;
};

class HipDevice : public Device {
 public:
  HipDevice(const RuntimeApi* api, int ordinal, std::string name, std::string archName,
            int maxThreads, int maxLdsBytes)
      : api_(api),
        ordinal_(ordinal),
        name_(std::move(name)),
        archName_(std::move(archName)),
        target_(archName_.substr(0, archName_.find(':'))),
        maxThreads_(maxThreads),
        maxLdsBytes_(maxLdsBytes) {}

  std::string name() const override { return absl::StrCat(name_, " (", archName_, ")"); }
  std::string target() const override { return target_; }

  absl::StatusOr<std::unique_ptr<LoadedKernel>> load(const KernelMetadata& metadata,
                                                     std::string_view binary) override {
    if (metadata.backend != "hip" || metadata.target != target_)
      return absl::InvalidArgumentError(
          absl::StrCat("kernel '", metadata.templateName, "' was compiled for ", metadata.backend,
                       " target ", metadata.target, "; this device is ", name(),
                       " and runs only hip ", target_, " kernels"));
    if (metadata.threadsPerProgram < 1 || metadata.threadsPerProgram > maxThreads_)
      return absl::InvalidArgumentError(
          absl::StrCat("kernel '", metadata.templateName, "' wants ", metadata.threadsPerProgram,
                       " threads per program; ", name(), " allows 1..", maxThreads_));
    if (metadata.clusterPrograms != 1)
      return absl::InvalidArgumentError(absl::StrCat(
          "kernel '", metadata.templateName, "' runs in thread-block clusters (cluster_size ",
          metadata.clusterPrograms, "); AMD GPUs have none"));
    TJ_ASSIGN_OR_RETURN(Grid grid, parseGrid(metadata));
    TJ_ASSIGN_OR_RETURN(AmdKernelDescriptor descriptor,
                        checkHipCodeObject(metadata, binary, archName_));
    const int64_t ldsBytes = descriptor.groupSegmentFixedSize + metadata.dynamicSharedBytes;
    if (ldsBytes > maxLdsBytes_)
      return absl::InvalidArgumentError(absl::StrCat(
          "kernel '", metadata.templateName, "' needs ", ldsBytes, " bytes of LDS (",
          metadata.dynamicSharedBytes, " dynamic); ", name(), " allows at most ", maxLdsBytes_));
    TJ_RETURN_IF_ERROR(TJ_HIP_CHECK(*api_, hipSetDevice, ordinal_));
    // hipModuleLoadData reads a pointer with no size: hand it an owned, aligned copy.
    std::string image(binary);
    hipModule_t loaded = nullptr;
    TJ_RETURN_IF_ERROR(TJ_HIP_CHECK(*api_, hipModuleLoadData, &loaded, image.data()));
    Module module(loaded);
    hipFunction_t function = nullptr;
    TJ_RETURN_IF_ERROR(
        TJ_HIP_CHECK(*api_, hipModuleGetFunction, &function, module.get(), metadata.entry.c_str()));
    return std::unique_ptr<LoadedKernel>(
        std::make_unique<HipKernel>(metadata, std::move(grid), std::move(module), function));
  }

  absl::StatusOr<void*> allocate(size_t bytes) override {
    TJ_RETURN_IF_ERROR(TJ_HIP_CHECK(*api_, hipSetDevice, ordinal_));
    void* pointer = nullptr;
    TJ_RETURN_IF_ERROR(TJ_HIP_CHECK(*api_, hipMalloc, &pointer, std::max<size_t>(bytes, 1)));
    return pointer;
  }
  absl::Status free(void* pointer) override {
    if (!pointer) return absl::OkStatus();
    TJ_RETURN_IF_ERROR(TJ_HIP_CHECK(*api_, hipSetDevice, ordinal_));
    return TJ_HIP_CHECK(*api_, hipFree, pointer);
  }
  absl::Status copyToDevice(void* dst, const void* src, size_t bytes) override {
    return copy(dst, src, bytes, hipMemcpyHostToDevice);
  }
  absl::Status copyToHost(void* dst, const void* src, size_t bytes) override {
    return copy(dst, src, bytes, hipMemcpyDeviceToHost);
  }
  absl::Status synchronize() override {
    TJ_RETURN_IF_ERROR(TJ_HIP_CHECK(*api_, hipSetDevice, ordinal_));
    return TJ_HIP_CHECK(*api_, hipDeviceSynchronize);
  }

  absl::StatusOr<std::vector<double>> time(const std::function<absl::Status()>& work, int warmup,
                                           int iterations) override {
    TJ_RETURN_IF_ERROR(TJ_HIP_CHECK(*api_, hipSetDevice, ordinal_));
    for (int i = 0; i < warmup; ++i) TJ_RETURN_IF_ERROR(work());
    TJ_ASSIGN_OR_RETURN(Event start, createEvent());
    TJ_ASSIGN_OR_RETURN(Event end, createEvent());
    std::vector<double> milliseconds;
    for (int i = 0; i < iterations; ++i) {
      TJ_RETURN_IF_ERROR(TJ_HIP_CHECK(*api_, hipEventRecord, start.get(), nullptr));
      TJ_RETURN_IF_ERROR(work());
      TJ_RETURN_IF_ERROR(TJ_HIP_CHECK(*api_, hipEventRecord, end.get(), nullptr));
      TJ_RETURN_IF_ERROR(TJ_HIP_CHECK(*api_, hipEventSynchronize, end.get()));
      float elapsed = 0;
      TJ_RETURN_IF_ERROR(
          TJ_HIP_CHECK(*api_, hipEventElapsedTime, &elapsed, start.get(), end.get()));
      milliseconds.push_back(elapsed);
    }
    return milliseconds;
  }

 protected:
  absl::Status launchPacked(const LoadedKernel& kernel, const int64_t grid[3],
                            const void* packedArgs, size_t packedSize, Stream stream) override {
    const KernelMetadata& metadata = kernel.metadata();
    // The dispatch packet counts work-items, not blocks, in 32 bits per axis.
    static constexpr const char* kAxes[] = {"x", "y", "z"};
    for (int axis = 0; axis < 3; ++axis) {
      const int64_t workItems = grid[axis] * (axis == 0 ? metadata.threadsPerProgram : 1);
      if (workItems > std::numeric_limits<uint32_t>::max())
        return absl::InvalidArgumentError(absl::StrCat(
            "grid ", kAxes[axis], " '", kernel.grid()[axis].text(), "' is ", grid[axis],
            " for these shapes: ", workItems, " work-items, more than the 2^32-1 AMD GPUs allow"));
    }
    TJ_RETURN_IF_ERROR(TJ_HIP_CHECK(*api_, hipSetDevice, ordinal_));
    // The kernel's one parameter is the argument struct; the runtime copies `packedSize` bytes
    // from this pointer when the launch is enqueued (or captured), so a stack buffer is fine.
    size_t size = packedSize;
    void* extra[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, const_cast<void*>(packedArgs),
                     HIP_LAUNCH_PARAM_BUFFER_SIZE, &size, HIP_LAUNCH_PARAM_END};
    return TJ_HIP_CHECK(
        *api_, hipModuleLaunchKernel, static_cast<const HipKernel&>(kernel).function(),
        static_cast<unsigned>(grid[0]), static_cast<unsigned>(grid[1]),
        static_cast<unsigned>(grid[2]), static_cast<unsigned>(metadata.threadsPerProgram), 1u, 1u,
        static_cast<unsigned>(metadata.dynamicSharedBytes), static_cast<hipStream_t>(stream),
        nullptr, extra);
  }

 private:
  absl::Status copy(void* dst, const void* src, size_t bytes, int kind) {
    if (!bytes) return absl::OkStatus();
    TJ_RETURN_IF_ERROR(TJ_HIP_CHECK(*api_, hipSetDevice, ordinal_));
    return TJ_HIP_CHECK(*api_, hipMemcpy, dst, src, bytes, kind);
  }
  absl::StatusOr<Event> createEvent() {
    hipEvent_t event = nullptr;
    TJ_RETURN_IF_ERROR(TJ_HIP_CHECK(*api_, hipEventCreate, &event));
    return Event(event);
  }

  const RuntimeApi* api_;
  int ordinal_;
  std::string name_;
  std::string archName_;  // gcnArchName: "gfx942:sramecc+:xnack-"
  std::string target_;    // "gfx942"
  int64_t maxThreads_;
  int64_t maxLdsBytes_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Device>> createHipDevice(int ordinal) {
  TJ_ASSIGN_OR_RETURN(const RuntimeApi* api, runtime());
  int count = 0;
  if (hipError_t result = api->hipGetDeviceCount(&count); result != hipSuccess || count == 0)
    return absl::UnavailableError(absl::StrCat("no AMD GPU: hipGetDeviceCount returned ", result,
                                               " (", api->hipGetErrorName(result), "), ", count,
                                               " devices"));
  if (ordinal < 0 || ordinal >= count)
    return absl::InvalidArgumentError(absl::StrCat(
        "AMD GPU ", ordinal, " does not exist; this machine has ", count, " (0..", count - 1, ")"));
  TJ_RETURN_IF_ERROR(TJ_HIP_CHECK(*api, hipSetDevice, ordinal));
  char name[256] = {};
  TJ_RETURN_IF_ERROR(TJ_HIP_CHECK(*api, hipDeviceGetName, name, sizeof(name) - 1, ordinal));
  TJ_ASSIGN_OR_RETURN(std::string archName, deviceArchitecture(*api, ordinal));
  int maxThreads = 0, maxLdsBytes = 0;
  TJ_RETURN_IF_ERROR(TJ_HIP_CHECK(*api, hipDeviceGetAttribute, &maxThreads,
                                  hipDeviceAttributeMaxThreadsPerBlock, ordinal));
  TJ_RETURN_IF_ERROR(TJ_HIP_CHECK(*api, hipDeviceGetAttribute, &maxLdsBytes,
                                  hipDeviceAttributeMaxSharedMemoryPerBlock, ordinal));
  return std::unique_ptr<Device>(std::make_unique<HipDevice>(
      api, ordinal, name, std::move(archName), maxThreads, maxLdsBytes));
}

DeviceBackend hipDeviceBackend() {
  DeviceBackend backend{"hip", 200, [](std::string_view target) { return target.substr(0, 3) == "gfx"; },
                        [] { return createHipDevice(0); }};
  // A named AMD target: the wave model when it is selected (the compiler then makes host
  // objects for it), else the GPU, whose absence says how to run the model instead.
  backend.createFor = [](std::string_view target) -> absl::StatusOr<std::unique_ptr<Device>> {
    if (waveModelSelected()) return createWaveModelDevice(std::string(target));
    absl::StatusOr<std::unique_ptr<Device>> gpu = createHipDevice(0);
    if (gpu.ok()) return gpu;
    return absl::Status(gpu.status().code(),
                        absl::StrCat(gpu.status().message(), "; to run ", std::string(target),
                                     " on the CPU wave model instead, set ",
                                     kAmdToolchainVariable, "=", kWaveModelRoute));
  };
  return backend;
}

}  // namespace tilejit
