// The shipped templates end to end on the CUDA device (nvrtc CUBIN for the device's exact
// sm_XX), against the same float64 references as the CPU suite. Skips without a GPU.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "../template_cases.h"
#include "compiler/jit_compiler.h"
#include "tools/harness/kernel_case.h"

namespace tilejit {
namespace {

class TemplatesOnCuda : public ::testing::TestWithParam<testing::TemplateCase> {
 protected:
  static void SetUpTestSuite() {
    auto device = createCudaDevice();
    if (!device.ok()) {
      skipReason_ = new std::string(device.status().message());
      return;
    }
    device_ = device->release();
    auto jit = JitCompiler::create();
    ASSERT_TRUE(jit.ok()) << jit.status();
    jit_ = jit->release();
  }
  static void TearDownTestSuite() {
    delete jit_;
    delete device_;
  }
  void SetUp() override {
    if (!device_) GTEST_SKIP() << "no CUDA device: " << *skipReason_;
  }
  static Device* device_;
  static JitCompiler* jit_;
  static std::string* skipReason_;
};
Device* TemplatesOnCuda::device_ = nullptr;
JitCompiler* TemplatesOnCuda::jit_ = nullptr;
std::string* TemplatesOnCuda::skipReason_ = nullptr;

TEST_P(TemplatesOnCuda, MatchesReference) {
  const testing::TemplateCase& param = GetParam();
  auto spec = KernelSpec::shipped(param.templateName, device_->target(), param.parameters);
  ASSERT_TRUE(spec.ok()) << spec.status();
  const KernelCase* kernelCase = findKernelCase(param.templateName);
  ASSERT_NE(kernelCase, nullptr);
  RunOptions options;
  options.shape = param.shape;
  options.iterations = 0;
  for (uint64_t seed : {1u, 2u}) {
    options.seed = seed;
    auto report = runKernelCase(*jit_, *device_, *spec, *kernelCase, options);
    ASSERT_TRUE(report.ok()) << report.status();
    EXPECT_TRUE(report->check.passed) << report->check.detail;
  }
}

INSTANTIATE_TEST_SUITE_P(Shipped, TemplatesOnCuda, ::testing::ValuesIn(testing::templateCases()),
                         [](const auto& info) { return testing::caseName(info.param); });

}  // namespace
}  // namespace tilejit
