// The HIP runtime API, loaded with dlopen (libamdhip64.so.7, .6, .5, then the unversioned
// name) so that the runtime builds and runs without ROCm; hip_runtime_api.h is not needed to
// build. Only calls whose signatures and constants are the same in ROCm 5, 6 and 7 are used;
// the device properties struct, whose layout changed in ROCm 6, is read for one field only
// (gcnArchName, see deviceArchitecture()).
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/device.h"
#include "support/dynamic_library.h"

namespace tilejit::hip {

using hipError_t = int;
using hipModule_t = struct ihipModule_t*;
using hipFunction_t = struct ihipModuleSymbol_t*;
using hipStream_t = struct ihipStream_t*;
using hipEvent_t = struct ihipEvent_t*;
using hipGraph_t = struct ihipGraph*;
using hipGraphExec_t = struct hipGraphExec*;

// Values from hip_runtime_api.h / driver_types.h (ROCm 5.2, unchanged in 6.x and 7.x).
inline constexpr hipError_t hipSuccess = 0;
inline constexpr int hipMemcpyHostToDevice = 1;
inline constexpr int hipMemcpyDeviceToHost = 2;
inline constexpr unsigned hipStreamNonBlocking = 1;
inline constexpr int hipStreamCaptureModeThreadLocal = 1;
// hipModuleLaunchKernel's `extra` array (HIP_LAUNCH_PARAM_*: END is 3 in HIP, 0 in CUDA).
inline void* const HIP_LAUNCH_PARAM_BUFFER_POINTER = reinterpret_cast<void*>(1);
inline void* const HIP_LAUNCH_PARAM_BUFFER_SIZE = reinterpret_cast<void*>(2);
inline void* const HIP_LAUNCH_PARAM_END = reinterpret_cast<void*>(3);
// hipDeviceAttribute_t values of ROCm 5.2's header (not checked against ROCm 6/7 here).
inline constexpr int hipDeviceAttributeMaxThreadsPerBlock = 56;
inline constexpr int hipDeviceAttributeMaxSharedMemoryPerBlock = 74;

// The device properties entry points, newest layout first, and where each layout keeps
// gcnArchName: hipDeviceProp_tR0600 (ROCm 6.0+, frozen by the versioned name) at byte 1160,
// the ROCm 5 layout (R0000; the unversioned name before ROCm 6) at byte 396. LLVM's
// amdgpu-arch reads the name the same way. hipDeviceGetAttribute has no architecture name,
// and hsa_agent_get_info would need HSA and a map from HSA agents to HIP ordinals.
struct PropertiesLayout {
  const char* entryPoint;
  size_t archOffset;
};
inline constexpr PropertiesLayout kPropertiesLayouts[] = {{"hipGetDevicePropertiesR0600", 1160},
                                                          {"hipGetDevicePropertiesR0000", 396},
                                                          {"hipGetDeviceProperties", 396}};

// Entry points, resolved once per process.
struct RuntimeApi {
  hipError_t (*hipInit)(unsigned flags);
  hipError_t (*hipRuntimeGetVersion)(int* version);
  const char* (*hipGetErrorName)(hipError_t error);
  const char* (*hipGetErrorString)(hipError_t error);
  hipError_t (*hipGetDeviceCount)(int* count);
  hipError_t (*hipSetDevice)(int ordinal);
  hipError_t (*hipDeviceGetAttribute)(int* value, int attribute, int ordinal);
  hipError_t (*hipDeviceGetName)(char* name, int length, int ordinal);
  // The first of hipGetDevicePropertiesR0600 (ROCm 6+), hipGetDevicePropertiesR0000,
  // hipGetDeviceProperties (ROCm 5) that the library exports; `propertiesArchOffset` is where
  // that layout keeps gcnArchName.
  hipError_t (*hipGetDeviceProperties)(void* properties, int ordinal);
  size_t propertiesArchOffset;
  const char* propertiesEntryPoint;
  hipError_t (*hipDeviceSynchronize)();
  hipError_t (*hipModuleLoadData)(hipModule_t* module, const void* image);
  hipError_t (*hipModuleUnload)(hipModule_t module);
  hipError_t (*hipModuleGetFunction)(hipFunction_t* function, hipModule_t module, const char* name);
  hipError_t (*hipModuleLaunchKernel)(hipFunction_t function, unsigned gridX, unsigned gridY,
                                      unsigned gridZ, unsigned blockX, unsigned blockY,
                                      unsigned blockZ, unsigned sharedBytes, hipStream_t stream,
                                      void** params, void** extra);
  hipError_t (*hipMalloc)(void** pointer, size_t bytes);
  hipError_t (*hipFree)(void* pointer);
  hipError_t (*hipMemcpy)(void* dst, const void* src, size_t bytes, int kind);
  hipError_t (*hipEventCreate)(hipEvent_t* event);
  hipError_t (*hipEventRecord)(hipEvent_t event, hipStream_t stream);
  hipError_t (*hipEventSynchronize)(hipEvent_t event);
  hipError_t (*hipEventElapsedTime)(float* milliseconds, hipEvent_t start, hipEvent_t end);
  hipError_t (*hipEventDestroy)(hipEvent_t event);
  hipError_t (*hipStreamCreateWithFlags)(hipStream_t* stream, unsigned flags);
  hipError_t (*hipStreamDestroy)(hipStream_t stream);
  hipError_t (*hipStreamSynchronize)(hipStream_t stream);
  hipError_t (*hipStreamBeginCapture)(hipStream_t stream, int mode);
  hipError_t (*hipStreamEndCapture)(hipStream_t stream, hipGraph_t* graph);
  hipError_t (*hipGraphInstantiateWithFlags)(hipGraphExec_t* exec, hipGraph_t graph,
                                             unsigned long long flags);  // NOLINT
  hipError_t (*hipGraphLaunch)(hipGraphExec_t exec, hipStream_t stream);
  hipError_t (*hipGraphExecDestroy)(hipGraphExec_t exec);
  hipError_t (*hipGraphDestroy)(hipGraph_t graph);
};

// A loaded HIP runtime on which hipInit succeeded.
struct LoadedRuntime {
  DynamicLibrary library;
  RuntimeApi api{};
};

// The sonames runtime() tries, newest ROCm first.
const std::vector<std::string>& defaultRuntimeLibraries();

// Opens the first of `candidates` that loads and resolves the entry points (no hipInit).
absl::StatusOr<std::unique_ptr<LoadedRuntime>> openRuntime(
    const std::vector<std::string>& candidates);

// openRuntime, then hipInit.
// Errors: "no AMD driver: dlopen(...) failed: ..." when none opens, "no AMD GPU: hipInit
// returned 101 (hipErrorInvalidDevice)" when the runtime finds no GPU.
absl::StatusOr<std::unique_ptr<LoadedRuntime>> loadRuntime(
    const std::vector<std::string>& candidates);

// The process's runtime from defaultRuntimeLibraries(), loaded once; later calls return the
// same table (or error).
absl::StatusOr<const RuntimeApi*> runtime();

// OK, or "hipXxx failed: hipErrorName (message)".
absl::Status check(const RuntimeApi& api, hipError_t result, const char* call);
#define TJ_HIP_CHECK(api, call, ...) ::tilejit::hip::check((api), (api).call(__VA_ARGS__), #call)

// The device's gcnArchName: the architecture and its feature settings
// ("gfx942:sramecc+:xnack-").
absl::StatusOr<std::string> deviceArchitecture(const RuntimeApi& api, int ordinal);

// Owns one HIP handle, released with `Release` of the process's runtime table.
template <typename Handle, hipError_t (*RuntimeApi::*Release)(Handle)>
class Owned {
 public:
  Owned() = default;
  explicit Owned(Handle handle) : handle_(handle) {}
  Owned(Owned&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  Owned& operator=(Owned&& other) noexcept {
    if (this != &other) {
      reset();
      handle_ = std::exchange(other.handle_, nullptr);
    }
    return *this;
  }
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;
  ~Owned() { reset(); }
  Handle get() const { return handle_; }

 private:
  void reset() {
    if (handle_) ((**runtime()).*Release)(std::exchange(handle_, nullptr));
  }
  Handle handle_ = nullptr;
};

using Module = Owned<hipModule_t, &RuntimeApi::hipModuleUnload>;
using Event = Owned<hipEvent_t, &RuntimeApi::hipEventDestroy>;

// An instantiated graph captured from a stream; replays the captured launches.
class HipGraph {
 public:
  absl::Status launch(Stream stream);

 private:
  friend class HipStream;
  HipGraph(hipGraph_t graph, hipGraphExec_t exec) : graph_(graph), exec_(exec) {}
  Owned<hipGraph_t, &RuntimeApi::hipGraphDestroy> graph_;
  Owned<hipGraphExec_t, &RuntimeApi::hipGraphExecDestroy> exec_;
};

// A non-blocking stream on one device, for tests and benchmarks that launch on a stream of
// their own and capture launches into graphs.
class HipStream {
 public:
  static absl::StatusOr<HipStream> create(int ordinal = 0);
  Stream handle() const { return stream_.get(); }  // for Device::launch
  absl::Status synchronize();
  // Launches between beginCapture() and endCapture() on this thread are recorded, not run.
  absl::Status beginCapture();
  absl::StatusOr<HipGraph> endCapture();

 private:
  HipStream(int ordinal, hipStream_t stream) : ordinal_(ordinal), stream_(stream) {}
  int ordinal_;
  Owned<hipStream_t, &RuntimeApi::hipStreamDestroy> stream_;
};

}  // namespace tilejit::hip
