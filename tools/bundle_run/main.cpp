// tilejit-bundle-run: what a serving engine does with a bundle, with nothing but the runtime
// linked (no MLIR/LLVM, no compiler, no cache): list the kernels, or load every kernel built
// for the device present and time the loads.
//   tilejit-bundle-run BUNDLE --list
//   tilejit-bundle-run BUNDLE --load-all [--cpu]
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/bundle.h"
#include "runtime/device.h"

namespace tilejit {
namespace {

constexpr const char* kUsage = R"(usage: tilejit-bundle-run BUNDLE (--list | --load-all [--cpu] [--launch])
  --launch     also launch each loaded kernel once on zero-filled arguments (shape symbols = 4)
  --list       list the bundle's kernels (template, target, parameters, sizes)
  --load-all   load every kernel built for this machine's device (the GPU if there is one,
               else the CPU); kernels of other targets are skipped with a note
  --cpu        use the CPU device even where a GPU is present
)";

int usageError(const std::string& message) {
  std::fprintf(stderr, "tilejit-bundle-run: %s\n\n%s", message.c_str(), kUsage);
  return 2;
}

void list(const Bundle& bundle) {
  std::printf("%-16s %-20s %-7s %10s  %s\n", "key", "template", "target", "binary", "parameters");
  for (const BundleEntry& entry : bundle.entries()) {
    std::string parameters;
    for (const auto& [name, value] : entry.parameters)
      absl::StrAppend(&parameters, parameters.empty() ? "" : " ", name, "=", value);
    std::printf("%-16s %-20s %-7s %10zu  %s\n", entry.key.substr(0, 16).c_str(),
                entry.templateName.c_str(), entry.target.c_str(), entry.binary.size(),
                parameters.c_str());
  }
  std::printf("%zu kernels\n", bundle.entries().size());
}

// Launches a loaded kernel once on zero-filled arguments with every shape symbol = 4: a smoke
// test that the runtime alone (no compiler) can check, bind and launch what the bundle holds.
absl::Status launchOnZeros(Device& device, const LoadedKernel& kernel) {
  std::vector<void*> buffers;
  std::vector<KernelArg> args;
  absl::Status status = absl::OkStatus();
  for (const ArgSpec& spec : kernel.metadata().args) {
    if (spec.kind == ArgSpec::Kind::kScalar) {
      args.emplace_back(ScalarArg{spec.dtype, 1.0, 0});
      continue;
    }
    TensorArg tensor;
    tensor.dtype = spec.dtype;
    tensor.rank = int(spec.dims.size());
    int64_t elements = 1;
    for (int d = tensor.rank - 1; d >= 0; --d) {
      tensor.shape[d] = spec.dims[size_t(d)].isSymbolic() ? 4 : spec.dims[size_t(d)].value;
      tensor.strides[d] = elements;
      elements *= tensor.shape[d];
    }
    size_t bytes = size_t(std::max<int64_t>(elements * dtypeSize(spec.dtype), 16));
    absl::StatusOr<void*> data = device.allocate(bytes);
    if (!data.ok()) return data.status();
    buffers.push_back(*data);
    std::vector<unsigned char> zeros(bytes, 0);
    if (status.ok()) status = device.copyToDevice(*data, zeros.data(), bytes);
    tensor.data = *data;
    args.emplace_back(tensor);
  }
  if (status.ok()) status = device.launch(kernel, args);
  if (status.ok()) status = device.synchronize();
  for (void* buffer : buffers) (void)device.free(buffer);
  return status;
}

int loadAll(const Bundle& bundle, bool forceCpu, bool launch) {
  std::string whyNotGpu;
  std::unique_ptr<Device> device = forceCpu ? createCpuDevice() : createBestDevice(&whyNotGpu);
  std::printf("device: %s (target %s)%s\n", device->name().c_str(), device->target().c_str(),
              whyNotGpu.empty() ? "" : absl::StrCat("; no GPU: ", whyNotGpu).c_str());
  // Loaded kernels are kept alive until the end, as an engine holding them would.
  std::vector<std::unique_ptr<LoadedKernel>> loaded;
  size_t otherTarget = 0, failed = 0;
  double seconds = 0;
  for (const BundleEntry& entry : bundle.entries()) {
    if (entry.target != device->target()) {
      ++otherTarget;
      std::printf("note: skipped %s for %s (this device is %s)\n", entry.templateName.c_str(),
                  entry.target.c_str(), device->target().c_str());
      continue;
    }
    auto start = std::chrono::steady_clock::now();
    absl::StatusOr<std::unique_ptr<LoadedKernel>> kernel = device->load(entry.metadata, entry.binary);
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!kernel.ok()) {
      ++failed;
      std::printf("FAILED: %s (key %s): %s\n", entry.templateName.c_str(),
                  entry.key.substr(0, 16).c_str(), std::string(kernel.status().message()).c_str());
      continue;
    }
    if (launch) {
      absl::Status launched = launchOnZeros(*device, **kernel);
      std::printf("%s %s (key %s)%s%s\n", launched.ok() ? "launched" : "FAILED to launch",
                  entry.templateName.c_str(), entry.key.substr(0, 16).c_str(),
                  launched.ok() ? "" : ": ", std::string(launched.message()).c_str());
      failed += !launched.ok();
    }
    loaded.push_back(*std::move(kernel));
  }
  std::printf("loaded %zu kernels in %.2f ms (%.3f ms each); %zu for other targets skipped; "
              "%zu failed\n",
              loaded.size(), seconds * 1e3, loaded.empty() ? 0.0 : seconds * 1e3 / loaded.size(),
              otherTarget, failed);
  return failed == 0 ? 0 : 1;
}

}  // namespace
}  // namespace tilejit

int main(int argc, char** argv) {
  using namespace tilejit;
  std::string path;
  bool doList = false, doLoad = false, forceCpu = false, launch = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") return std::printf("%s", kUsage), 0;
    if (arg == "--list") doList = true;
    else if (arg == "--load-all") doLoad = true;
    else if (arg == "--cpu") forceCpu = true;
    else if (arg == "--launch") launch = true;
    else if (!arg.empty() && arg[0] == '-') return usageError("unknown option '" + arg + "'");
    else if (path.empty()) path = arg;
    else return usageError("one BUNDLE only");
  }
  if (path.empty() || doList == doLoad) return usageError("give a BUNDLE and --list or --load-all");
  auto start = std::chrono::steady_clock::now();
  absl::StatusOr<Bundle> bundle = Bundle::open(path);
  if (!bundle.ok()) {
    std::fprintf(stderr, "tilejit-bundle-run: %s\n", std::string(bundle.status().message()).c_str());
    return 2;
  }
  double openMs =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::printf("bundle: %s, %zu kernels, opened and verified in %.2f ms\n", path.c_str(),
              bundle->entries().size(), openMs);
  if (doList) {
    list(*bundle);
    return 0;
  }
  return loadAll(*bundle, forceCpu, launch);
}
