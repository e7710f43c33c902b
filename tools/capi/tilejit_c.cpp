// The C ABI over JitCompiler and Device. Exceptions never cross it (the C++ API returns
// absl::Status); errors are kept per thread for tj_last_error().
#include "tools/capi/tilejit_c.h"

#include <algorithm>
#include <initializer_list>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/jit_compiler.h"
#include "compiler/ops/op.h"
#include "compiler/ops/paged_decode.h"
#include "tools/capi/capi_internal.h"

namespace tilejit::capi {
thread_local std::string lastError;
}  // namespace tilejit::capi

namespace {
using namespace tilejit::capi;

tilejit::TensorArg toTensor(const tj_tensor& in) {
  tilejit::TensorArg tensor;
  tensor.data = in.data;
  tensor.dtype = static_cast<tilejit::DType>(in.dtype);
  tensor.rank = in.rank;
  std::memcpy(tensor.shape, in.shape, sizeof tensor.shape);
  std::memcpy(tensor.strides, in.strides, sizeof tensor.strides);
  return tensor;
}

}  // namespace

namespace tilejit::capi {
absl::StatusOr<std::map<std::string, std::string>> parseAssignments(const char* const* items,
                                                                    int count) {
  std::map<std::string, std::string> out;
  if (count > 0 && items == nullptr)
    return absl::InvalidArgumentError(std::to_string(count) + " parameters announced but the list is NULL");
  for (int i = 0; i < count; ++i) {
    if (items[i] == nullptr)
      return absl::InvalidArgumentError("parameter " + std::to_string(i) + " is NULL");
    std::string text(items[i]);
    size_t eq = text.find('=');
    if (eq == std::string::npos)
      return absl::InvalidArgumentError("parameter '" + text + "' is not name=value");
    out[text.substr(0, eq)] = text.substr(eq + 1);
  }
  return out;
}

// A struct the caller passes or receives, checked by its leading struct_size.
template <typename Struct>
absl::Status checkStructSize(const Struct& value, const char* function, const char* type) {
  if (value.struct_size == sizeof(Struct)) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      function, ": ", type, ".struct_size is ", value.struct_size, "; this library's ", type,
      " is ", sizeof(Struct), " bytes (ABI version ", TJ_ABI_VERSION,
      "): set it to sizeof(", type, ") from the tilejit_c.h the library was built from"));
}

// The first failing check, or OK.
absl::Status firstError(std::initializer_list<absl::Status> statuses) {
  for (const absl::Status& status : statuses)
    if (!status.ok()) return status;
  return absl::OkStatus();
}

// Converts C arguments in place into `storage` (KernelArg has no default constructor).
constexpr int kMaxArgs = 32;
using ArgStorage = unsigned char[kMaxArgs * sizeof(tilejit::KernelArg)];
absl::StatusOr<absl::Span<const tilejit::KernelArg>> convertArgs(const char* function,
                                                                const tj_arg* args, int num_args,
                                                                ArgStorage& storage) {
  if (num_args < 0 || num_args > kMaxArgs)
    return absl::InvalidArgumentError(std::string(function) + " takes at most 32 arguments");
  if (num_args > 0 && args == nullptr) return missing(function, "args");
  auto* converted = reinterpret_cast<tilejit::KernelArg*>(storage);
  for (int i = 0; i < num_args; ++i) {
    const tj_arg& arg = args[i];
    if (arg.is_scalar) {
      tilejit::ScalarArg scalar{static_cast<tilejit::DType>(arg.scalar_dtype), arg.float_value,
                                arg.int_value};
      new (&converted[i]) tilejit::KernelArg(scalar);
    } else {
      new (&converted[i]) tilejit::KernelArg(toTensor(arg.tensor));
    }
  }
  return absl::MakeConstSpan(converted, size_t(num_args));
}

// "name=value" strings in order (duplicates left for the op's schema to name).
absl::StatusOr<std::vector<std::string>> assignmentList(const char* const* items, int count) {
  if (count > 0 && items == nullptr)
    return absl::InvalidArgumentError(std::to_string(count) + " parameters announced but the list is NULL");
  std::vector<std::string> out;
  for (int i = 0; i < count; ++i) {
    if (items[i] == nullptr)
      return absl::InvalidArgumentError("parameter " + std::to_string(i) + " is NULL");
    out.emplace_back(items[i]);
  }
  return out;
}
}  // namespace

TJ_EXPORT const char* tj_last_error(void) { return tilejit::capi::lastError.c_str(); }

TJ_EXPORT int tj_abi_version(void) { return TJ_ABI_VERSION; }

TJ_EXPORT tj_jit* tj_jit_create(int use_disk_cache) {
  tilejit::JitOptions options;
  options.useDiskCache = use_disk_cache != 0;
  auto compiler = tilejit::JitCompiler::create(options);
  if (!compiler.ok()) return fail(compiler.status(), static_cast<tj_jit*>(nullptr));
  auto* jit = new tj_jit{std::move(*compiler)};
  handles().add(jit, HandleKind::kJit);
  return jit;
}

TJ_EXPORT void tj_jit_destroy(tj_jit* jit) {
  destroyHandle(jit, HandleKind::kJit, "tj_jit_destroy");
}

namespace {
tj_device* registeredDevice(std::unique_ptr<tilejit::Device> device) {
  std::string target = device->target();
  auto* handle = new tj_device{std::move(device), target};
  handles().add(handle, HandleKind::kDevice);
  return handle;
}
}  // namespace

TJ_EXPORT tj_device* tj_device_create_best(void) {
  return registeredDevice(tilejit::createBestDevice());
}

TJ_EXPORT tj_device* tj_device_create_cpu(void) {
  return registeredDevice(tilejit::createCpuDevice());
}

TJ_EXPORT const char* tj_device_target(const tj_device* device) {
  if (absl::Status ok = handles().check(device, HandleKind::kDevice, "tj_device_target", "device");
      !ok.ok())
    return fail(ok, nullptr);
  return device->target.c_str();
}

TJ_EXPORT void tj_device_destroy(tj_device* device) {
  destroyHandle(device, HandleKind::kDevice, "tj_device_destroy");
}

TJ_EXPORT const tj_kernel* tj_kernel_load(tj_jit* jit, tj_device* device, const char* templ,
                                          const char* const* params, int num_params,
                                          tj_compile_info* info) {
  absl::Status usable = firstError(
      {handles().check(jit, HandleKind::kJit, "tj_kernel_load", "jit"),
       handles().check(device, HandleKind::kDevice, "tj_kernel_load", "device"),
       templ ? absl::OkStatus() : missing("tj_kernel_load", "templ"),
       info ? checkStructSize(*info, "tj_kernel_load", "tj_compile_info") : absl::OkStatus()});
  if (!usable.ok()) return fail(usable, static_cast<const tj_kernel*>(nullptr));
  auto parsed = parseAssignments(params, num_params);
  if (!parsed.ok()) return fail(parsed.status(), static_cast<const tj_kernel*>(nullptr));
  std::map<std::string, std::string> bound = *std::move(parsed);
  std::string name(templ);
  bool isPath = name.find('/') != std::string::npos || name.find(".mlir") != std::string::npos;
  auto spec = isPath ? tilejit::KernelSpec::fromFile(name, device->target, bound)
                     : tilejit::KernelSpec::shipped(name, device->target, bound);
  if (!spec.ok()) return fail(spec.status(), static_cast<const tj_kernel*>(nullptr));
  tilejit::CompiledKernel compiled;
  auto loaded = jit->compiler->load(*device->device, *spec, &compiled);
  if (!loaded.ok()) return fail(loaded.status(), static_cast<const tj_kernel*>(nullptr));
  if (info) {
    *info = tj_compile_info{};
    info->struct_size = sizeof(tj_compile_info);
    info->cache_hit = compiled.cacheHit;
    info->specialize_seconds = compiled.specializeSeconds;
    info->toolchain_seconds = compiled.toolchainSeconds;
    info->total_seconds = compiled.totalSeconds;
    info->registers = int32_t(compiled.metadata.resources.registers);
    info->threads_per_program = int32_t(compiled.metadata.threadsPerProgram);
  }
  // LoadedKernel pointers are stable for the jit's life; the handle is that pointer.
  const auto* handle = reinterpret_cast<const tj_kernel*>(*loaded);
  handles().add(handle, HandleKind::kKernel, {jit, device});
  return handle;
}

TJ_EXPORT int tj_kernel_num_arguments(const tj_kernel* kernel) {
  if (absl::Status ok = handles().check(kernel, HandleKind::kKernel, "tj_kernel_num_arguments", "kernel");
      !ok.ok())
    return fail(ok, -1);
  return int(reinterpret_cast<const tilejit::LoadedKernel*>(kernel)->metadata().args.size());
}

TJ_EXPORT int tj_kernel_argument(const tj_kernel* kernel, int index, tj_argument_info* out) {
  absl::Status usable = firstError(
      {handles().check(kernel, HandleKind::kKernel, "tj_kernel_argument", "kernel"),
       out ? checkStructSize(*out, "tj_kernel_argument", "tj_argument_info")
           : missing("tj_kernel_argument", "out")});
  if (!usable.ok()) return fail(usable, -1);
  const auto& args = reinterpret_cast<const tilejit::LoadedKernel*>(kernel)->metadata().args;
  if (index < 0 || size_t(index) >= args.size())
    return fail(absl::OutOfRangeError(absl::StrCat("tj_kernel_argument: the kernel has ", args.size(),
                                                   " arguments, no argument ", index)),
                -1);
  const tilejit::ArgSpec& arg = args[size_t(index)];
  if (arg.dims.size() > 6)
    return fail(absl::InternalError("tj_kernel_argument: rank above 6"), -1);
  *out = tj_argument_info{};
  out->struct_size = sizeof(tj_argument_info);
  out->name = arg.name.c_str();
  out->is_scalar = arg.kind == tilejit::ArgSpec::Kind::kScalar;
  out->dtype = int32_t(arg.dtype);
  out->rank = int32_t(arg.dims.size());
  for (size_t d = 0; d < arg.dims.size(); ++d) {
    out->dims[d] = arg.dims[d].isSymbolic() ? -1 : arg.dims[d].value;
    out->dim_symbols[d] = arg.dims[d].isSymbolic() ? arg.dims[d].symbol.c_str() : nullptr;
  }
  out->writes = arg.writable;
  out->contiguous = arg.contiguous;
  return 0;
}

TJ_EXPORT int tj_launch(tj_device* device, const tj_kernel* kernel, const tj_arg* args,
                        int num_args, void* stream) {
  if (absl::Status ok = handles().checkKernelFor(kernel, device, "tj_launch"); !ok.ok())
    return fail(ok, -1);
  alignas(tilejit::KernelArg) ArgStorage storage;
  auto converted = convertArgs("tj_launch", args, num_args, storage);
  if (!converted.ok()) return fail(converted.status(), -1);
  const auto* loaded = reinterpret_cast<const tilejit::LoadedKernel*>(kernel);
  absl::Status status = device->device->launch(*loaded, *converted, stream);
  if (!status.ok()) return fail(status, -1);
  return 0;
}

TJ_EXPORT tj_paged_decode* tj_paged_decode_create(tj_jit* jit, tj_device* device,
                                                  const tj_paged_decode_config* config) {
  absl::Status usable = firstError(
      {handles().check(jit, HandleKind::kJit, "tj_paged_decode_create", "jit"),
       handles().check(device, HandleKind::kDevice, "tj_paged_decode_create", "device"),
       config ? checkStructSize(*config, "tj_paged_decode_create", "tj_paged_decode_config")
              : missing("tj_paged_decode_create", "config")});
  if (!usable.ok()) return fail(usable, static_cast<tj_paged_decode*>(nullptr));
  tilejit::PagedDecodeConfig c;
  if (config->dtype) c.dtype = config->dtype;
  if (config->kv_layout) c.kvLayout = config->kv_layout;
  c.headSize = config->head_size;
  c.blockSize = config->block_size;
  c.gqaRatio = config->gqa_ratio;
  c.softCap = config->soft_cap != 0;
  c.alibi = config->alibi != 0;
  c.numSeqs = config->num_seqs;
  c.numKvHeads = config->num_kv_heads;
  c.maxModelLen = config->max_model_len;
  auto tuning = parseAssignments(config->tuning, config->num_tuning);
  if (!tuning.ok()) return fail(tuning.status(), static_cast<tj_paged_decode*>(nullptr));
  c.tuning = *std::move(tuning);
  auto op = tilejit::PagedDecode::create(*jit->compiler, *device->device, c);
  if (!op.ok()) return fail(op.status(), static_cast<tj_paged_decode*>(nullptr));
  auto* handle = new tj_paged_decode{*std::move(op)};
  handles().add(handle, HandleKind::kPagedDecode, {jit, device});
  return handle;
}

TJ_EXPORT void tj_paged_decode_destroy(tj_paged_decode* op) {
  destroyHandle(op, HandleKind::kPagedDecode, "tj_paged_decode_destroy");
}

TJ_EXPORT int64_t tj_paged_decode_partition_size(const tj_paged_decode* op) {
  if (absl::Status ok = handles().check(op, HandleKind::kPagedDecode,
                                        "tj_paged_decode_partition_size", "op");
      !ok.ok())
    return fail(ok, int64_t(-1));
  return op->op.partitionSize();
}

TJ_EXPORT int64_t tj_paged_decode_max_partitions(const tj_paged_decode* op, int64_t max_model_len) {
  if (absl::Status ok = handles().check(op, HandleKind::kPagedDecode,
                                        "tj_paged_decode_max_partitions", "op");
      !ok.ok())
    return fail(ok, int64_t(-1));
  return op->op.maxPartitions(max_model_len);
}

TJ_EXPORT int tj_paged_decode_run(const tj_paged_decode* op, const tj_paged_decode_args* args,
                                  void* stream) {
  absl::Status usable = firstError(
      {handles().check(op, HandleKind::kPagedDecode, "tj_paged_decode_run", "op"),
       args ? checkStructSize(*args, "tj_paged_decode_run", "tj_paged_decode_args")
            : missing("tj_paged_decode_run", "args")});
  if (!usable.ok()) return fail(usable, -1);
  tilejit::PagedDecodeArgs a;
  a.output = toTensor(args->output);
  a.query = toTensor(args->query);
  a.keyCache = toTensor(args->key_cache);
  a.valueCache = toTensor(args->value_cache);
  a.blockTables = toTensor(args->block_tables);
  a.seqLens = toTensor(args->seq_lens);
  a.alibiSlopes = toTensor(args->alibi_slopes);
  a.partialOut = toTensor(args->partial_out);
  a.partialLse = toTensor(args->partial_lse);
  a.arrivals = toTensor(args->arrivals);
  a.scale = args->scale;
  a.softCapValue = args->soft_cap_value;
  a.slidingWindow = args->sliding_window;
  absl::Status status = op->op(a, stream);
  if (!status.ok()) return fail(status, -1);
  return 0;
}

TJ_EXPORT tj_op* tj_op_create(tj_jit* jit, tj_device* device, const char* name,
                              const char* const* params, int num_params) {
  absl::Status usable =
      firstError({handles().check(jit, HandleKind::kJit, "tj_op_create", "jit"),
                  handles().check(device, HandleKind::kDevice, "tj_op_create", "device"),
                  name ? absl::OkStatus() : missing("tj_op_create", "name")});
  if (!usable.ok()) return fail(usable, static_cast<tj_op*>(nullptr));
  auto assignments = assignmentList(params, num_params);
  if (!assignments.ok()) return fail(assignments.status(), static_cast<tj_op*>(nullptr));
  auto op = tilejit::OpRegistry::shipped().create(*jit->compiler, *device->device, name,
                                                  *assignments);
  if (!op.ok()) return fail(op.status(), static_cast<tj_op*>(nullptr));
  auto* handle = new tj_op{*std::move(op)};
  handles().add(handle, HandleKind::kOp, {jit, device});
  return handle;
}

TJ_EXPORT void tj_op_destroy(tj_op* op) {
  destroyHandle(op, HandleKind::kOp, "tj_op_destroy");
}

namespace {
// The count and names of an op's arguments or workspaces.
template <typename Named>
int countOf(const tj_op* op, const char* function, const std::vector<Named>& (tilejit::Op::*list)() const) {
  if (absl::Status ok = handles().check(op, HandleKind::kOp, function, "op"); !ok.ok())
    return fail(ok, -1);
  return int((op->op.get()->*list)().size());
}
template <typename Named>
const char* nameAt(const tj_op* op, int index, const char* function,
                   const std::vector<Named>& (tilejit::Op::*list)() const) {
  if (absl::Status ok = handles().check(op, HandleKind::kOp, function, "op"); !ok.ok())
    return fail(ok, nullptr);
  const std::vector<Named>& items = (op->op.get()->*list)();
  if (index < 0 || size_t(index) >= items.size())
    return fail(absl::OutOfRangeError(std::string(function) + ": no entry " + std::to_string(index)),
                nullptr);
  return items[size_t(index)].name.c_str();
}
}  // namespace

TJ_EXPORT int tj_op_num_arguments(const tj_op* op) {
  return countOf(op, "tj_op_num_arguments", &tilejit::Op::arguments);
}
TJ_EXPORT const char* tj_op_argument_name(const tj_op* op, int index) {
  return nameAt(op, index, "tj_op_argument_name", &tilejit::Op::arguments);
}
TJ_EXPORT int tj_op_num_workspaces(const tj_op* op) {
  return countOf(op, "tj_op_num_workspaces", &tilejit::Op::workspaces);
}
TJ_EXPORT const char* tj_op_workspace_name(const tj_op* op, int index) {
  return nameAt(op, index, "tj_op_workspace_name", &tilejit::Op::workspaces);
}

TJ_EXPORT int64_t tj_op_workspace_size(const tj_op* op, const char* workspace,
                                       const char* const* sizes, int num_sizes, tj_workspace* out) {
  absl::Status usable = firstError(
      {handles().check(op, HandleKind::kOp, "tj_op_workspace_size", "op"),
       workspace ? absl::OkStatus() : missing("tj_op_workspace_size", "workspace"),
       out ? checkStructSize(*out, "tj_op_workspace_size", "tj_workspace") : absl::OkStatus()});
  if (!usable.ok()) return fail(usable, int64_t(-1));
  auto parsed = parseAssignments(sizes, num_sizes);
  if (!parsed.ok()) return fail(parsed.status(), int64_t(-1));
  tilejit::ProblemSizes problem;
  for (const auto& [name, text] : *parsed) {
    char* end = nullptr;
    long long value = std::strtoll(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || value < 0)
      return fail(absl::InvalidArgumentError("tj_op_workspace_size: size " + name + "='" + text +
                                             "' is not a size"),
                  int64_t(-1));
    problem[name] = value;
  }
  auto shape = op->op->workspaceShape(workspace, problem);
  if (!shape.ok()) return fail(shape.status(), int64_t(-1));
  if (shape->shape.size() > 6)
    return fail(absl::InternalError("tj_op_workspace_size: rank above 6"), int64_t(-1));
  if (out) {
    *out = tj_workspace{};
    out->struct_size = sizeof(tj_workspace);
    out->dtype = int32_t(shape->dtype);
    out->rank = int32_t(shape->shape.size());
    std::copy(shape->shape.begin(), shape->shape.end(), out->shape);
    out->bytes = shape->bytes();
    out->zero_once = shape->zeroOnce;
  }
  return shape->bytes();
}

TJ_EXPORT int tj_op_run(const tj_op* op, const tj_arg* args, int num_args, void* stream) {
  if (absl::Status ok = handles().check(op, HandleKind::kOp, "tj_op_run", "op"); !ok.ok())
    return fail(ok, -1);
  alignas(tilejit::KernelArg) ArgStorage storage;
  auto converted = convertArgs("tj_op_run", args, num_args, storage);
  if (!converted.ok()) return fail(converted.status(), -1);
  absl::Status status = op->op->run(*converted, stream);
  if (!status.ok()) return fail(status, -1);
  return 0;
}
