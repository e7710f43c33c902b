// A device that loads code objects and launches kernels on them: the CPU backend or a GPU
// through its driver API (loaded with dlopen, so one build serves every machine).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "runtime/arguments.h"
#include "runtime/grid_expression.h"
#include "runtime/kernel_metadata.h"

namespace tilejit {

// A kernel loaded on a device: its metadata with the grid expressions parsed once, and the
// backend's handle (CUfunction, dlsym'd entry point).
class LoadedKernel {
 public:
  virtual ~LoadedKernel() = default;
  const KernelMetadata& metadata() const { return metadata_; }
  const std::array<GridExpression, 3>& grid() const { return grid_; }

 protected:
  LoadedKernel(KernelMetadata metadata, std::array<GridExpression, 3> grid)
      : metadata_(std::move(metadata)), grid_(std::move(grid)) {}

 private:
  KernelMetadata metadata_;
  std::array<GridExpression, 3> grid_;
};

// Opaque stream handle: CUstream on NVIDIA (nullptr = default stream); ignored on the CPU.
using Stream = void*;

class Device;

// Sees every launch of the device it is set on, once the arguments are checked: before the
// backend launches it and after (also for an empty grid, which launches nothing). For tools
// (the harness records an op's tensors around its first run): an observer may synchronise and
// copy, which launch() itself never does.
class LaunchObserver {
 public:
  virtual ~LaunchObserver() = default;
  virtual void beforeLaunch(Device& device, const LoadedKernel& kernel,
                            absl::Span<const KernelArg> args) = 0;
  virtual void afterLaunch(Device& device, const LoadedKernel& kernel,
                           absl::Span<const KernelArg> args) = 0;
};

class Device {
 public:
  virtual ~Device() = default;
  virtual std::string name() const = 0;    // "NVIDIA H200 (sm_90)", "host CPU (16 threads)"
  virtual std::string target() const = 0;  // target name: "sm_90", "host"

  virtual absl::StatusOr<std::unique_ptr<LoadedKernel>> load(const KernelMetadata& metadata,
                                                             std::string_view binary) = 0;

  // Checks the arguments against the kernel's signature, computes the grid from their shapes
  // and launches on `stream`. Never allocates, synchronises or reads device memory.
  absl::Status launch(const LoadedKernel& kernel, absl::Span<const KernelArg> args,
                      Stream stream = nullptr);

  // Not owned; nullptr (the default) for none.
  void setLaunchObserver(LaunchObserver* observer) { observer_ = observer; }

  // Memory and timing helpers for tools, tests and benchmarks (not used by launch).
  virtual absl::StatusOr<void*> allocate(size_t bytes) = 0;
  virtual absl::Status free(void* pointer) = 0;
  virtual absl::Status copyToDevice(void* dst, const void* src, size_t bytes) = 0;
  virtual absl::Status copyToHost(void* dst, const void* src, size_t bytes) = 0;
  virtual absl::Status synchronize() = 0;
  // Runs `work` `warmup` times, then `iterations` times each bracketed by device events (host
  // clock on the CPU); returns the per-iteration milliseconds.
  virtual absl::StatusOr<std::vector<double>> time(const std::function<absl::Status()>& work,
                                                   int warmup, int iterations) = 0;

 protected:
  // Backend part of a launch, after checking: `packedArgs` is the kernel-ABI argument block.
  virtual absl::Status launchPacked(const LoadedKernel& kernel, const int64_t grid[3],
                                    const void* packedArgs, size_t packedSize,
                                    Stream stream) = 0;

 private:
  // Packs the checked arguments into the kernel ABI's block and hands it to launchPacked.
  absl::Status launchChecked(const LoadedKernel& kernel, const int64_t grid[3],
                             absl::Span<const KernelArg> args, Stream stream);
  LaunchObserver* observer_ = nullptr;
};

// Factories of the CPU and CUDA backends (runtime/backends/), kept here for the callers that
// name one; a backend added later declares its own in its folder.
// The CPU backend (always available).
std::unique_ptr<Device> createCpuDevice();
// The first CUDA device through libcuda.so.1; "no NVIDIA driver" style errors when absent.
absl::StatusOr<std::unique_ptr<Device>> createCudaDevice(int ordinal = 0);
// The best device present: the first device backend by rank (runtime/device_registry.h) that
// has one, so a GPU if a driver and a GPU exist, else the CPU (never null). `whyNotGpu` gets
// why each backend before it had none ("; " between backends), or is cleared.
std::unique_ptr<Device> createBestDevice(std::string* whyNotGpu = nullptr);
// The device that runs `target` ("sm_90", "host"), or an error listing what this machine has.
absl::StatusOr<std::unique_ptr<Device>> createDeviceForTarget(std::string_view target);

}  // namespace tilejit
