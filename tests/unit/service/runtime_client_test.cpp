// The runtime-only client (service/runtime_loader.h, linked without the compiler by
// tilejit-client): a kernel loaded from the daemon launches on the CPU and computes exactly
// what the in-process JIT's kernel computes, and a warm start costs well under 5 ms a kernel.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "compiler/jit_compiler.h"
#include "daemon_test_util.h"
#include "service/runtime_loader.h"

namespace tilejit {
namespace {

using namespace tilejit::testing;

constexpr int64_t kTokens = 7, kHeads = 3, kHeadSize = 64;

uint16_t toBf16(float value) {
  uint32_t bits = 0;
  std::memcpy(&bits, &value, 4);
  return uint16_t((bits + 0x7fff + ((bits >> 16) & 1)) >> 16);  // round to nearest even
}

// merge_attn_states' inputs (fresh random data) and NaN-poisoned outputs.
struct MergeProblem {
  std::vector<uint16_t> output, prefixOutput, suffixOutput;
  std::vector<float> outputLse, prefixLse, suffixLse;
  explicit MergeProblem(uint64_t seed) {
    std::mt19937_64 random(seed);
    std::uniform_real_distribution<float> values(-2, 2), lses(-3, 3);
    size_t outputs = size_t(kTokens * kHeads * kHeadSize), lsesCount = size_t(kHeads * kTokens);
    for (size_t i = 0; i < outputs; ++i) {
      prefixOutput.push_back(toBf16(values(random)));
      suffixOutput.push_back(toBf16(values(random)));
    }
    for (size_t i = 0; i < lsesCount; ++i) {
      prefixLse.push_back(lses(random));
      suffixLse.push_back(lses(random));
    }
    output.assign(outputs, 0x7fc0);  // bf16 NaN
    outputLse.assign(lsesCount, std::nanf(""));
  }
  std::vector<KernelArg> arguments() {
    return {TensorArg::contiguous(output.data(), DType::kBF16, {kTokens, kHeads, kHeadSize}),
            TensorArg::contiguous(outputLse.data(), DType::kF32, {kHeads, kTokens}),
            TensorArg::contiguous(prefixOutput.data(), DType::kBF16, {kTokens, kHeads, kHeadSize}),
            TensorArg::contiguous(prefixLse.data(), DType::kF32, {kHeads, kTokens}),
            TensorArg::contiguous(suffixOutput.data(), DType::kBF16, {kTokens, kHeads, kHeadSize}),
            TensorArg::contiguous(suffixLse.data(), DType::kF32, {kHeads, kTokens})};
  }
};

// A running daemon, the CPU device and a connection, as an engine process starts.
class RuntimeClient : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(daemon.start(), ""); }
  DaemonScratch scratch;
  DaemonProcess daemon = scratch.daemon();
  std::unique_ptr<Device> device = createCpuDevice();
  service::CompileRequest request = mergeRequest(1);
};

TEST_F(RuntimeClient, LoadsFromTheDaemonAndComputesWhatTheInProcessJitDoes) {
  service::ServiceClient client = daemon.client();
  request.target.clear();  // the device's
  service::ServiceLoadInfo info;
  auto served = service::loadFromService(client, *device, request, &info);
  ASSERT_TRUE(served.ok()) << served.status();
  EXPECT_EQ(info.tier, service::ServedTier::kCompiled);

  ScratchDirectory local("in_process");
  JitOptions options;
  options.compileService = service::CompileServiceMode::kOff;
  options.cache.directory = local.path();
  auto jit = JitCompiler::create(options).value();
  CompiledKernel compiled;
  auto inProcess = jit->load(
      *device,
      KernelSpec::shipped("merge_attn_states", "host",
                          ParameterMap{{"head_size", 64}, {"heads_per_program", 1}})
          .value(),
      &compiled);
  ASSERT_TRUE(inProcess.ok()) << inProcess.status();
  EXPECT_EQ(compiled.key, info.key) << "the daemon and the JIT key the same kernel alike";
  EXPECT_EQ(compiled.source, CacheSource::kComputed) << "compiled here, not shared";

  MergeProblem viaService(11), viaJit(11);
  ASSERT_TRUE(device->launch(**served, viaService.arguments()).ok());
  ASSERT_TRUE(device->launch(**inProcess, viaJit.arguments()).ok());
  ASSERT_TRUE(device->synchronize().ok());
  EXPECT_EQ(viaService.output, viaJit.output);
  EXPECT_EQ(0, std::memcmp(viaService.outputLse.data(), viaJit.outputLse.data(),
                           viaJit.outputLse.size() * sizeof(float)));
  // Written, and a merge: each LSE is at least the larger of its two inputs.
  for (size_t i = 0; i < viaService.outputLse.size(); ++i) {
    ASSERT_FALSE(std::isnan(viaService.outputLse[i])) << "output_lse[" << i << "] unwritten";
    EXPECT_GE(viaService.outputLse[i] + 1e-5f,
              std::max(viaService.prefixLse[i], viaService.suffixLse[i]));
  }
  EXPECT_EQ(std::count(viaService.output.begin(), viaService.output.end(), uint16_t(0x7fc0)), 0);
}

TEST(RuntimeOnlyClient, AWarmStartTakesUnderFiveMillisecondsAKernel) {
  DaemonScratch scratch;
  DaemonProcess daemon = scratch.daemon();
  ASSERT_EQ(daemon.start({"--jobs", "2"}), "");
  std::unique_ptr<Device> device = createCpuDevice();
  std::vector<service::CompileRequest> kernels = {mergeRequest(1), mergeRequest(2)};
  {  // cold: the daemon compiles them once
    service::ServiceClient client = daemon.client();
    for (const auto& request : kernels) ASSERT_TRUE(client.compile(request).ok());
  }
  // Warm: a fresh connection and device, as a new engine process would start.
  std::vector<double> milliseconds;
  for (int round = 0; round < 5; ++round) {
    service::ServiceClient client = daemon.client();
    std::unique_ptr<Device> fresh = createCpuDevice();
    for (const auto& request : kernels) {
      service::ServiceLoadInfo info;
      auto kernel = service::loadFromService(client, *fresh, request, &info);
      ASSERT_TRUE(kernel.ok()) << kernel.status();
      EXPECT_EQ(info.tier, service::ServedTier::kMemory);
      milliseconds.push_back(info.totalSeconds * 1e3);
    }
  }
  std::sort(milliseconds.begin(), milliseconds.end());
  double median = milliseconds[milliseconds.size() / 2];
  std::printf("warm start per kernel: median %.3f ms, max %.3f ms over %zu loads\n", median,
              milliseconds.back(), milliseconds.size());
  EXPECT_LT(median, 5.0);
}

TEST_F(RuntimeClient, AnEntryForAnotherTargetIsNotLoaded) {
  service::ServiceClient client = daemon.client();
  request.target = "gfx942";  // compiles here (LLVM's AMDGPU backend), cannot run on the CPU
  auto kernel = service::loadFromService(client, *device, request);
  ASSERT_FALSE(kernel.ok());
  EXPECT_NE(kernel.status().message().find("gfx942"), std::string::npos) << kernel.status();
}

}  // namespace
}  // namespace tilejit
