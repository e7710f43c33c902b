// A test parameterized by AMD target whose ops run on the CPU wave model of that target: the
// model's device and a JIT, with the hip backend routed to the model while the test runs.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "compiler/jit_compiler.h"
#include "runtime/backends/hip/wave_model_device.h"
#include "tests/unit/compiler/hip_wave_model_util.h"

namespace tilejit {
namespace testing {

class WaveModelOpTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    auto device = createWaveModelDevice(GetParam());
    ASSERT_TRUE(device.ok()) << device.status();
    device_ = std::move(*device);
    auto jit = JitCompiler::create();
    ASSERT_TRUE(jit.ok()) << jit.status();
    jit_ = std::move(*jit);
  }
  std::unique_ptr<Device> device_;
  std::unique_ptr<JitCompiler> jit_;
  AmdRoute route_;  // the hip backend compiles for the wave model while a test runs
};

}  // namespace testing
}  // namespace tilejit
