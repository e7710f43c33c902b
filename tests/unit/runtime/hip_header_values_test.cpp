// The installed ROCm header's values of the constants hip_runtime.h declares, in a unit of
// their own: the header's macros (hipStreamNonBlocking, HIP_LAUNCH_PARAM_*) would rewrite the
// runtime's own names.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

#if __has_include(<hip/hip_runtime_api.h>)
#define __HIP_PLATFORM_AMD__
#include <hip/hip_runtime_api.h>
#define TJ_HAVE_HIP_HEADER 1
#endif

namespace tilejit::testing {

std::map<std::string, int64_t> installedHipHeaderValues() {
#ifdef TJ_HAVE_HIP_HEADER
  const auto pointer = [](void* value) {
    return static_cast<int64_t>(reinterpret_cast<intptr_t>(value));
  };
  return {{"hipSuccess", hipSuccess},
          {"hipMemcpyHostToDevice", hipMemcpyHostToDevice},
          {"hipMemcpyDeviceToHost", hipMemcpyDeviceToHost},
          {"hipStreamNonBlocking", hipStreamNonBlocking},
          {"hipStreamCaptureModeThreadLocal", hipStreamCaptureModeThreadLocal},
          {"HIP_LAUNCH_PARAM_BUFFER_POINTER", pointer(HIP_LAUNCH_PARAM_BUFFER_POINTER)},
          {"HIP_LAUNCH_PARAM_BUFFER_SIZE", pointer(HIP_LAUNCH_PARAM_BUFFER_SIZE)},
          {"HIP_LAUNCH_PARAM_END", pointer(HIP_LAUNCH_PARAM_END)},
          {"hipDeviceAttributeMaxThreadsPerBlock", hipDeviceAttributeMaxThreadsPerBlock},
          {"hipDeviceAttributeMaxSharedMemoryPerBlock", hipDeviceAttributeMaxSharedMemoryPerBlock},
          {"HIP_VERSION_MAJOR", HIP_VERSION_MAJOR},
          {"gcnArchNameOffset", static_cast<int64_t>(offsetof(hipDeviceProp_t, gcnArchName))}};
#else
  return {};
#endif
}

}  // namespace tilejit::testing
