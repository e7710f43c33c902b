// The C ABI's op calls: NULL anywhere is -1 / NULL with tj_last_error set, never a crash; an op
// by name lists its arguments and workspaces and sizes them from problem sizes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "tools/capi/tilejit_c.h"

namespace {

using ::testing::HasSubstr;

std::string lastError() { return tj_last_error(); }

TEST(CApi, NullHandlesFailWithAMessage) {
  tj_arg arg{};
  EXPECT_EQ(tj_op_create(nullptr, nullptr, "paged_decode", nullptr, 0), nullptr);
  EXPECT_THAT(lastError(), HasSubstr("tj_op_create: jit, device or name is NULL"));
  EXPECT_EQ(tj_op_num_arguments(nullptr), -1);
  EXPECT_EQ(tj_op_argument_name(nullptr, 0), nullptr);
  EXPECT_EQ(tj_op_num_workspaces(nullptr), -1);
  EXPECT_EQ(tj_op_workspace_name(nullptr, 0), nullptr);
  EXPECT_EQ(tj_op_workspace_size(nullptr, "arrivals", nullptr, 0, nullptr), -1);
  EXPECT_EQ(tj_op_run(nullptr, &arg, 1, nullptr), -1);
  EXPECT_THAT(lastError(), HasSubstr("tj_op_run: op is NULL"));
  tj_op_destroy(nullptr);
  EXPECT_EQ(tj_device_target(nullptr), nullptr);
  EXPECT_EQ(tj_kernel_load(nullptr, nullptr, nullptr, nullptr, 0, nullptr), nullptr);
  EXPECT_EQ(tj_launch(nullptr, nullptr, nullptr, 0, nullptr), -1);
  EXPECT_EQ(tj_paged_decode_create(nullptr, nullptr, nullptr), nullptr);
  EXPECT_EQ(tj_paged_decode_run(nullptr, nullptr, nullptr), -1);
  EXPECT_EQ(tj_paged_decode_partition_size(nullptr), -1);
  EXPECT_EQ(tj_paged_decode_max_partitions(nullptr, 16), -1);
}

TEST(CApi, OpByNameListsAndSizesItsWorkspaces) {
  tj_jit* jit = tj_jit_create(1);
  ASSERT_NE(jit, nullptr) << lastError();
  tj_device* device = tj_device_create_cpu();
  EXPECT_EQ(tj_op_create(jit, device, nullptr, nullptr, 0), nullptr);
  EXPECT_EQ(tj_op_create(jit, device, "flash_decode", nullptr, 0), nullptr);
  EXPECT_THAT(lastError(), HasSubstr("unknown op 'flash_decode'"));
  const char* bad[] = {"gqa_ratio=abc"};
  EXPECT_EQ(tj_op_create(jit, device, "paged_decode", bad, 1), nullptr);
  EXPECT_THAT(lastError(), HasSubstr("parameter 'gqa_ratio': 'abc' is not an integer"));
  EXPECT_EQ(tj_op_create(jit, device, "paged_decode", nullptr, 1), nullptr);

  const char* params[] = {"gqa_ratio=2", "partition_size=64", "block_n=32"};
  tj_op* op = tj_op_create(jit, device, "paged_decode", params, 3);
  ASSERT_NE(op, nullptr) << lastError();
  EXPECT_EQ(tj_op_num_arguments(op), 16);
  EXPECT_STREQ(tj_op_argument_name(op, 0), "output");
  EXPECT_EQ(tj_op_argument_name(op, 16), nullptr);
  ASSERT_EQ(tj_op_num_workspaces(op), 3);
  EXPECT_STREQ(tj_op_workspace_name(op, 0), "partial_out");
  const char* sizes[] = {"num_seqs=4", "num_kv_heads=2", "max_model_len=100"};
  tj_workspace workspace{};
  EXPECT_EQ(tj_op_workspace_size(op, "partial_lse", sizes, 3, &workspace), 4 * 2 * 4 * 4);
  EXPECT_EQ(workspace.rank, 3);
  EXPECT_EQ(workspace.shape[1], 2);
  EXPECT_EQ(workspace.dtype, TJ_F32);
  EXPECT_EQ(tj_op_workspace_size(op, "arrivals", sizes, 3, &workspace), 4 * 2 * 4);
  EXPECT_EQ(workspace.zero_once, 1);
  EXPECT_EQ(tj_op_workspace_size(op, "partial_out", sizes, 1, nullptr), -1);
  EXPECT_THAT(lastError(), HasSubstr("needs the problem size 'num_kv_heads'"));
  EXPECT_EQ(tj_op_workspace_size(op, nullptr, sizes, 3, nullptr), -1);
  EXPECT_EQ(tj_op_run(op, nullptr, 16, nullptr), -1);
  EXPECT_THAT(lastError(), HasSubstr("tj_op_run: args is NULL"));
  EXPECT_EQ(tj_op_run(op, nullptr, 0, nullptr), -1);
  EXPECT_THAT(lastError(), HasSubstr("takes 16 arguments, not 0"));
  tj_op_destroy(op);
  tj_device_destroy(device);
  tj_jit_destroy(jit);
}

tj_tensor tensorOf(void* data, int32_t dtype, std::vector<int64_t> shape) {
  tj_tensor tensor{};
  tensor.data = data;
  tensor.dtype = dtype;
  tensor.rank = int32_t(shape.size());
  int64_t stride = 1;
  for (int d = tensor.rank - 1; d >= 0; --d) {
    tensor.shape[d] = shape[size_t(d)];
    tensor.strides[d] = stride;
    stride *= shape[size_t(d)];
  }
  return tensor;
}

TEST(CApi, OpRunsThroughTheGenericCall) {
  // merge_attn_states by name on the CPU: equal LSEs weigh 1.0 and 2.0 (bf16) half each.
  tj_jit* jit = tj_jit_create(1);
  tj_device* device = tj_device_create_cpu();
  const char* params[] = {"head_size=64"};
  tj_op* op = tj_op_create(jit, device, "merge_attn_states", params, 1);
  ASSERT_NE(op, nullptr) << lastError();
  ASSERT_EQ(tj_op_num_workspaces(op), 0);
  const int64_t tokens = 3, heads = 2, dim = 64, n = tokens * heads * dim;
  std::vector<uint16_t> output(size_t(n), 0x7FC0), prefix(size_t(n), 0x3F80), suffix(size_t(n), 0x4000);
  std::vector<float> outputLse(size_t(heads * tokens), NAN), lse(size_t(heads * tokens), 0.25f);
  tj_arg args[6] = {};
  args[0].tensor = tensorOf(output.data(), TJ_BF16, {tokens, heads, dim});
  args[1].tensor = tensorOf(outputLse.data(), TJ_F32, {heads, tokens});
  args[2].tensor = tensorOf(prefix.data(), TJ_BF16, {tokens, heads, dim});
  args[3].tensor = tensorOf(lse.data(), TJ_F32, {heads, tokens});
  args[4].tensor = tensorOf(suffix.data(), TJ_BF16, {tokens, heads, dim});
  args[5].tensor = tensorOf(lse.data(), TJ_F32, {heads, tokens});
  ASSERT_EQ(tj_op_run(op, args, 6, nullptr), 0) << lastError();
  for (uint16_t value : output) ASSERT_EQ(value, 0x3FC0);  // 1.5
  for (float value : outputLse) ASSERT_NEAR(value, 0.25 + std::log(2.0), 1e-5);
  tj_op_destroy(op);
  tj_device_destroy(device);
  tj_jit_destroy(jit);
}

}  // namespace
