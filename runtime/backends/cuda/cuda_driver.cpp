#include "runtime/backends/cuda/cuda_driver.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "support/dynamic_library.h"
#include "support/status.h"

namespace tilejit::cuda {
namespace {

absl::Status describe(const DriverApi& api, CUresult result, const char* call) {
  const char* name = nullptr;
  const char* text = nullptr;
  if (api.cuGetErrorName(result, &name) != CUDA_SUCCESS) name = nullptr;
  if (api.cuGetErrorString(result, &text) != CUDA_SUCCESS) text = nullptr;
  return absl::InternalError(
      absl::StrCat(call, " failed: ", name ? name : absl::StrCat("CUDA error ", result), " (",
                   text ? text : "no description", ")"));
}

struct LoadedDriver {
  DynamicLibrary library;
  DriverApi api{};
};

// Tries each exported name in order: some entry points carry a version suffix that changed
// between CUDA releases (cuEventElapsedTime_v2 in CUDA 12.8+).
template <typename T>
absl::Status resolve(const DynamicLibrary& library, T& slot,
                     std::initializer_list<const char*> names) {
  absl::Status last;
  for (const char* name : names) {
    absl::StatusOr<T> address = library.symbol<T>(name);
    if (address.ok()) {
      slot = *address;
      return absl::OkStatus();
    }
    last = address.status();
  }
  return absl::NotFoundError(absl::StrCat("the NVIDIA driver in ", library.path(),
                                          " lacks an entry point: ", last.message()));
}

absl::StatusOr<LoadedDriver*> loadDriver() {
  absl::StatusOr<DynamicLibrary> library = DynamicLibrary::open({"libcuda.so.1"});
  if (!library.ok())
    return absl::UnavailableError(absl::StrCat("no NVIDIA driver: dlopen(libcuda.so.1) failed: ",
                                               library.status().message()));
  auto driver = std::make_unique<LoadedDriver>();
  driver->library = *std::move(library);
  const DynamicLibrary& lib = driver->library;
  DriverApi& api = driver->api;
  TJ_RETURN_IF_ERROR(resolve(lib, api.cuInit, {"cuInit"}));
  TJ_RETURN_IF_ERROR(resolve(lib, api.cuDriverGetVersion, {"cuDriverGetVersion"}));
  TJ_RETURN_IF_ERROR(resolve(lib, api.cuGetErrorName, {"cuGetErrorName"}));
  TJ_RETURN_IF_ERROR(resolve(lib, api.cuGetErrorString, {"cuGetErrorString"}));
  TJ_RETURN_IF_ERROR(resolve(lib, api.cuDeviceGetCount, {"cuDeviceGetCount"}));
  TJ_RETURN_IF_ERROR(resolve(lib, api.cuDeviceGet, {"cuDeviceGet"}));
  TJ_RETURN_IF_ERROR(resolve(lib, api.cuDeviceGetAttribute, {"cuDeviceGetAttribute"}));
  TJ_RETURN_IF_ERROR(resolve(lib, api.cuDeviceGetName, {"cuDeviceGetName"}));
  TJ_RETURN_IF_ERROR(resolve(lib, api.cuDevicePrimaryCtxRetain, {"cuDevicePrimaryCtxRetain"}));
  TJ_RETURN_IF_ERROR(resolve(lib, api.cuDevicePrimaryCtxRelease,
                             {"cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease"}));
  TJ_RETURN_IF_ERROR(resolve(lib, api.cuCtxGetCurrent, {"cuCtxGetCurrent"}));
  TJ_RETURN_IF_ERROR(resolve(lib, api.cuCtxSetCurrent, {"cuCtxSetCurrent"}));
  TJ_RETURN_IF_ERROR(resolve(lib, api.cuCtxSynchronize, {"cuCtxSynchronize"}));
  TJ_RETURN_IF_ERROR(resolve(lib, api.cuModuleLoadData, {"cuModuleLoadData"}));
  TJ_RETURN_IF_ERROR(resolve(lib, api.cuModuleUnload, {"cuModuleUnload"}));
  TJ_RETURN_IF_ERROR(resolve(lib, api.cuModuleGetFunction, {"cuModuleGetFunction"}));
  TJ_RETURN_IF_ERROR(resolve(lib, api.cuFuncGetAttribute, {"cuFuncGetAttribute"}));
  TJ_RETURN_IF_ERROR(resolve(lib, api.cuFuncSetAttribute, {"cuFuncSetAttribute"}));
  TJ_RETURN_IF_ERROR(resolve(lib, api.cuLaunchKernel, {"cuLaunchKernel"}));
  if (!resolve(lib, api.cuLaunchKernelEx, {"cuLaunchKernelEx"}).ok()) api.cuLaunchKernelEx = nullptr;
  TJ_RETURN_IF_ERROR(resolve(lib, api.cuMemAlloc, {"cuMemAlloc_v2"}));
  TJ_RETURN_IF_ERROR(resolve(lib, api.cuMemFree, {"cuMemFree_v2"}));
  TJ_RETURN_IF_ERROR(resolve(lib, api.cuMemcpyHtoD, {"cuMemcpyHtoD_v2"}));
  TJ_RETURN_IF_ERROR(resolve(lib, api.cuMemcpyDtoH, {"cuMemcpyDtoH_v2"}));
  TJ_RETURN_IF_ERROR(resolve(lib, api.cuMemsetD8, {"cuMemsetD8_v2"}));
  TJ_RETURN_IF_ERROR(resolve(lib, api.cuEventCreate, {"cuEventCreate"}));
  TJ_RETURN_IF_ERROR(resolve(lib, api.cuEventRecord, {"cuEventRecord"}));
  TJ_RETURN_IF_ERROR(resolve(lib, api.cuEventSynchronize, {"cuEventSynchronize"}));
  TJ_RETURN_IF_ERROR(
      resolve(lib, api.cuEventElapsedTime, {"cuEventElapsedTime_v2", "cuEventElapsedTime"}));
  TJ_RETURN_IF_ERROR(resolve(lib, api.cuEventDestroy, {"cuEventDestroy_v2"}));
  TJ_RETURN_IF_ERROR(resolve(lib, api.cuStreamCreate, {"cuStreamCreate"}));
  TJ_RETURN_IF_ERROR(resolve(lib, api.cuStreamDestroy, {"cuStreamDestroy_v2"}));
  TJ_RETURN_IF_ERROR(resolve(lib, api.cuStreamSynchronize, {"cuStreamSynchronize"}));
  TJ_RETURN_IF_ERROR(resolve(lib, api.cuStreamBeginCapture, {"cuStreamBeginCapture_v2"}));
  TJ_RETURN_IF_ERROR(resolve(lib, api.cuStreamEndCapture, {"cuStreamEndCapture"}));
  TJ_RETURN_IF_ERROR(
      resolve(lib, api.cuGraphInstantiateWithFlags, {"cuGraphInstantiateWithFlags"}));
  TJ_RETURN_IF_ERROR(resolve(lib, api.cuGraphLaunch, {"cuGraphLaunch"}));
  TJ_RETURN_IF_ERROR(resolve(lib, api.cuGraphExecDestroy, {"cuGraphExecDestroy"}));
  TJ_RETURN_IF_ERROR(resolve(lib, api.cuGraphDestroy, {"cuGraphDestroy"}));
  // Not check(): it asks driver(), whose initialization is this very function.
  if (CUresult result = api.cuInit(0); result != CUDA_SUCCESS)
    return describe(api, result, "cuInit");
  return driver.release();  // lives for the process: handles outlive any static destructor
}

// Every RAII destructor below needs the table; they only exist if driver() succeeded.
const DriverApi& api() { return **driver(); }

}  // namespace

absl::StatusOr<const DriverApi*> driver() {
  static const absl::StatusOr<LoadedDriver*> loaded = loadDriver();
  if (!loaded.ok()) return loaded.status();
  return &(*loaded)->api;
}

absl::Status check(CUresult result, const char* call) {
  if (result == CUDA_SUCCESS) return absl::OkStatus();
  absl::StatusOr<const DriverApi*> table = driver();
  if (!table.ok()) return absl::InternalError(absl::StrCat(call, " failed: CUDA error ", result));
  return describe(**table, result, call);
}

PrimaryContext::PrimaryContext(PrimaryContext&& other) noexcept
    : device_(std::exchange(other.device_, -1)), context_(std::exchange(other.context_, nullptr)) {}
PrimaryContext& PrimaryContext::operator=(PrimaryContext&& other) noexcept {
  if (this != &other) {
    if (context_) api().cuDevicePrimaryCtxRelease(device_);
    device_ = std::exchange(other.device_, -1);
    context_ = std::exchange(other.context_, nullptr);
  }
  return *this;
}
PrimaryContext::~PrimaryContext() {
  if (context_) api().cuDevicePrimaryCtxRelease(device_);
}

absl::StatusOr<PrimaryContext> PrimaryContext::retain(int ordinal) {
  TJ_ASSIGN_OR_RETURN(const DriverApi* cu, driver());
  int count = 0;
  TJ_RETURN_IF_ERROR(TJ_CU_CHECK(*cu, cuDeviceGetCount, &count));
  if (count == 0) return absl::UnavailableError("no CUDA device");
  if (ordinal < 0 || ordinal >= count)
    return absl::InvalidArgumentError(absl::StrCat("CUDA device ", ordinal,
                                                   " does not exist; this machine has ", count,
                                                   count == 1 ? " device (0)" : " devices (0..",
                                                   count == 1 ? "" : absl::StrCat(count - 1, ")")));
  CUdevice device = 0;
  TJ_RETURN_IF_ERROR(TJ_CU_CHECK(*cu, cuDeviceGet, &device, ordinal));
  CUcontext context = nullptr;
  TJ_RETURN_IF_ERROR(TJ_CU_CHECK(*cu, cuDevicePrimaryCtxRetain, &context, device));
  PrimaryContext retained(device, context);
  TJ_RETURN_IF_ERROR(retained.makeCurrent());
  return retained;
}

absl::Status PrimaryContext::makeCurrent() const {
  CUcontext current = nullptr;
  if (api().cuCtxGetCurrent(&current) == CUDA_SUCCESS && current == context_)
    return absl::OkStatus();
  return TJ_CU_CHECK(api(), cuCtxSetCurrent, context_);
}

Module::Module(Module&& other) noexcept : module_(std::exchange(other.module_, nullptr)) {}
Module& Module::operator=(Module&& other) noexcept {
  if (this != &other) {
    if (module_) api().cuModuleUnload(module_);
    module_ = std::exchange(other.module_, nullptr);
  }
  return *this;
}
Module::~Module() {
  if (module_) api().cuModuleUnload(module_);
}
absl::StatusOr<Module> Module::load(const void* image) {
  TJ_ASSIGN_OR_RETURN(const DriverApi* cu, driver());
  CUmodule module = nullptr;
  TJ_RETURN_IF_ERROR(TJ_CU_CHECK(*cu, cuModuleLoadData, &module, image));
  return Module(module);
}
absl::StatusOr<CUfunction> Module::function(const std::string& name) const {
  CUfunction function = nullptr;
  absl::Status status = TJ_CU_CHECK(api(), cuModuleGetFunction, &function, module_, name.c_str());
  if (!status.ok())
    return absl::NotFoundError(
        absl::StrCat("kernel '", name, "' not found in the module: ", status.message()));
  return function;
}

Event::Event(Event&& other) noexcept : event_(std::exchange(other.event_, nullptr)) {}
Event& Event::operator=(Event&& other) noexcept {
  if (this != &other) {
    if (event_) api().cuEventDestroy(event_);
    event_ = std::exchange(other.event_, nullptr);
  }
  return *this;
}
Event::~Event() {
  if (event_) api().cuEventDestroy(event_);
}
absl::StatusOr<Event> Event::create() {
  TJ_ASSIGN_OR_RETURN(const DriverApi* cu, driver());
  CUevent event = nullptr;
  TJ_RETURN_IF_ERROR(TJ_CU_CHECK(*cu, cuEventCreate, &event, CU_EVENT_DEFAULT));
  return Event(event);
}
absl::Status Event::record(CUstream stream) {
  return TJ_CU_CHECK(api(), cuEventRecord, event_, stream);
}
absl::Status Event::synchronize() { return TJ_CU_CHECK(api(), cuEventSynchronize, event_); }
absl::StatusOr<double> Event::elapsedSince(const Event& start) const {
  float milliseconds = 0;
  TJ_RETURN_IF_ERROR(TJ_CU_CHECK(api(), cuEventElapsedTime, &milliseconds, start.event_, event_));
  return milliseconds;
}

CudaGraph::CudaGraph(CudaGraph&& other) noexcept
    : graph_(std::exchange(other.graph_, nullptr)), exec_(std::exchange(other.exec_, nullptr)) {}
CudaGraph& CudaGraph::operator=(CudaGraph&& other) noexcept {
  if (this != &other) {
    CudaGraph discarded(std::move(*this));
    graph_ = std::exchange(other.graph_, nullptr);
    exec_ = std::exchange(other.exec_, nullptr);
  }
  return *this;
}
CudaGraph::~CudaGraph() {
  if (exec_) api().cuGraphExecDestroy(exec_);
  if (graph_) api().cuGraphDestroy(graph_);
}
absl::Status CudaGraph::launch(Stream stream) {
  return TJ_CU_CHECK(api(), cuGraphLaunch, exec_, static_cast<CUstream>(stream));
}

CudaStream::CudaStream(CudaStream&& other) noexcept
    : context_(std::move(other.context_)), stream_(std::exchange(other.stream_, nullptr)) {}
CudaStream& CudaStream::operator=(CudaStream&& other) noexcept {
  if (this != &other) {
    if (stream_) api().cuStreamDestroy(stream_);
    context_ = std::move(other.context_);
    stream_ = std::exchange(other.stream_, nullptr);
  }
  return *this;
}
CudaStream::~CudaStream() {
  if (stream_) api().cuStreamDestroy(stream_);
}
absl::StatusOr<CudaStream> CudaStream::create(int ordinal) {
  TJ_ASSIGN_OR_RETURN(PrimaryContext context, PrimaryContext::retain(ordinal));
  CUstream stream = nullptr;
  TJ_RETURN_IF_ERROR(TJ_CU_CHECK(api(), cuStreamCreate, &stream, CU_STREAM_NON_BLOCKING));
  return CudaStream(std::move(context), stream);
}
absl::Status CudaStream::synchronize() {
  TJ_RETURN_IF_ERROR(context_.makeCurrent());
  return TJ_CU_CHECK(api(), cuStreamSynchronize, stream_);
}
absl::Status CudaStream::beginCapture() {
  TJ_RETURN_IF_ERROR(context_.makeCurrent());
  return TJ_CU_CHECK(api(), cuStreamBeginCapture, stream_, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
}
absl::StatusOr<CudaGraph> CudaStream::endCapture() {
  CUgraph graph = nullptr;
  TJ_RETURN_IF_ERROR(TJ_CU_CHECK(api(), cuStreamEndCapture, stream_, &graph));
  CUgraphExec exec = nullptr;
  absl::Status status = TJ_CU_CHECK(api(), cuGraphInstantiateWithFlags, &exec, graph, 0);
  CudaGraph owned(graph, exec);  // destroys `graph` even when instantiation failed
  if (!status.ok()) return status;
  return owned;
}

}  // namespace tilejit::cuda
