// One engine process's start-up through the JIT (bench/bench_startup.py runs eight at once):
// create the JIT, load every kernel of a kernel list (service/kernel_list.h) on the best
// device (or the CPU), print one JSON object: per kernel the milliseconds and where the code
// object came from, and the whole start-up. The JIT's environment decides the route
// (TILEJIT_CACHE_DIR, TILEJIT_COMPILE_SERVICE, TILEJIT_REDIS_URL, ...).
//   tilejit_bench_startup_loader LIST_FILE [--cpu]
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "compiler/jit_compiler.h"
#include "service/kernel_list.h"

namespace tilejit {
namespace {

using Clock = std::chrono::steady_clock;
double millisecondsSince(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

const char* sourceName(const CompiledKernel& info) {
  if (info.fromService) return info.source == CacheSource::kComputed ? "daemon-compile" : "daemon";
  switch (info.source) {
    case CacheSource::kMemory: return "memory";
    case CacheSource::kDisk: return "disk";
    case CacheSource::kFleet: return "redis";
    case CacheSource::kComputed: return "compile";
  }
  return "?";
}

int run(int argc, char** argv) {
  auto start = Clock::now();
  if (argc < 2) {
    std::fprintf(stderr, "usage: tilejit_bench_startup_loader LIST_FILE [--cpu]\n");
    return 2;
  }
  bool forceCpu = argc > 2 && std::strcmp(argv[2], "--cpu") == 0;
  std::ifstream in(argv[1]);
  std::stringstream text;
  text << in.rdbuf();
  absl::StatusOr<std::vector<service::CompileRequest>> requests = service::parseKernelList(text.str());
  if (!requests.ok()) {
    std::fprintf(stderr, "%s\n", std::string(requests.status().message()).c_str());
    return 2;
  }
  std::unique_ptr<Device> device = forceCpu ? createCpuDevice() : createBestDevice();
  absl::StatusOr<std::unique_ptr<JitCompiler>> jit = JitCompiler::create();
  if (!jit.ok()) return 1;
  std::string rows;
  for (const service::CompileRequest& request : *requests) {
    auto kernelStart = Clock::now();
    ParameterMap parameters(request.parameters.begin(), request.parameters.end());
    absl::StatusOr<KernelSpec> spec =
        KernelSpec::shipped(request.templateRef, device->target(), std::move(parameters));
    CompiledKernel info;
    absl::StatusOr<const LoadedKernel*> kernel =
        spec.ok() ? (*jit)->load(*device, *spec, &info) : spec.status();
    if (!kernel.ok()) {
      std::fprintf(stderr, "%s: %s\n", request.templateRef.c_str(),
                   std::string(kernel.status().message()).c_str());
      return 1;
    }
    absl::StrAppendFormat(&rows, "%s{\"template\": \"%s\", \"source\": \"%s\", \"ms\": %.4f}",
                          rows.empty() ? "" : ", ", request.templateRef, sourceName(info),
                          millisecondsSince(kernelStart));
  }
  std::printf("{\"device\": \"%s\", \"kernels\": [%s], \"total_ms\": %.4f}\n",
              device->target().c_str(), rows.c_str(), millisecondsSince(start));
  return 0;
}

}  // namespace
}  // namespace tilejit

int main(int argc, char** argv) { return tilejit::run(argc, argv); }
