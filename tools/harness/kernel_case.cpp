#include "tools/harness/kernel_case.h"

#include <algorithm>
#include <chrono>

#include "absl/strings/str_cat.h"
#include "support/status.h"

namespace tilejit {

const HostArg& argNamed(const HostArgs& args, std::string_view name) {
  for (const HostArg& arg : args)
    if (arg.spec->name == name) return arg;
  std::abort();  // a case names an argument its template does not have: a programming error
}
HostArg& argNamed(HostArgs& args, std::string_view name) {
  return const_cast<HostArg&>(argNamed(static_cast<const HostArgs&>(args), name));
}

absl::StatusOr<RunReport> runKernelCase(JitCompiler& jit, Device& device, const KernelSpec& spec,
                                        const KernelCase& kernelCase, const RunOptions& options) {
  RunReport report;
  auto start = std::chrono::steady_clock::now();
  TJ_ASSIGN_OR_RETURN(const LoadedKernel* kernel, jit.load(device, spec, &report.compiled));
  report.loadSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  TJ_RETURN_IF_ERROR(runKernelCaseOn(
      device, kernel->metadata(), kernelCase, options,
      [&](absl::Span<const KernelArg> args) { return device.launch(*kernel, args); }, report));
  return report;
}

absl::Status runKernelCaseOn(Device& device, const KernelMetadata& metadata,
                             const KernelCase& kernelCase, const RunOptions& options,
                             const std::function<absl::Status(absl::Span<const KernelArg>)>& launch,
                             RunReport& report) {
  report.shape = kernelCase.defaultShape();
  for (const auto& [name, value] : options.shape) report.shape[name] = value;
  HostArgs host;
  for (const ArgSpec& spec : metadata.args) {
    HostArg arg;
    arg.spec = &spec;
    if (spec.kind == ArgSpec::Kind::kView) {
      std::vector<int64_t> dims;
      for (const DimSpec& dim : spec.dims) {
        if (!dim.isSymbolic()) {
          dims.push_back(dim.value);
          continue;
        }
        auto it = report.shape.find(dim.symbol);
        if (it == report.shape.end())
          return absl::InvalidArgumentError(absl::StrCat(
              "shape symbol '", dim.symbol, "' of argument '", spec.name,
              "' has no value: give --shape ", dim.symbol, "=N"));
        dims.push_back(it->second);
      }
      arg.tensor = HostTensor(spec.dtype, dims);
    } else {
      arg.scalar.dtype = spec.dtype;
    }
    host.push_back(std::move(arg));
  }
  std::mt19937_64 rng(options.seed);
  TJ_RETURN_IF_ERROR(kernelCase.fill(host, rng));

  std::vector<DeviceTensor> buffers;
  std::vector<KernelArg> args;
  buffers.reserve(host.size());
  for (const HostArg& arg : host) {
    if (arg.spec->kind == ArgSpec::Kind::kView) {
      TJ_ASSIGN_OR_RETURN(DeviceTensor buffer, DeviceTensor::upload(device, arg.tensor));
      args.emplace_back(buffer.arg());
      buffers.push_back(std::move(buffer));
    } else {
      args.emplace_back(arg.scalar);
    }
  }
  TJ_RETURN_IF_ERROR(launch(args));
  TJ_RETURN_IF_ERROR(device.synchronize());
  HostArgs out = host;
  for (size_t i = 0, b = 0; i < host.size(); ++i)
    if (host[i].spec->kind == ArgSpec::Kind::kView)
      TJ_RETURN_IF_ERROR(buffers[b++].download(out[i].tensor));
  report.check = kernelCase.checkSpecialization(host, out, metadata.parameters);
  report.bytes = kernelCase.bytesMoved(host);

  if (options.iterations > 0) {
    TJ_ASSIGN_OR_RETURN(report.timesMs, device.time([&] { return launch(args); },
                                                    options.warmup, options.iterations));
    std::vector<double> sorted = report.timesMs;
    std::sort(sorted.begin(), sorted.end());
    report.medianMs = sorted[sorted.size() / 2];
  }
  return absl::OkStatus();
}

}  // namespace tilejit
