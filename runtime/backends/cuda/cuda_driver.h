// The CUDA driver API, loaded with dlopen("libcuda.so.1") so that the runtime builds and runs
// on machines without a driver (DESIGN principle 6). The few CUDA types are declared here;
// cuda.h is not needed to build.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "runtime/device.h"

namespace tilejit::cuda {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;  // NOLINT: the driver's own definition
using CUcontext = struct CUctx_st*;
using CUmodule = struct CUmod_st*;
using CUfunction = struct CUfunc_st*;
using CUstream = struct CUstream_st*;
using CUevent = struct CUevent_st*;
using CUgraph = struct CUgraph_st*;
using CUgraphExec = struct CUgraphExec_st*;

// Values from cuda.h (stable across driver versions).
inline constexpr CUresult CUDA_SUCCESS = 0;
inline constexpr int CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X = 5;
inline constexpr int CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y = 6;
inline constexpr int CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z = 7;
inline constexpr int CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;
inline constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
inline constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
inline constexpr int CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97;
inline constexpr int CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0;
inline constexpr int CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1;
inline constexpr int CU_FUNC_ATTRIBUTE_NUM_REGS = 4;
inline constexpr int CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;
inline constexpr int CU_STREAM_NON_BLOCKING = 1;
inline constexpr int CU_STREAM_CAPTURE_MODE_THREAD_LOCAL = 1;
inline constexpr unsigned CU_EVENT_DEFAULT = 0;
inline constexpr int CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION = 6;
// cuLaunchKernel's `extra` array: a packed argument buffer, its size, the end (cuda.h's
// CU_LAUNCH_PARAM_* values).
inline void* const CU_LAUNCH_PARAM_END = reinterpret_cast<void*>(0);
inline void* const CU_LAUNCH_PARAM_BUFFER_POINTER = reinterpret_cast<void*>(1);
inline void* const CU_LAUNCH_PARAM_BUFFER_SIZE = reinterpret_cast<void*>(2);

// cuLaunchKernelEx's configuration, laid out as cuda.h declares it (CUDA 11.8+).
struct CUlaunchAttribute {
  int id;
  char pad[4];
  union {
    char bytes[64];
    void* align;  // the union holds pointers in cuda.h
    int programmaticStreamSerializationAllowed;
  } value;
};
static_assert(sizeof(CUlaunchAttribute) == 72, "cuda.h's CUlaunchAttribute is 72 bytes");
struct CUlaunchConfig {
  unsigned gridDimX, gridDimY, gridDimZ;
  unsigned blockDimX, blockDimY, blockDimZ;
  unsigned sharedMemBytes;
  CUstream hStream;
  CUlaunchAttribute* attrs;
  unsigned numAttrs;
};

// Entry points, resolved once per process.
struct DriverApi {
  CUresult (*cuInit)(unsigned flags);
  CUresult (*cuDriverGetVersion)(int* version);
  CUresult (*cuGetErrorName)(CUresult error, const char** name);
  CUresult (*cuGetErrorString)(CUresult error, const char** text);
  CUresult (*cuDeviceGetCount)(int* count);
  CUresult (*cuDeviceGet)(CUdevice* device, int ordinal);
  CUresult (*cuDeviceGetAttribute)(int* value, int attribute, CUdevice device);
  CUresult (*cuDeviceGetName)(char* name, int length, CUdevice device);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext* context, CUdevice device);
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice device);
  CUresult (*cuCtxGetCurrent)(CUcontext* context);
  CUresult (*cuCtxSetCurrent)(CUcontext context);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuModuleLoadData)(CUmodule* module, const void* image);
  CUresult (*cuModuleUnload)(CUmodule module);
  CUresult (*cuModuleGetFunction)(CUfunction* function, CUmodule module, const char* name);
  CUresult (*cuFuncGetAttribute)(int* value, int attribute, CUfunction function);
  CUresult (*cuFuncSetAttribute)(CUfunction function, int attribute, int value);
  CUresult (*cuLaunchKernel)(CUfunction function, unsigned gridX, unsigned gridY, unsigned gridZ,
                             unsigned blockX, unsigned blockY, unsigned blockZ,
                             unsigned sharedBytes, CUstream stream, void** params, void** extra);
  // Null on drivers older than CUDA 11.8: launches then ignore launch attributes.
  CUresult (*cuLaunchKernelEx)(const CUlaunchConfig* config, CUfunction function, void** params,
                               void** extra);
  CUresult (*cuMemAlloc)(CUdeviceptr* pointer, size_t bytes);
  CUresult (*cuMemFree)(CUdeviceptr pointer);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr dst, const void* src, size_t bytes);
  CUresult (*cuMemcpyDtoH)(void* dst, CUdeviceptr src, size_t bytes);
  CUresult (*cuMemsetD8)(CUdeviceptr dst, unsigned char value, size_t count);
  CUresult (*cuEventCreate)(CUevent* event, unsigned flags);
  CUresult (*cuEventRecord)(CUevent event, CUstream stream);
  CUresult (*cuEventSynchronize)(CUevent event);
  CUresult (*cuEventElapsedTime)(float* milliseconds, CUevent start, CUevent end);
  CUresult (*cuEventDestroy)(CUevent event);
  CUresult (*cuStreamCreate)(CUstream* stream, unsigned flags);
  CUresult (*cuStreamDestroy)(CUstream stream);
  CUresult (*cuStreamSynchronize)(CUstream stream);
  CUresult (*cuStreamBeginCapture)(CUstream stream, int mode);
  CUresult (*cuStreamEndCapture)(CUstream stream, CUgraph* graph);
  CUresult (*cuGraphInstantiateWithFlags)(CUgraphExec* exec, CUgraph graph,
                                          unsigned long long flags);  // NOLINT
  CUresult (*cuGraphLaunch)(CUgraphExec exec, CUstream stream);
  CUresult (*cuGraphExecDestroy)(CUgraphExec exec);
  CUresult (*cuGraphDestroy)(CUgraph graph);
};

// Loads libcuda.so.1 and calls cuInit once; later calls return the same table (or error).
// Errors: "no NVIDIA driver: dlopen(libcuda.so.1) failed: ...".
absl::StatusOr<const DriverApi*> driver();

// OK, or "cuXxx failed: CUDA_ERROR_NAME (message)".
absl::Status check(CUresult result, const char* call);
#define TJ_CU_CHECK(api, call, ...) ::tilejit::cuda::check((api).call(__VA_ARGS__), #call)

// A retained primary context of one device, made current on the constructing thread.
class PrimaryContext {
 public:
  static absl::StatusOr<PrimaryContext> retain(int ordinal);
  PrimaryContext(PrimaryContext&& other) noexcept;
  PrimaryContext& operator=(PrimaryContext&& other) noexcept;
  PrimaryContext(const PrimaryContext&) = delete;
  PrimaryContext& operator=(const PrimaryContext&) = delete;
  ~PrimaryContext();

  // Makes the context current on the calling thread (every public entry point does this,
  // since callers may use several threads). Where it already is current (the usual case: the
  // same thread launching again) this is one cuCtxGetCurrent, not a cuCtxSetCurrent.
  absl::Status makeCurrent() const;
  CUcontext get() const { return context_; }
  CUdevice device() const { return device_; }

 private:
  PrimaryContext(CUdevice device, CUcontext context) : device_(device), context_(context) {}
  CUdevice device_ = -1;
  CUcontext context_ = nullptr;
};

class Module {
 public:
  static absl::StatusOr<Module> load(const void* image);
  Module(Module&& other) noexcept;
  Module& operator=(Module&& other) noexcept;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;
  ~Module();
  absl::StatusOr<CUfunction> function(const std::string& name) const;
  CUmodule get() const { return module_; }

 private:
  explicit Module(CUmodule module) : module_(module) {}
  CUmodule module_ = nullptr;
};

class Event {
 public:
  static absl::StatusOr<Event> create();
  Event(Event&& other) noexcept;
  Event& operator=(Event&& other) noexcept;
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  ~Event();
  absl::Status record(CUstream stream);
  absl::Status synchronize();
  // Milliseconds from `start` to this event; both must have completed.
  absl::StatusOr<double> elapsedSince(const Event& start) const;
  CUevent get() const { return event_; }

 private:
  explicit Event(CUevent event) : event_(event) {}
  CUevent event_ = nullptr;
};

// An instantiated graph captured from a stream; replays the captured launches.
class CudaGraph {
 public:
  CudaGraph(CudaGraph&& other) noexcept;
  CudaGraph& operator=(CudaGraph&& other) noexcept;
  CudaGraph(const CudaGraph&) = delete;
  CudaGraph& operator=(const CudaGraph&) = delete;
  ~CudaGraph();
  absl::Status launch(Stream stream);

 private:
  friend class CudaStream;
  CudaGraph(CUgraph graph, CUgraphExec exec) : graph_(graph), exec_(exec) {}
  CUgraph graph_ = nullptr;
  CUgraphExec exec_ = nullptr;
};

// A non-blocking stream on a device's primary context, for tests and benchmarks that launch
// on a stream of their own and capture launches into graphs.
class CudaStream {
 public:
  static absl::StatusOr<CudaStream> create(int ordinal = 0);
  CudaStream(CudaStream&& other) noexcept;
  CudaStream& operator=(CudaStream&& other) noexcept;
  CudaStream(const CudaStream&) = delete;
  CudaStream& operator=(const CudaStream&) = delete;
  ~CudaStream();

  Stream handle() const { return stream_; }  // for Device::launch
  absl::Status synchronize();
  // Launches between beginCapture() and endCapture() on this thread are recorded, not run.
  absl::Status beginCapture();
  absl::StatusOr<CudaGraph> endCapture();

 private:
  CudaStream(PrimaryContext context, CUstream stream)
      : context_(std::move(context)), stream_(stream) {}
  PrimaryContext context_;
  CUstream stream_ = nullptr;
};

}  // namespace tilejit::cuda
