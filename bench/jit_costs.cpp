// JIT and launch costs of the shipped templates on the best device present:
//   tilejit_bench_jit cold [LABEL...]
//                            -- compile every template (or the cases LABEL names, in the
//                               order below) with an empty cache (specialize + emit +
//                               toolchain), per template: wall time, the process's CPU time
//                               and the host's steal time over the same span (on a shared
//                               host the wall time swings with its neighbours; the CPU time
//                               is the compile's own work)
//   tilejit_bench_jit warm   -- one fresh process: create the JIT and load every template from
//                               the disk cache (run it several times: the first process
//                               compiles the default parameters, the later ones hit);
//                               `warm preload-nvrtc` first times dlopen of libnvrtc alone
//   tilejit_bench_jit launch -- host cost of Device::launch (median of 10^4 calls) and of one
//                               CUDA graph replay of the same launch; on CUDA also the
//                               driver's floor (cuLaunchKernel of an empty kernel) and what
//                               cuCtxGetCurrent / cuCtxSetCurrent cost alone
//   tilejit_bench_jit validate -- the runtime's own share of that: Device::launch of a grid
//                               with no program (arguments checked, shapes bound, grid
//                               evaluated, nothing handed to the driver), any device
// Prints one JSON object per line.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <sys/resource.h>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/embedded_files.h"
#include "compiler/jit_compiler.h"
#include "runtime/backends/cuda/cuda_driver.h"
#include "support/dynamic_library.h"
#include "tools/harness/kernel_case.h"

namespace tilejit {
namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// CPU seconds used by this process (all threads: nvrtc may run some of its own) and by the
// children it waited for (the host backend's C++ compiler).
double processCpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  rusage children{};
  getrusage(RUSAGE_CHILDREN, &children);
  auto seconds = [](const timeval& v) { return double(v.tv_sec) + 1e-6 * double(v.tv_usec); };
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec) + seconds(children.ru_utime) +
         seconds(children.ru_stime);
}

// Seconds the hypervisor gave this machine's CPUs to others, summed over CPUs (/proc/stat,
// field 8 of the `cpu` line, in USER_HZ = 100 ticks per second); -1 where unreadable.
double hostStealSeconds() {
  std::ifstream stat("/proc/stat");
  std::string cpu;
  long long fields[8] = {};
  if (!(stat >> cpu) || cpu != "cpu") return -1;
  for (long long& f : fields)
    if (!(stat >> f)) return -1;
  return double(fields[7]) / 100.0;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int die(const absl::Status& status) {
  std::fprintf(stderr, "error: %s\n", std::string(status.message()).c_str());
  return 1;
}

int cold(Device& device, const std::vector<std::string>& labels) {
  // Parameters no test compiles, so neither our cache nor nvrtc's own has seen the source
  // (nvrtc 12.9+ also keeps a cache in the driver's: run with CUDA_CACHE_DISABLE=1). The
  // decode twice: head 192 (GQA 6), the figure of every session so far, and the benchmark's
  // head 128 (GQA 4, 64-token tiles, 1024-token partitions) under a label of its own.
  struct Case {
    std::string label, name;
    std::map<std::string, std::string> params;
  };
  const std::vector<Case> cases = {
      {"merge_attn_states", "merge_attn_states", {{"head_size", "192"}}},
      {"reshape_and_cache", "reshape_and_cache", {{"head_size", "192"}}},
      {"paged_decode", "paged_decode", {{"head_size", "192"}, {"gqa_ratio", "6"}}},
      {"paged_decode_head128", "paged_decode",
       {{"head_size", "128"}, {"gqa_ratio", "4"}, {"block_n", "64"}, {"partition_size", "1024"}}},
      {"paged_decode_reduce", "paged_decode_reduce", {{"head_size", "192"}, {"partition_size", "1024"}}},
  };
  for (const std::string& label : labels)
    if (std::none_of(cases.begin(), cases.end(), [&](const Case& c) { return c.label == label; })) {
      std::fprintf(stderr, "tilejit_bench_jit cold: no case named %s\n", label.c_str());
      return 2;
    }
  for (const Case& c : cases) {
    if (!labels.empty() && std::find(labels.begin(), labels.end(), c.label) == labels.end()) continue;
    // Run with a fresh $TILEJIT_CACHE_DIR: every case misses. (`warm` loads the templates'
    // defaults: its first process compiles them, the later ones hit.)
    auto jit = JitCompiler::create();
    if (!jit.ok()) return die(jit.status());
    auto spec = KernelSpec::shipped(c.name, device.target(), c.params);
    if (!spec.ok()) return die(spec.status());
    const double cpuStart = processCpuSeconds(), stealStart = hostStealSeconds();
    auto start = Clock::now();
    CompiledKernel info;
    auto loaded = (*jit)->load(device, *spec, &info);
    const double wall = since(start), cpu = processCpuSeconds() - cpuStart;
    const double steal = stealStart < 0 ? -1 : hostStealSeconds() - stealStart;
    if (!loaded.ok()) {
      std::printf("{\"mode\":\"cold\",\"template\":\"%s\",\"error\":\"%s\"}\n", c.label.c_str(),
                  std::string(loaded.status().message()).substr(0, 200).c_str());
      continue;
    }
    std::printf("{\"mode\":\"cold\",\"template\":\"%s\",\"target\":\"%s\",\"total_s\":%.4f,"
                "\"cpu_s\":%.4f,\"host_steal_s\":%.2f,\"specialize_emit_s\":%.4f,\"toolchain_s\":%.4f,"
                "\"registers\":%lld}\n",
                c.label.c_str(), device.target().c_str(), wall, cpu, steal, info.specializeSeconds,
                info.toolchainSeconds, (long long)info.metadata.resources.registers);
  }
  return 0;
}

int warm(Device& device, bool preloadNvrtc) {
  if (preloadNvrtc) {
    // How much of a warm start is the toolchain's library (its version is in every key).
    auto t = Clock::now();
    auto nvrtc = DynamicLibrary::open({"libnvrtc.so.13", "libnvrtc.so",
                                       "/usr/local/cuda/lib64/libnvrtc.so.13"});
    std::printf("{\"mode\":\"warm\",\"nvrtc_dlopen_s\":%.5f,\"ok\":%d}\n", since(t),
                int(nvrtc.ok()));
    if (nvrtc.ok()) static auto* kept = new DynamicLibrary(*std::move(nvrtc));
  }
  auto start = Clock::now();
  auto jit = JitCompiler::create();
  if (!jit.ok()) return die(jit.status());
  for (const std::string& name : {std::string("merge_attn_states"), std::string("reshape_and_cache")}) {
    auto spec = KernelSpec::shipped(name, device.target());
    if (!spec.ok()) return die(spec.status());
    auto t = Clock::now();
    CompiledKernel info;
    auto loaded = (*jit)->load(device, *spec, &info);
    if (!loaded.ok()) return die(loaded.status());
    std::printf("{\"mode\":\"warm\",\"template\":\"%s\",\"cache_hit\":%d,\"load_s\":%.5f}\n",
                name.c_str(), int(info.cacheHit), since(t));
  }
  std::printf("{\"mode\":\"warm\",\"process_total_s\":%.5f}\n", since(start));
  return 0;
}

// Lookup latency of one kernel through JitCompiler::load: hot = already loaded in this
// process (10^4 calls). Warm (disk, new process) comes from `warm` runs; cold from `cold`.
int hot(Device& device) {
  auto jit = JitCompiler::create();
  if (!jit.ok()) return die(jit.status());
  auto spec = KernelSpec::shipped("reshape_and_cache", device.target());
  if (!spec.ok()) return die(spec.status());
  if (auto first = (*jit)->load(device, *spec); !first.ok()) return die(first.status());
  std::vector<double> us;
  for (int i = 0; i < 10000; ++i) {
    auto t = Clock::now();
    auto kernel = (*jit)->load(device, *spec);
    us.push_back(since(t) * 1e6);
    if (!kernel.ok()) return die(kernel.status());
  }
  std::sort(us.begin(), us.end());
  std::printf("{\"mode\":\"hot\",\"median_us\":%.2f,\"p99_us\":%.2f}\n", us[us.size() / 2],
              us[us.size() * 99 / 100]);
  return 0;
}

// The shipped merge_attn_states on `device`, the kernel of the launch figures (`jit` keeps it).
absl::StatusOr<const LoadedKernel*> shippedMerge(Device& device, std::unique_ptr<JitCompiler>& jit) {
  auto created = JitCompiler::create();
  if (!created.ok()) return created.status();
  jit = std::move(*created);
  auto spec = KernelSpec::shipped("merge_attn_states", device.target());
  if (!spec.ok()) return spec.status();
  return jit->load(device, *spec);
}

// The driver's own cost on this host, for comparison with Device::launch: cuLaunchKernel of
// an empty kernel that takes one argument struct of merge_attn_states' size (6 views: 288
// bytes) through the same `extra` buffer, nothing checked, the context already current.
int driverFloor(const std::string& target) {
  auto api = cuda::driver();
  if (!api.ok()) return die(api.status());
  std::string ptx = absl::StrCat(".version 8.0\n.target ", target,
                                 "\n.address_size 64\n"
                                 ".visible .entry tj_empty(.param .align 8 .b8 args[288])\n{\n\tret;\n}\n");
  auto module = cuda::Module::load(ptx.c_str());
  if (!module.ok()) return die(module.status());
  auto function = module->function("tj_empty");
  if (!function.ok()) return die(function.status());
  alignas(8) unsigned char args[288] = {};
  size_t size = sizeof(args);
  void* extra[] = {cuda::CU_LAUNCH_PARAM_BUFFER_POINTER, args, cuda::CU_LAUNCH_PARAM_BUFFER_SIZE, &size,
                   cuda::CU_LAUNCH_PARAM_END};
  std::vector<double> costs;
  for (int i = 0; i < 10000; ++i) {
    auto t = Clock::now();
    absl::Status status =
        TJ_CU_CHECK(**api, cuLaunchKernel, *function, 1u, 1u, 1u, 32u, 1u, 1u, 0u, nullptr, nullptr, extra);
    costs.push_back(since(t) * 1e6);
    if (!status.ok()) return die(status);
    if (i % 256 == 255) (void)TJ_CU_CHECK(**api, cuCtxSynchronize);
  }
  (void)TJ_CU_CHECK(**api, cuCtxSynchronize);
  std::printf("{\"mode\":\"driver_floor\",\"median_us\":%.3f}\n", median(costs));
  // What each launch's making the context current costs: the check Device::launch does, and
  // the set it skips where the context already is current.
  cuda::CUcontext current = nullptr;
  std::vector<double> gets, sets;
  for (int i = 0; i < 10000; ++i) {
    auto t = Clock::now();
    (void)(*api)->cuCtxGetCurrent(&current);
    gets.push_back(since(t) * 1e6);
    t = Clock::now();
    (void)(*api)->cuCtxSetCurrent(current);
    sets.push_back(since(t) * 1e6);
  }
  std::printf("{\"mode\":\"context_calls\",\"get_current_us\":%.3f,\"set_current_us\":%.3f}\n",
              median(gets), median(sets));
  return 0;
}

// Host cost (us) of each of `count` Device::launch calls; with `drain`, synchronized every 256
// calls so that the launch queue never fills.
absl::StatusOr<std::vector<double>> launchCosts(Device& device, const LoadedKernel& kernel,
                                                const std::vector<KernelArg>& args, int count, bool drain) {
  std::vector<double> costs;
  for (int i = 0; i < count; ++i) {
    auto t = Clock::now();
    absl::Status status = device.launch(kernel, args);
    costs.push_back(since(t) * 1e6);
    if (!status.ok()) return status;
    if (drain && i % 256 == 255) (void)device.synchronize();
  }
  return costs;
}

int launch(Device& device) {
  std::unique_ptr<JitCompiler> jit;
  auto kernel = shippedMerge(device, jit);
  if (!kernel.ok()) return die(kernel.status());
  // A small problem so the GPU keeps up with the host: 64 tokens x 8 heads x 128.
  const int64_t tokens = 64, heads = 8, dim = 128;
  std::vector<void*> buffers;
  auto alloc = [&](size_t bytes) {
    auto p = device.allocate(bytes);
    buffers.push_back(p.ok() ? *p : nullptr);
    return buffers.back();
  };
  TensorArg out = TensorArg::contiguous(alloc(tokens * heads * dim * 2), DType::kBF16, {tokens, heads, dim});
  TensorArg lse = TensorArg::contiguous(alloc(tokens * heads * 4), DType::kF32, {heads, tokens});
  std::vector<KernelArg> args = {out, lse, out, lse, out, lse};
  for (int i = 0; i < 100; ++i) (void)device.launch(**kernel, args);
  (void)device.synchronize();
  auto costs = launchCosts(device, **kernel, args, 10000, /*drain=*/true);
  if (!costs.ok()) return die(costs.status());
  (void)device.synchronize();
  std::printf("{\"mode\":\"launch\",\"device\":\"%s\",\"median_us\":%.3f,\"p99_us\":%.3f}\n",
              device.name().c_str(), median(*costs),
              [&] { auto c = *costs; std::sort(c.begin(), c.end()); return c[c.size() * 99 / 100]; }());
  if (device.target() != "host") {
    auto stream = cuda::CudaStream::create();
    if (!stream.ok()) return die(stream.status());
    if (auto s = stream->beginCapture(); !s.ok()) return die(s);
    if (auto s = device.launch(**kernel, args, stream->handle()); !s.ok()) return die(s);
    auto graph = stream->endCapture();
    if (!graph.ok()) return die(graph.status());
    std::vector<double> replays;
    for (int i = 0; i < 2000; ++i) {
      auto t = Clock::now();
      if (auto s = graph->launch(stream->handle()); !s.ok()) return die(s);
      replays.push_back(since(t) * 1e6);
      if (i % 256 == 255) (void)stream->synchronize();
    }
    (void)stream->synchronize();
    std::printf("{\"mode\":\"graph_replay\",\"median_us\":%.3f}\n", median(replays));
    if (int failed = driverFloor(device.target())) return failed;
  }
  for (void* p : buffers) (void)device.free(p);
  return 0;
}

int validate(Device& device) {
  std::unique_ptr<JitCompiler> jit;
  auto kernel = shippedMerge(device, jit);
  if (!kernel.ok()) return die(kernel.status());
  // num_tokens 0: grid x is 0, so launch returns after everything but the driver call.
  const int64_t heads = 8, dim = 128;
  auto buffer = device.allocate(heads * dim * 2);
  if (!buffer.ok()) return die(buffer.status());
  TensorArg out = TensorArg::contiguous(*buffer, DType::kBF16, {0, heads, dim});
  TensorArg lse = TensorArg::contiguous(*buffer, DType::kF32, {heads, 0});
  std::vector<KernelArg> args = {out, lse, out, lse, out, lse};
  auto costs = launchCosts(device, **kernel, args, 100000, /*drain=*/false);
  if (!costs.ok()) return die(costs.status());
  std::printf("{\"mode\":\"validate\",\"device\":\"%s\",\"median_us\":%.3f}\n",
              device.name().c_str(), median(*costs));
  (void)device.free(*buffer);
  return 0;
}

}  // namespace
}  // namespace tilejit

int main(int argc, char** argv) {
  using namespace tilejit;
  std::string mode = argc > 1 ? argv[1] : "";
  std::string why;
  std::unique_ptr<Device> device = createBestDevice(&why);
  if (mode == "cold") return cold(*device, std::vector<std::string>(argv + 2, argv + argc));
  if (mode == "warm") return warm(*device, argc > 2 && std::string(argv[2]) == "preload-nvrtc");
  if (mode == "launch") return launch(*device);
  if (mode == "hot") return hot(*device);
  if (mode == "validate") return validate(*device);
  std::fprintf(stderr, "usage: tilejit_bench_jit cold|warm|hot|launch|validate\n");
  return 2;
}
