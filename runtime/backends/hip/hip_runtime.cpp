#include "runtime/backends/hip/hip_runtime.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "support/status.h"

namespace tilejit::hip {
namespace {

std::string describeError(const RuntimeApi& api, hipError_t result) {
  const char* name = api.hipGetErrorName ? api.hipGetErrorName(result) : nullptr;
  return absl::StrCat(result, " (", name ? name : "unknown HIP error", ")");
}

template <typename T>
absl::Status resolve(const DynamicLibrary& library, T& slot, const char* name) {
  absl::StatusOr<T> address = library.symbol<T>(name);
  if (!address.ok())
    return absl::NotFoundError(absl::StrCat("the HIP runtime in ", library.path(),
                                            " lacks an entry point: ", address.status().message()));
  slot = *address;
  return absl::OkStatus();
}

// Larger than every layout (R0600 is 1472 bytes), so a grown struct cannot overrun it.
constexpr size_t kPropertiesBufferBytes = 8192;
constexpr size_t kArchNameBytes = 256;

absl::Status resolveTable(const DynamicLibrary& lib, RuntimeApi& api) {
  TJ_RETURN_IF_ERROR(resolve(lib, api.hipInit, "hipInit"));
  TJ_RETURN_IF_ERROR(resolve(lib, api.hipRuntimeGetVersion, "hipRuntimeGetVersion"));
  TJ_RETURN_IF_ERROR(resolve(lib, api.hipGetErrorName, "hipGetErrorName"));
  TJ_RETURN_IF_ERROR(resolve(lib, api.hipGetErrorString, "hipGetErrorString"));
  TJ_RETURN_IF_ERROR(resolve(lib, api.hipGetDeviceCount, "hipGetDeviceCount"));
  TJ_RETURN_IF_ERROR(resolve(lib, api.hipSetDevice, "hipSetDevice"));
  TJ_RETURN_IF_ERROR(resolve(lib, api.hipDeviceGetAttribute, "hipDeviceGetAttribute"));
  TJ_RETURN_IF_ERROR(resolve(lib, api.hipDeviceGetName, "hipDeviceGetName"));
  for (const PropertiesLayout& layout : kPropertiesLayouts) {
    if (!resolve(lib, api.hipGetDeviceProperties, layout.entryPoint).ok()) continue;
    api.propertiesArchOffset = layout.archOffset;
    api.propertiesEntryPoint = layout.entryPoint;
    break;
  }
  if (!api.hipGetDeviceProperties)
    return absl::NotFoundError(absl::StrCat("the HIP runtime in ", lib.path(),
                                            " exports none of hipGetDevicePropertiesR0600, "
                                            "hipGetDevicePropertiesR0000, hipGetDeviceProperties"));
  TJ_RETURN_IF_ERROR(resolve(lib, api.hipDeviceSynchronize, "hipDeviceSynchronize"));
  TJ_RETURN_IF_ERROR(resolve(lib, api.hipModuleLoadData, "hipModuleLoadData"));
  TJ_RETURN_IF_ERROR(resolve(lib, api.hipModuleUnload, "hipModuleUnload"));
  TJ_RETURN_IF_ERROR(resolve(lib, api.hipModuleGetFunction, "hipModuleGetFunction"));
  TJ_RETURN_IF_ERROR(resolve(lib, api.hipModuleLaunchKernel, "hipModuleLaunchKernel"));
  TJ_RETURN_IF_ERROR(resolve(lib, api.hipMalloc, "hipMalloc"));
  TJ_RETURN_IF_ERROR(resolve(lib, api.hipFree, "hipFree"));
  TJ_RETURN_IF_ERROR(resolve(lib, api.hipMemcpy, "hipMemcpy"));
  TJ_RETURN_IF_ERROR(resolve(lib, api.hipEventCreate, "hipEventCreate"));
  TJ_RETURN_IF_ERROR(resolve(lib, api.hipEventRecord, "hipEventRecord"));
  TJ_RETURN_IF_ERROR(resolve(lib, api.hipEventSynchronize, "hipEventSynchronize"));
  TJ_RETURN_IF_ERROR(resolve(lib, api.hipEventElapsedTime, "hipEventElapsedTime"));
  TJ_RETURN_IF_ERROR(resolve(lib, api.hipEventDestroy, "hipEventDestroy"));
  TJ_RETURN_IF_ERROR(resolve(lib, api.hipStreamCreateWithFlags, "hipStreamCreateWithFlags"));
  TJ_RETURN_IF_ERROR(resolve(lib, api.hipStreamDestroy, "hipStreamDestroy"));
  TJ_RETURN_IF_ERROR(resolve(lib, api.hipStreamSynchronize, "hipStreamSynchronize"));
  TJ_RETURN_IF_ERROR(resolve(lib, api.hipStreamBeginCapture, "hipStreamBeginCapture"));
  TJ_RETURN_IF_ERROR(resolve(lib, api.hipStreamEndCapture, "hipStreamEndCapture"));
  TJ_RETURN_IF_ERROR(
      resolve(lib, api.hipGraphInstantiateWithFlags, "hipGraphInstantiateWithFlags"));
  TJ_RETURN_IF_ERROR(resolve(lib, api.hipGraphLaunch, "hipGraphLaunch"));
  TJ_RETURN_IF_ERROR(resolve(lib, api.hipGraphExecDestroy, "hipGraphExecDestroy"));
  return resolve(lib, api.hipGraphDestroy, "hipGraphDestroy");
}

}  // namespace

const std::vector<std::string>& defaultRuntimeLibraries() {
  static const std::vector<std::string> names = {"libamdhip64.so.7", "libamdhip64.so.6",
                                                 "libamdhip64.so.5", "libamdhip64.so"};
  return names;
}

absl::StatusOr<std::unique_ptr<LoadedRuntime>> openRuntime(
    const std::vector<std::string>& candidates) {
  absl::StatusOr<DynamicLibrary> library = DynamicLibrary::open(candidates);
  if (!library.ok())
    return absl::UnavailableError(absl::StrCat("no AMD driver: dlopen(",
                                               absl::StrJoin(candidates, ", "),
                                               ") failed: ", library.status().message()));
  auto loaded = std::make_unique<LoadedRuntime>();
  loaded->library = *std::move(library);
  TJ_RETURN_IF_ERROR(resolveTable(loaded->library, loaded->api));
  return loaded;
}

absl::StatusOr<std::unique_ptr<LoadedRuntime>> loadRuntime(
    const std::vector<std::string>& candidates) {
  TJ_ASSIGN_OR_RETURN(std::unique_ptr<LoadedRuntime> loaded, openRuntime(candidates));
  if (hipError_t result = loaded->api.hipInit(0); result != hipSuccess)
    return absl::UnavailableError(
        absl::StrCat("no AMD GPU: hipInit returned ", describeError(loaded->api, result)));
  return loaded;
}

absl::StatusOr<const RuntimeApi*> runtime() {
  // Lives for the process: handles may outlive static destructors.
  static const absl::StatusOr<LoadedRuntime*> loaded = [&]() -> absl::StatusOr<LoadedRuntime*> {
    TJ_ASSIGN_OR_RETURN(std::unique_ptr<LoadedRuntime> runtime,
                        loadRuntime(defaultRuntimeLibraries()));
    return runtime.release();
  }();
  if (!loaded.ok()) return loaded.status();
  return &(*loaded)->api;
}

absl::Status check(const RuntimeApi& api, hipError_t result, const char* call) {
  if (result == hipSuccess) return absl::OkStatus();
  const char* text = api.hipGetErrorString ? api.hipGetErrorString(result) : nullptr;
  return absl::InternalError(absl::StrCat(call, " failed: ", describeError(api, result), ": ",
                                          text ? text : "no description"));
}

absl::StatusOr<std::string> deviceArchitecture(const RuntimeApi& api, int ordinal) {
  alignas(16) static thread_local char properties[kPropertiesBufferBytes];
  std::memset(properties, 0, sizeof(properties));
  TJ_RETURN_IF_ERROR(
      check(api, api.hipGetDeviceProperties(properties, ordinal), api.propertiesEntryPoint));
  const char* field = properties + api.propertiesArchOffset;
  std::string name(field, strnlen(field, kArchNameBytes));
  if (name.rfind("gfx", 0) != 0)
    return absl::InternalError(
        absl::StrCat(api.propertiesEntryPoint, " gave gcnArchName '", name, "' at byte ",
                     api.propertiesArchOffset,
                     ", not a gfx name: this HIP runtime's hipDeviceProp_t layout "
                     "is not the one its entry point's name promises"));
  return name;
}

absl::Status HipGraph::launch(Stream stream) {
  TJ_ASSIGN_OR_RETURN(const RuntimeApi* api, runtime());
  return TJ_HIP_CHECK(*api, hipGraphLaunch, exec_.get(), static_cast<hipStream_t>(stream));
}

absl::StatusOr<HipStream> HipStream::create(int ordinal) {
  TJ_ASSIGN_OR_RETURN(const RuntimeApi* api, runtime());
  TJ_RETURN_IF_ERROR(TJ_HIP_CHECK(*api, hipSetDevice, ordinal));
  hipStream_t stream = nullptr;
  TJ_RETURN_IF_ERROR(TJ_HIP_CHECK(*api, hipStreamCreateWithFlags, &stream, hipStreamNonBlocking));
  return HipStream(ordinal, stream);
}

absl::Status HipStream::synchronize() {
  TJ_ASSIGN_OR_RETURN(const RuntimeApi* api, runtime());
  return TJ_HIP_CHECK(*api, hipStreamSynchronize, stream_.get());
}

absl::Status HipStream::beginCapture() {
  TJ_ASSIGN_OR_RETURN(const RuntimeApi* api, runtime());
  TJ_RETURN_IF_ERROR(TJ_HIP_CHECK(*api, hipSetDevice, ordinal_));
  return TJ_HIP_CHECK(*api, hipStreamBeginCapture, stream_.get(), hipStreamCaptureModeThreadLocal);
}

absl::StatusOr<HipGraph> HipStream::endCapture() {
  TJ_ASSIGN_OR_RETURN(const RuntimeApi* api, runtime());
  hipGraph_t graph = nullptr;
  TJ_RETURN_IF_ERROR(TJ_HIP_CHECK(*api, hipStreamEndCapture, stream_.get(), &graph));
  hipGraphExec_t exec = nullptr;
  absl::Status status = TJ_HIP_CHECK(*api, hipGraphInstantiateWithFlags, &exec, graph, 0);
  HipGraph owned(graph, exec);  // destroys `graph` even when instantiation failed
  if (!status.ok()) return status;
  return owned;
}

}  // namespace tilejit::hip
