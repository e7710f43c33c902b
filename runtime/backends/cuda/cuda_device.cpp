// The CUDA backend: loads CUBINs with the driver API and launches kernels that take their
// arguments as one struct by value (templates/device/README.md, "Kernel ABI").
#include <cstdlib>
#include <limits>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "runtime/backends/cuda/cuda_driver.h"
#include "runtime/device.h"
#include "runtime/device_registry.h"
#include "support/status.h"

namespace tilejit {
namespace {

using namespace cuda;  // NOLINT: this file is the CUDA backend
using Grid = std::array<GridExpression, 3>;

// TILEJIT_EARLY_LAUNCH=0 turns programmatic dependent launch off (to measure it, or to rule
// it out); read once per device.
bool earlyLaunchWanted() {
  const char* value = std::getenv("TILEJIT_EARLY_LAUNCH");
  return value == nullptr || std::string_view(value) != "0";
}

// Programs may use this much shared memory (static + dynamic) without opting in.
inline constexpr int64_t kDefaultDynamicSharedLimit = 48 * 1024;

class CudaKernel : public LoadedKernel {
 public:
  CudaKernel(KernelMetadata metadata, Grid grid, Module module, CUfunction function)
      : LoadedKernel(std::move(metadata), std::move(grid)),
        module_(std::move(module)),
        function_(function) {}
  CUfunction function() const { return function_; }

 private:
  Module module_;
  CUfunction function_;
};

class CudaDevice : public Device {
 public:
  CudaDevice(const DriverApi* api, PrimaryContext context, std::string name, int major, int minor,
             int maxGrid[3], int maxSharedOptin)
      : api_(api),
        context_(std::move(context)),
        name_(std::move(name)),
        major_(major),
        minor_(minor),
        maxGrid_{maxGrid[0], maxGrid[1], maxGrid[2]},
        maxSharedOptin_(maxSharedOptin),
        earlyLaunch_(major >= 9 && api->cuLaunchKernelEx && earlyLaunchWanted()) {}

  std::string name() const override { return absl::StrCat(name_, " (", target(), ")"); }
  std::string target() const override { return absl::StrCat("sm_", major_ * 10 + minor_); }

  absl::StatusOr<std::unique_ptr<LoadedKernel>> load(const KernelMetadata& metadata,
                                                     std::string_view binary) override {
    if (metadata.backend != "cuda" || metadata.target != target())
      return absl::InvalidArgumentError(
          absl::StrCat("kernel '", metadata.templateName, "' was compiled for ", metadata.backend,
                       " target ", metadata.target, "; this device is ", name(),
                       " and runs only cuda ", target(), " kernels"));
    if (metadata.threadsPerProgram < 1 || metadata.threadsPerProgram > 1024)
      return absl::InvalidArgumentError(absl::StrCat("kernel '", metadata.templateName, "' wants ",
                                                     metadata.threadsPerProgram,
                                                     " threads per program; CUDA allows 1..1024"));
    TJ_ASSIGN_OR_RETURN(Grid grid, parseGrid(metadata));
    const int64_t clusterPrograms = metadata.clusterPrograms;
    if (clusterPrograms < 1)
      return absl::InvalidArgumentError(absl::StrCat("kernel '", metadata.templateName,
                                                     "' has cluster_size '", clusterPrograms, "'"));
    if (clusterPrograms > 1 && major_ < 9)
      return absl::InvalidArgumentError(absl::StrCat(
          "kernel '", metadata.templateName, "' runs in thread-block clusters (cluster_size ",
          clusterPrograms, "); ", name(), " has none (sm_90 and later do)"));
    TJ_RETURN_IF_ERROR(context_.makeCurrent());
    // cuModuleLoadData reads a pointer with no size: hand it an owned, aligned copy.
    std::string image(binary);
    TJ_ASSIGN_OR_RETURN(Module module, Module::load(image.data()));
    TJ_ASSIGN_OR_RETURN(CUfunction function, module.function(metadata.entry));
    // The loaded function's own figures, not the metadata's: those come from ptxas's log,
    // which nvrtc does not print when its compile cache serves the binary (static shared
    // memory then read 0, the opt-in below was skipped, and the launch failed with
    // CUDA_ERROR_INVALID_VALUE).
    int staticBytes = 0, maxThreads = 0;
    TJ_RETURN_IF_ERROR(TJ_CU_CHECK(*api_, cuFuncGetAttribute, &staticBytes,
                                   CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, function));
    TJ_RETURN_IF_ERROR(TJ_CU_CHECK(*api_, cuFuncGetAttribute, &maxThreads,
                                   CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, function));
    if (metadata.threadsPerProgram > maxThreads)
      return absl::InvalidArgumentError(absl::StrCat(
          "kernel '", metadata.templateName, "' runs ", metadata.threadsPerProgram,
          " threads per program; its binary allows at most ", maxThreads, " on ", name()));
    const int64_t sharedBytes = metadata.dynamicSharedBytes + staticBytes;
    if (sharedBytes > maxSharedOptin_)
      return absl::InvalidArgumentError(absl::StrCat(
          "kernel '", metadata.templateName, "' needs ", sharedBytes, " bytes of shared memory (",
          metadata.dynamicSharedBytes, " dynamic); ", name(), " allows at most ", maxSharedOptin_));
    // Past 48 KB in all (static + dynamic), a kernel must opt in to its dynamic share.
    if (sharedBytes > kDefaultDynamicSharedLimit)
      TJ_RETURN_IF_ERROR(TJ_CU_CHECK(*api_, cuFuncSetAttribute, function,
                                     CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                     static_cast<int>(metadata.dynamicSharedBytes)));
    return std::unique_ptr<LoadedKernel>(
        std::make_unique<CudaKernel>(metadata, std::move(grid), std::move(module), function));
  }

  absl::StatusOr<void*> allocate(size_t bytes) override {
    TJ_RETURN_IF_ERROR(context_.makeCurrent());
    CUdeviceptr pointer = 0;
    TJ_RETURN_IF_ERROR(TJ_CU_CHECK(*api_, cuMemAlloc, &pointer, std::max<size_t>(bytes, 1)));
    return reinterpret_cast<void*>(pointer);
  }
  absl::Status free(void* pointer) override {
    if (!pointer) return absl::OkStatus();
    TJ_RETURN_IF_ERROR(context_.makeCurrent());
    return TJ_CU_CHECK(*api_, cuMemFree, reinterpret_cast<CUdeviceptr>(pointer));
  }
  absl::Status copyToDevice(void* dst, const void* src, size_t bytes) override {
    if (!bytes) return absl::OkStatus();
    TJ_RETURN_IF_ERROR(context_.makeCurrent());
    return TJ_CU_CHECK(*api_, cuMemcpyHtoD, reinterpret_cast<CUdeviceptr>(dst), src, bytes);
  }
  absl::Status copyToHost(void* dst, const void* src, size_t bytes) override {
    if (!bytes) return absl::OkStatus();
    TJ_RETURN_IF_ERROR(context_.makeCurrent());
    return TJ_CU_CHECK(*api_, cuMemcpyDtoH, dst, reinterpret_cast<CUdeviceptr>(src), bytes);
  }
  absl::Status synchronize() override {
    TJ_RETURN_IF_ERROR(context_.makeCurrent());
    return TJ_CU_CHECK(*api_, cuCtxSynchronize);
  }

  absl::StatusOr<std::vector<double>> time(const std::function<absl::Status()>& work, int warmup,
                                           int iterations) override {
    TJ_RETURN_IF_ERROR(context_.makeCurrent());
    for (int i = 0; i < warmup; ++i) TJ_RETURN_IF_ERROR(work());
    TJ_ASSIGN_OR_RETURN(Event start, Event::create());
    TJ_ASSIGN_OR_RETURN(Event end, Event::create());
    std::vector<double> milliseconds;
    for (int i = 0; i < iterations; ++i) {
      TJ_RETURN_IF_ERROR(start.record(nullptr));
      TJ_RETURN_IF_ERROR(work());
      TJ_RETURN_IF_ERROR(end.record(nullptr));
      TJ_RETURN_IF_ERROR(end.synchronize());
      TJ_ASSIGN_OR_RETURN(double elapsed, end.elapsedSince(start));
      milliseconds.push_back(elapsed);
    }
    return milliseconds;
  }

 protected:
  absl::Status launchPacked(const LoadedKernel& kernel, const int64_t grid[3],
                            const void* packedArgs, size_t packedSize, Stream stream) override {
    const auto& cudaKernel = static_cast<const CudaKernel&>(kernel);
    static constexpr const char* kAxes[] = {"x", "y", "z"};
    for (int axis = 0; axis < 3; ++axis)
      if (grid[axis] > maxGrid_[axis])
        return absl::InvalidArgumentError(absl::StrCat(
            "grid ", kAxes[axis], " '", kernel.grid()[axis].text(), "' is ", grid[axis],
            " for these shapes; ", name(), " allows at most ", maxGrid_[axis]));
    const int64_t clusterPrograms = kernel.metadata().clusterPrograms;
    if (grid[2] % clusterPrograms != 0)
      return absl::InvalidArgumentError(absl::StrCat(
          "grid z '", kernel.grid()[2].text(), "' is ", grid[2], " for these shapes; kernel '",
          kernel.metadata().templateName, "' runs in clusters of ", clusterPrograms,
          " programs along z, so it must be a multiple of that"));
    TJ_RETURN_IF_ERROR(context_.makeCurrent());
    // The kernel's one parameter is the argument struct; the driver copies `packedSize` bytes
    // from this pointer when the launch is enqueued (or captured), so a stack buffer is fine.
    size_t size = packedSize;
    void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, const_cast<void*>(packedArgs),
                     CU_LAUNCH_PARAM_BUFFER_SIZE, &size, CU_LAUNCH_PARAM_END};
    const KernelMetadata& metadata = kernel.metadata();
    // A kernel that waits for its predecessor's writes itself may be launched before that
    // predecessor ends: its launch overlaps the predecessor's last programs (sm_90+).
    if (metadata.waitsForPreviousKernel && earlyLaunch_) {
      CUlaunchAttribute early{};
      early.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
      early.value.programmaticStreamSerializationAllowed = 1;
      CUlaunchConfig config{static_cast<unsigned>(grid[0]),
                            static_cast<unsigned>(grid[1]),
                            static_cast<unsigned>(grid[2]),
                            static_cast<unsigned>(metadata.threadsPerProgram),
                            1u,
                            1u,
                            static_cast<unsigned>(metadata.dynamicSharedBytes),
                            static_cast<CUstream>(stream),
                            &early,
                            1u};
      return TJ_CU_CHECK(*api_, cuLaunchKernelEx, &config, cudaKernel.function(), nullptr, extra);
    }
    return TJ_CU_CHECK(*api_, cuLaunchKernel, cudaKernel.function(), static_cast<unsigned>(grid[0]),
                       static_cast<unsigned>(grid[1]), static_cast<unsigned>(grid[2]),
                       static_cast<unsigned>(metadata.threadsPerProgram), 1u, 1u,
                       static_cast<unsigned>(metadata.dynamicSharedBytes),
                       static_cast<CUstream>(stream), nullptr, extra);
  }

 private:
  const DriverApi* api_;
  PrimaryContext context_;
  std::string name_;
  int major_;
  int minor_;
  int64_t maxGrid_[3];
  int64_t maxSharedOptin_;
  bool earlyLaunch_;  // programmatic dependent launch for kernels that wait for their predecessor
};

}  // namespace

absl::StatusOr<std::unique_ptr<Device>> createCudaDevice(int ordinal) {
  TJ_ASSIGN_OR_RETURN(const DriverApi* api, driver());
  TJ_ASSIGN_OR_RETURN(PrimaryContext context, PrimaryContext::retain(ordinal));
  CUdevice device = context.device();
  char name[256] = {};
  TJ_RETURN_IF_ERROR(TJ_CU_CHECK(*api, cuDeviceGetName, name, sizeof(name) - 1, device));
  auto attribute = [&](int which) -> absl::StatusOr<int> {
    int value = 0;
    TJ_RETURN_IF_ERROR(TJ_CU_CHECK(*api, cuDeviceGetAttribute, &value, which, device));
    return value;
  };
  TJ_ASSIGN_OR_RETURN(int major, attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR));
  TJ_ASSIGN_OR_RETURN(int minor, attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR));
  int maxGrid[3];
  TJ_ASSIGN_OR_RETURN(maxGrid[0], attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X));
  TJ_ASSIGN_OR_RETURN(maxGrid[1], attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y));
  TJ_ASSIGN_OR_RETURN(maxGrid[2], attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z));
  TJ_ASSIGN_OR_RETURN(int sharedOptin,
                      attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN));
  return std::unique_ptr<Device>(std::make_unique<CudaDevice>(api, std::move(context), name, major,
                                                              minor, maxGrid, sharedOptin));
}

DeviceBackend cudaDeviceBackend() {
  return {"cuda", 100, [](std::string_view target) { return target.substr(0, 3) == "sm_"; },
          [] { return createCudaDevice(0); }};
}

}  // namespace tilejit
