// Shared plumbing of the template suites: one device and one JIT per suite (CPU, or the CUDA
// device with a skip reason when there is none), and the checks each suite runs per case.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>

#include "compiler/jit_compiler.h"
#include "decode_cases.h"
#include "template_cases.h"
#include "tools/harness/kernel_case.h"

namespace tilejit::testing {

enum class SuiteDevice { kCpu, kCuda };

// Owns the suite's device and JIT; `skipReason` is set when the device is absent.
struct SuiteResources {
  std::unique_ptr<Device> device;
  std::unique_ptr<JitCompiler> jit;
  std::string skipReason;

  explicit SuiteResources(SuiteDevice kind) {
    if (kind == SuiteDevice::kCpu) {
      device = createCpuDevice();
    } else {
      auto cuda = createCudaDevice();
      if (!cuda.ok()) {
        skipReason = "no CUDA device: " + std::string(cuda.status().message());
        return;
      }
      device = std::move(*cuda);
    }
    auto created = JitCompiler::create();  // the cache from $TILEJIT_CACHE_DIR
    if (created.ok()) jit = std::move(*created);
    else skipReason = "no JIT: " + std::string(created.status().message());
  }
};

// Parameterized suite over one device: a CUDA suite skips (with the reason) where there is no
// GPU; a CPU suite fails instead, since the CPU is always there.
template <typename Param, SuiteDevice Kind>
class DeviceSuiteTest : public ::testing::TestWithParam<Param> {
 protected:
  static void SetUpTestSuite() { suite_ = new SuiteResources(Kind); }
  static void TearDownTestSuite() {
    delete suite_;
    suite_ = nullptr;
  }
  void SetUp() override {
    if (suite_->skipReason.empty()) return;
    if (Kind == SuiteDevice::kCuda) GTEST_SKIP() << suite_->skipReason;
    FAIL() << suite_->skipReason;
  }
  static inline SuiteResources* suite_ = nullptr;
};

// Runs a shipped template through the reference harness twice, with fresh random data.
inline void expectTemplateCaseMatches(SuiteResources& suite, const TemplateCase& param) {
  auto spec = KernelSpec::shipped(param.templateName, suite.device->target(), param.parameters);
  ASSERT_TRUE(spec.ok()) << spec.status();
  const KernelCase* kernelCase = findKernelCase(param.templateName);
  ASSERT_NE(kernelCase, nullptr);
  RunOptions options;
  options.shape = param.shape;
  options.iterations = 0;
  for (uint64_t seed : {1u, 2u}) {
    options.seed = seed;
    auto report = runKernelCase(*suite.jit, *suite.device, *spec, *kernelCase, options);
    ASSERT_TRUE(report.ok()) << report.status();
    EXPECT_TRUE(report->check.passed) << report->check.detail;
  }
}

// Runs paged decode on the case's edge lengths (plus 32K when asked) for each seed.
inline void expectDecodeCaseMatches(SuiteResources& suite, const DecodeCase& c, bool longContext,
                                    std::initializer_list<uint64_t> seeds) {
  auto op = PagedDecode::create(*suite.jit, *suite.device, c.config);
  ASSERT_TRUE(op.ok()) << op.status();
  DecodeProblem problem;
  problem.numKvHeads = c.numKvHeads;
  problem.numQHeads = c.numKvHeads * c.config.gqaRatio;
  problem.seqLens = decodeLengths(c.config.blockSize, op->partitionSize(), longContext && c.partitions == 0);
  if (c.partitions > 0) {
    const int64_t maxLen = c.partitions * op->partitionSize();
    auto& lens = problem.seqLens;
    lens.erase(std::remove_if(lens.begin(), lens.end(), [&](int64_t n) { return n > maxLen; }),
               lens.end());
    if (c.partitions > 1)  // every partition used, the last one full or one token short
      for (int64_t n : {maxLen, maxLen - 1, maxLen / 2 + 3}) lens.push_back(n);
    problem.maxModelLen = maxLen;
    ASSERT_EQ(op->maxPartitions(problem.maxModelLen), c.partitions);
  }
  problem.softCapValue = c.softCapValue;
  problem.slidingWindow = c.slidingWindow;
  for (uint64_t seed : seeds) {
    problem.seed = seed;
    auto check = checkPagedDecode(*suite.jit, *suite.device, c.config, problem);
    ASSERT_TRUE(check.ok()) << check.status();
    EXPECT_TRUE(check->passed) << check->detail;
  }
}

}  // namespace tilejit::testing
