// The shipped templates end to end on the CPU backend: specialize, emit, compile with the host
// compiler, launch, compare against the float64 reference harness.
#include <gtest/gtest.h>

#include "../device_suite.h"

namespace tilejit {
namespace {

using TemplatesOnCpu = testing::DeviceSuiteTest<testing::TemplateCase, testing::SuiteDevice::kCpu>;

TEST_P(TemplatesOnCpu, MatchesReference) {
  testing::expectTemplateCaseMatches(*suite_, GetParam());
}

INSTANTIATE_TEST_SUITE_P(Shipped, TemplatesOnCpu, ::testing::ValuesIn(testing::templateCases()),
                         [](const auto& info) { return testing::caseName(info.param); });

}  // namespace
}  // namespace tilejit
