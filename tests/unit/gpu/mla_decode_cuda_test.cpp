// MLA decode on the CUDA device against the float64 reference (NaN-poisoned unused blocks and
// tails, shuffled tables, poisoned outputs): block 16 and 64, 16 to 128 q heads, lengths at
// block, tile and partition edges, contexts to 32K, the target's tuning and 32 q rows, 2 and 4
// query tokens a sequence; and a
// cache past 2^31 elements (every latent read sits past element 2^31: 64-bit addressing).
#include <gtest/gtest.h>

#include "../device_suite.h"
#include "../mla_cases.h"

namespace tilejit {
namespace {

struct MlaCudaCase {
  std::string name;
  std::vector<std::string> config;
  MlaProblem problem;
};

std::vector<MlaCudaCase> cases() {
  using testing::mlaProblem;
  const std::vector<int64_t> edges = {0, 1, 15, 16, 17, 31, 32, 33, 1023, 1024, 1025, 2049};
  std::vector<MlaCudaCase> all;
  for (int64_t block : {16, 64})
    for (int64_t heads : {16, 32, 64, 128}) {
      const std::string name = "Block" + std::to_string(block) + "Heads" + std::to_string(heads);
      all.push_back({name, {"block_size=" + std::to_string(block)}, mlaProblem(heads, edges)});
    }
  all.push_back({"Block64Heads16Context32K", {"block_size=64"}, mlaProblem(16, {32768, 20000, 1})});
  all.push_back({"Block16Heads128Context4K", {"block_size=16"}, mlaProblem(128, {4096, 4000})});
  all.push_back({"Block64Heads128Rows32", {"block_size=64", "q_rows=32"},
                 mlaProblem(128, {1, 1024, 3000})});
  all.push_back({"Block1Heads16", {"block_size=1"}, mlaProblem(16, {1, 100, 1500})});
  all.push_back({"Block256Heads16", {"block_size=256"}, mlaProblem(16, {1, 255, 256, 2000})});
  // MTP / speculative verify: 2 and 4 new tokens a sequence, causal among themselves.
  all.push_back({"QLen2Block64Heads128", {"block_size=64", "q_len=2"},
                 mlaProblem(128, {2, 1025, 4096}, 0, 2)});
  all.push_back({"QLen4Block16Heads16", {"block_size=16", "q_len=4"},
                 mlaProblem(16, {4, 1027, 32768}, 0, 4)});
  all.push_back({"OnePartition", {"block_size=64", "partition_size=4096"},
                 mlaProblem(16, {0, 1, 4096})});
  return all;
}

using MlaDecodeOnCuda = testing::DeviceSuiteTest<MlaCudaCase, testing::SuiteDevice::kCuda>;

TEST_P(MlaDecodeOnCuda, MatchesReference) {
  auto check = testing::checkMlaCase(*suite_->jit, *suite_->device, GetParam().config,
                                     GetParam().problem);
  ASSERT_TRUE(check.ok()) << check.status();
  EXPECT_TRUE(check->passed) << check->detail;
}

INSTANTIATE_TEST_SUITE_P(Domain, MlaDecodeOnCuda, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return info.param.name; });

// 2^31 / (64 x 576) = 58254.2 blocks below the sequences' (4.3 GB of bf16 NaN): every latent
// read and every table-derived offset is past 2^31 elements. A kernel with 32-bit offsets reads
// the wrong (NaN) blocks or faults.
using MlaDecodePast2To31 = testing::DeviceSuiteTest<int, testing::SuiteDevice::kCuda>;

TEST_P(MlaDecodePast2To31, MatchesReference) {
  MlaProblem problem = testing::mlaProblem(16, {1, 4096, 2100});
  problem.padBlocks = (int64_t(1) << 31) / (64 * 576) + 1;
  auto check = testing::checkMlaCase(*suite_->jit, *suite_->device, {"block_size=64"}, problem);
  ASSERT_TRUE(check.ok()) << check.status();
  EXPECT_TRUE(check->passed) << check->detail;
}

INSTANTIATE_TEST_SUITE_P(Cache, MlaDecodePast2To31, ::testing::Values(0));

}  // namespace
}  // namespace tilejit
