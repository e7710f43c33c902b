// The C ABI: NULL, destroyed, mistyped or foreign handles and structs of another size are -1 /
// NULL with tj_last_error set, never a crash; a handle others use is not destroyed; an op by
// name lists its arguments and workspaces and sizes them; bundles open, list and load.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "tools/capi/tilejit_c.h"
#include "runtime/bundle.h"
#include "compiler/jit_compiler.h"

namespace {

using ::testing::HasSubstr;

std::string lastError() { return tj_last_error(); }

TEST(CApi, NullHandlesFailWithAMessage) {
  tj_arg arg{};
  EXPECT_EQ(tj_op_create(nullptr, nullptr, "paged_decode", nullptr, 0), nullptr);
  EXPECT_THAT(lastError(), HasSubstr("tj_op_create: jit is NULL"));
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
  EXPECT_EQ(tj_bundle_open(nullptr), nullptr);
  EXPECT_EQ(tj_bundle_num_entries(nullptr), -1);
  EXPECT_EQ(tj_bundle_load(nullptr, nullptr, nullptr, nullptr, 0), nullptr);
  EXPECT_THAT(lastError(), HasSubstr("tj_bundle_load: bundle is NULL"));
  tj_bundle_destroy(nullptr);
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
  tj_workspace workspace{sizeof(tj_workspace)};
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

// merge_attn_states' arguments at head size 64 where equal LSEs weigh 1.0 and 2.0 (bf16) half
// each: the merged output is 1.5 and the LSE 0.25 + log 2.
struct MergeProblem {
  MergeProblem(int64_t tokens, int64_t heads)
      : n(tokens * heads * 64), output(size_t(n), 0x7FC0), prefix(size_t(n), 0x3F80),
        suffix(size_t(n), 0x4000), outputLse(size_t(heads * tokens), NAN),
        lse(size_t(heads * tokens), 0.25f) {
    args[0].tensor = tensorOf(output.data(), TJ_BF16, {tokens, heads, 64});
    args[1].tensor = tensorOf(outputLse.data(), TJ_F32, {heads, tokens});
    args[2].tensor = tensorOf(prefix.data(), TJ_BF16, {tokens, heads, 64});
    args[3].tensor = tensorOf(lse.data(), TJ_F32, {heads, tokens});
    args[4].tensor = tensorOf(suffix.data(), TJ_BF16, {tokens, heads, 64});
    args[5].tensor = tensorOf(lse.data(), TJ_F32, {heads, tokens});
  }
  void expectMerged() const {
    for (uint16_t value : output) ASSERT_EQ(value, 0x3FC0);  // 1.5
    for (float value : outputLse) ASSERT_NEAR(value, 0.25 + std::log(2.0), 1e-5);
  }
  int64_t n;
  std::vector<uint16_t> output, prefix, suffix;
  std::vector<float> outputLse, lse;
  tj_arg args[6] = {};
};

TEST(CApi, OpRunsThroughTheGenericCall) {
  // merge_attn_states by name on the CPU.
  tj_jit* jit = tj_jit_create(1);
  tj_device* device = tj_device_create_cpu();
  const char* params[] = {"head_size=64"};
  tj_op* op = tj_op_create(jit, device, "merge_attn_states", params, 1);
  ASSERT_NE(op, nullptr) << lastError();
  ASSERT_EQ(tj_op_num_workspaces(op), 0);
  MergeProblem merge(3, 2);
  ASSERT_EQ(tj_op_run(op, merge.args, 6, nullptr), 0) << lastError();
  merge.expectMerged();
  tj_op_destroy(op);
  tj_device_destroy(device);
  tj_jit_destroy(jit);
}

TEST(CApi, ReportsItsAbiVersion) { EXPECT_EQ(tj_abi_version(), TJ_ABI_VERSION); }

TEST(CApi, DestroyedAndMistypedHandlesFailWithAMessage) {
  tj_jit* jit = tj_jit_create(0);
  tj_device* device = tj_device_create_cpu();
  const char* params[] = {"head_size=64"};
  tj_op* op = tj_op_create(jit, device, "merge_attn_states", params, 1);
  ASSERT_NE(op, nullptr) << lastError();
  tj_op_destroy(op);
  EXPECT_EQ(tj_op_num_arguments(op), -1) << "a destroyed op was used";
  EXPECT_THAT(lastError(), HasSubstr("is not a live tj_op (destroyed, or not made by this library)"));
  tj_op_destroy(op);  // a second destroy is an error, not a double free
  EXPECT_THAT(lastError(), HasSubstr("tj_op_destroy"));
  // A jit passed where an op is expected, and a pointer the library never made.
  EXPECT_EQ(tj_op_num_arguments(reinterpret_cast<tj_op*>(jit)), -1);
  EXPECT_THAT(lastError(), HasSubstr("is a tj_jit, not a tj_op"));
  int stray = 0;
  EXPECT_EQ(tj_device_target(reinterpret_cast<tj_device*>(&stray)), nullptr);
  EXPECT_THAT(lastError(), HasSubstr("is not a live tj_device"));
  tj_device_destroy(device);
  tj_jit_destroy(jit);
}

TEST(CApi, HandlesInUseAreNotDestroyed) {
  tj_jit* jit = tj_jit_create(0);
  tj_device* device = tj_device_create_cpu();
  const char* params[] = {"head_size=64"};
  tj_op* op = tj_op_create(jit, device, "merge_attn_states", params, 1);
  ASSERT_NE(op, nullptr) << lastError();
  tj_jit_destroy(jit);
  EXPECT_THAT(lastError(), HasSubstr("1 live handle still use this tj_jit"));
  tj_device_destroy(device);
  EXPECT_THAT(lastError(), HasSubstr("still use this tj_device"));
  EXPECT_EQ(tj_op_num_arguments(op), 6) << "the op's jit was destroyed under it";
  tj_op_destroy(op);
  tj_device_destroy(device);
  tj_jit_destroy(jit);
  EXPECT_EQ(tj_device_target(device), nullptr);
}

TEST(CApi, KernelsLaunchOnlyOnTheirDeviceAndDieWithTheirJit) {
  tj_jit* jit = tj_jit_create(0);
  tj_device* device = tj_device_create_cpu();
  tj_device* other = tj_device_create_cpu();
  const char* params[] = {"head_size=64"};
  tj_compile_info info{sizeof(tj_compile_info)};
  const tj_kernel* kernel = tj_kernel_load(jit, device, "merge_attn_states", params, 1, &info);
  ASSERT_NE(kernel, nullptr) << lastError();
  EXPECT_GT(info.total_seconds, 0.0);
  ASSERT_EQ(tj_kernel_num_arguments(kernel), 6);
  tj_argument_info arg{sizeof(tj_argument_info)};
  ASSERT_EQ(tj_kernel_argument(kernel, 0, &arg), 0) << lastError();
  EXPECT_STREQ(arg.name, "output");
  EXPECT_EQ(arg.dtype, TJ_BF16);
  ASSERT_EQ(arg.rank, 3);
  EXPECT_STREQ(arg.dim_symbols[0], "num_tokens");
  EXPECT_EQ(arg.dims[0], -1);
  EXPECT_EQ(arg.dims[2], 64);
  EXPECT_EQ(arg.dim_symbols[2], nullptr);
  EXPECT_EQ(arg.writes, 1);
  ASSERT_EQ(tj_kernel_argument(kernel, 3, &arg), 0);
  EXPECT_STREQ(arg.name, "prefix_lse");
  EXPECT_EQ(arg.writes, 0);
  EXPECT_EQ(tj_kernel_argument(kernel, 6, &arg), -1);
  EXPECT_THAT(lastError(), HasSubstr("no argument 6"));
  tj_argument_info unsized{};
  EXPECT_EQ(tj_kernel_argument(kernel, 0, &unsized), -1);
  EXPECT_THAT(lastError(), HasSubstr("tj_argument_info.struct_size is 0"));
  EXPECT_EQ(tj_launch(other, kernel, nullptr, 0, nullptr), -1);
  EXPECT_THAT(lastError(), HasSubstr("was loaded for another device"));
  tj_jit_destroy(jit);
  EXPECT_EQ(tj_launch(device, kernel, nullptr, 0, nullptr), -1);
  EXPECT_THAT(lastError(), HasSubstr("is not a live tj_kernel"));
  tj_device_destroy(other);
  tj_device_destroy(device);
}

TEST(CApi, StructsOfAnotherSizeAreRefused) {
  tj_jit* jit = tj_jit_create(0);
  tj_device* device = tj_device_create_cpu();
  tj_paged_decode_config config{};
  config.head_size = 128;
  config.block_size = 16;
  config.gqa_ratio = 1;
  EXPECT_EQ(tj_paged_decode_create(jit, device, &config), nullptr);
  EXPECT_THAT(lastError(), HasSubstr("tj_paged_decode_config.struct_size is 0; this library's "
                                     "tj_paged_decode_config is"));
  config.struct_size = sizeof config - 8;  // a caller built against an older, smaller struct
  EXPECT_EQ(tj_paged_decode_create(jit, device, &config), nullptr);
  config.struct_size = sizeof config;
  tj_paged_decode* op = tj_paged_decode_create(jit, device, &config);
  ASSERT_NE(op, nullptr) << lastError();
  tj_paged_decode_args args{};
  EXPECT_EQ(tj_paged_decode_run(op, &args, nullptr), -1);
  EXPECT_THAT(lastError(), HasSubstr("tj_paged_decode_args.struct_size is 0"));
  tj_compile_info info{};
  const char* params[] = {"head_size=64"};
  EXPECT_EQ(tj_kernel_load(jit, device, "merge_attn_states", params, 1, &info), nullptr);
  EXPECT_THAT(lastError(), HasSubstr("tj_compile_info.struct_size is 0"));
  tj_paged_decode_destroy(op);
  tj_device_destroy(device);
  tj_jit_destroy(jit);
}

TEST(CApi, BundlesOpenListAndLoadWithoutCompiling) {
  char pattern[] = "/tmp/tj_capi_bundle_XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  std::string path = std::string(pattern) + "/k.tjb";
  {  // a bundle of merge_attn_states for the CPU at two head sizes
    auto jit = tilejit::JitCompiler::create({.useDiskCache = false}).value();
    tilejit::BundleWriter writer;
    for (const char* head : {"64", "128"}) {
      auto spec = tilejit::KernelSpec::shipped("merge_attn_states", "host",
                                               std::map<std::string, std::string>{{"head_size", head}});
      tilejit::CompiledKernel kernel = jit->compile(*spec).value();
      tilejit::BundleEntry entry;
      entry.key = kernel.key;
      entry.templateName = kernel.metadata.templateName;
      entry.target = kernel.metadata.target;
      for (const auto& [name, value] : kernel.metadata.parameters) entry.parameters[name] = value;
      entry.metadataJson = tilejit::serializeMetadata(kernel.metadata);
      entry.binary = kernel.binary;
      ASSERT_TRUE(writer.add(std::move(entry)).ok());
    }
    ASSERT_TRUE(writer.write(path).ok());
  }
  tj_device* device = tj_device_create_cpu();
  tj_bundle* bundle = tj_bundle_open(path.c_str());
  ASSERT_NE(bundle, nullptr) << lastError();
  ASSERT_EQ(tj_bundle_num_entries(bundle), 2);
  EXPECT_STREQ(tj_bundle_entry_template(bundle, 1), "merge_attn_states");
  EXPECT_STREQ(tj_bundle_entry_target(bundle, 1), "host");
  EXPECT_THAT(tj_bundle_entry_parameters(bundle, 1), HasSubstr("head_size=128\n"));
  EXPECT_EQ(tj_bundle_entry_template(bundle, 2), nullptr);
  EXPECT_THAT(lastError(), HasSubstr("no entry 2"));
  EXPECT_EQ(tj_bundle_load(bundle, device, "merge_attn_states", nullptr, 0), nullptr);
  EXPECT_THAT(lastError(), HasSubstr("head_size"));  // two match: what tells them apart
  const char* head64[] = {"head_size=64"};
  const tj_kernel* kernel = tj_bundle_load(bundle, device, "merge_attn_states", head64, 1);
  ASSERT_NE(kernel, nullptr) << lastError();
  // It runs.
  MergeProblem merge(2, 1);
  ASSERT_EQ(tj_launch(device, kernel, merge.args, 6, nullptr), 0) << lastError();
  merge.expectMerged();
  tj_device_destroy(device);
  EXPECT_THAT(lastError(), HasSubstr("still use this tj_device"));
  tj_bundle_destroy(bundle);
  EXPECT_EQ(tj_launch(device, kernel, merge.args, 6, nullptr), -1) << "a kernel outlived its bundle";
  tj_device_destroy(device);
  // A damaged bundle fails to open, naming what is wrong.
  std::string bytes;
  {
    FILE* file = std::fopen(path.c_str(), "r+b");
    std::fseek(file, 200, SEEK_SET);
    std::fputc(0x5a, file);
    std::fclose(file);
  }
  EXPECT_EQ(tj_bundle_open(path.c_str()), nullptr);
  EXPECT_FALSE(lastError().empty());
  EXPECT_EQ(tj_bundle_open((path + ".missing").c_str()), nullptr);
  std::system(("rm -rf " + std::string(pattern)).c_str());
}

}  // namespace
