// The shipped templates end to end on the CPU backend: specialize, emit, compile with the host
// compiler, launch, compare against the float64 reference harness.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "../template_cases.h"
#include "compiler/jit_compiler.h"
#include "tools/harness/kernel_case.h"

namespace tilejit {
namespace {

class TemplatesOnCpu : public ::testing::TestWithParam<testing::TemplateCase> {
 protected:
  static void SetUpTestSuite() {
    device_ = createCpuDevice().release();
    auto jit = JitCompiler::create();  // the cache from $TILEJIT_CACHE_DIR
    ASSERT_TRUE(jit.ok()) << jit.status();
    jit_ = jit->release();
  }
  static void TearDownTestSuite() {
    delete jit_;
    delete device_;
  }
  static Device* device_;
  static JitCompiler* jit_;
};
Device* TemplatesOnCpu::device_ = nullptr;
JitCompiler* TemplatesOnCpu::jit_ = nullptr;

TEST_P(TemplatesOnCpu, MatchesReference) {
  const testing::TemplateCase& param = GetParam();
  auto spec = KernelSpec::shipped(param.templateName, "host", param.parameters);
  ASSERT_TRUE(spec.ok()) << spec.status();
  const KernelCase* kernelCase = findKernelCase(param.templateName);
  ASSERT_NE(kernelCase, nullptr);
  RunOptions options;
  options.shape = param.shape;
  options.iterations = 0;
  for (uint64_t seed : {1u, 2u}) {  // fresh random data per run
    options.seed = seed;
    auto report = runKernelCase(*jit_, *device_, *spec, *kernelCase, options);
    ASSERT_TRUE(report.ok()) << report.status();
    EXPECT_TRUE(report->check.passed) << report->check.detail;
  }
}

INSTANTIATE_TEST_SUITE_P(Shipped, TemplatesOnCpu, ::testing::ValuesIn(testing::templateCases()),
                         [](const auto& info) { return testing::caseName(info.param); });

}  // namespace
}  // namespace tilejit
