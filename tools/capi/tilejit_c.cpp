// The C ABI over JitCompiler and Device. Exceptions never cross it (the C++ API returns
// absl::Status); errors are kept per thread for tj_last_error().
#include "tools/capi/tilejit_c.h"

#include <cstring>
#include <string>
#include <vector>

#include "compiler/jit_compiler.h"

#define TJ_EXPORT extern "C" __attribute__((visibility("default")))

struct tj_jit {
  std::unique_ptr<tilejit::JitCompiler> compiler;
};
struct tj_device {
  std::unique_ptr<tilejit::Device> device;
  std::string target;
};
struct tj_kernel {
  const tilejit::LoadedKernel* loaded;
};

namespace {
thread_local std::string lastError;
template <typename T>
T fail(const absl::Status& status, T value) {
  lastError = std::string(status.message());
  return value;
}
}  // namespace

TJ_EXPORT const char* tj_last_error(void) { return lastError.c_str(); }

TJ_EXPORT tj_jit* tj_jit_create(int use_disk_cache) {
  tilejit::JitOptions options;
  options.useDiskCache = use_disk_cache != 0;
  auto compiler = tilejit::JitCompiler::create(options);
  if (!compiler.ok()) return fail(compiler.status(), static_cast<tj_jit*>(nullptr));
  return new tj_jit{std::move(*compiler)};
}

TJ_EXPORT void tj_jit_destroy(tj_jit* jit) { delete jit; }

TJ_EXPORT tj_device* tj_device_create_best(void) {
  auto device = tilejit::createBestDevice();
  std::string target = device->target();
  return new tj_device{std::move(device), target};
}

TJ_EXPORT tj_device* tj_device_create_cpu(void) {
  auto device = tilejit::createCpuDevice();
  std::string target = device->target();
  return new tj_device{std::move(device), target};
}

TJ_EXPORT const char* tj_device_target(const tj_device* device) { return device->target.c_str(); }
TJ_EXPORT void tj_device_destroy(tj_device* device) { delete device; }

TJ_EXPORT const tj_kernel* tj_kernel_load(tj_jit* jit, tj_device* device, const char* templ,
                                          const char* const* params, int num_params,
                                          tj_compile_info* info) {
  std::map<std::string, std::string> bound;
  for (int i = 0; i < num_params; ++i) {
    std::string text(params[i]);
    size_t eq = text.find('=');
    if (eq == std::string::npos)
      return fail(absl::InvalidArgumentError("parameter '" + text + "' is not name=value"),
                  static_cast<const tj_kernel*>(nullptr));
    bound[text.substr(0, eq)] = text.substr(eq + 1);
  }
  std::string name(templ);
  bool isPath = name.find('/') != std::string::npos || name.find(".mlir") != std::string::npos;
  auto spec = isPath ? tilejit::KernelSpec::fromFile(name, device->target, bound)
                     : tilejit::KernelSpec::shipped(name, device->target, bound);
  if (!spec.ok()) return fail(spec.status(), static_cast<const tj_kernel*>(nullptr));
  tilejit::CompiledKernel compiled;
  auto loaded = jit->compiler->load(*device->device, *spec, &compiled);
  if (!loaded.ok()) return fail(loaded.status(), static_cast<const tj_kernel*>(nullptr));
  if (info) {
    info->cache_hit = compiled.cacheHit;
    info->specialize_seconds = compiled.specializeSeconds;
    info->toolchain_seconds = compiled.toolchainSeconds;
    info->total_seconds = compiled.totalSeconds;
    info->registers = int32_t(compiled.metadata.resources.registers);
    info->threads_per_program = int32_t(compiled.metadata.threadsPerProgram);
  }
  // LoadedKernel pointers are stable for the jit's life; the handle is that pointer.
  return reinterpret_cast<const tj_kernel*>(*loaded);
}

TJ_EXPORT int tj_launch(tj_device* device, const tj_kernel* kernel, const tj_arg* args,
                        int num_args, void* stream) {
  constexpr int kMaxArgs = 32;
  if (num_args < 0 || num_args > kMaxArgs)
    return fail(absl::InvalidArgumentError("tj_launch takes at most 32 arguments"), -1);
  // KernelArg has no default constructor; build them in place on the stack.
  alignas(tilejit::KernelArg) unsigned char storage[kMaxArgs * sizeof(tilejit::KernelArg)];
  auto* converted = reinterpret_cast<tilejit::KernelArg*>(storage);
  for (int i = 0; i < num_args; ++i) {
    const tj_arg& arg = args[i];
    if (arg.is_scalar) {
      tilejit::ScalarArg scalar{static_cast<tilejit::DType>(arg.scalar_dtype), arg.float_value,
                                arg.int_value};
      new (&converted[i]) tilejit::KernelArg(scalar);
    } else {
      tilejit::TensorArg tensor;
      tensor.data = arg.tensor.data;
      tensor.dtype = static_cast<tilejit::DType>(arg.tensor.dtype);
      tensor.rank = arg.tensor.rank;
      std::memcpy(tensor.shape, arg.tensor.shape, sizeof tensor.shape);
      std::memcpy(tensor.strides, arg.tensor.strides, sizeof tensor.strides);
      new (&converted[i]) tilejit::KernelArg(tensor);
    }
  }
  const auto* loaded = reinterpret_cast<const tilejit::LoadedKernel*>(kernel);
  absl::Status status = device->device->launch(
      *loaded, absl::MakeConstSpan(converted, size_t(num_args)), stream);
  if (!status.ok()) return fail(status, -1);
  return 0;
}
