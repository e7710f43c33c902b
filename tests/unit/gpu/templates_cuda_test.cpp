// The shipped templates end to end on the CUDA device (nvrtc CUBIN for the device's exact
// sm_XX), against the same float64 references as the CPU suite. Skips without a GPU.
#include <gtest/gtest.h>

#include "../device_suite.h"

namespace tilejit {
namespace {

using TemplatesOnCuda = testing::DeviceSuiteTest<testing::TemplateCase, testing::SuiteDevice::kCuda>;

TEST_P(TemplatesOnCuda, MatchesReference) { testing::expectTemplateCaseMatches(*suite_, GetParam()); }

INSTANTIATE_TEST_SUITE_P(Shipped, TemplatesOnCuda, ::testing::ValuesIn(testing::templateCases()),
                         [](const auto& info) { return testing::caseName(info.param); });

}  // namespace
}  // namespace tilejit
