#include "runtime/kernel_metadata.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace tilejit {
namespace {

using ::testing::HasSubstr;

KernelMetadata sampleMetadata() {
  KernelMetadata metadata;
  metadata.templateName = "reshape_and_cache";
  metadata.entry = "tj_reshape_and_cache";
  metadata.target = "sm_90";
  metadata.backend = "cuda";
  metadata.parameters = {{"head_size", "128"}, {"block_size", "16"}};
  ArgSpec key{"key", ArgSpec::Kind::kView, DType::kBF16, {{"num_tokens"}, {"", 8}, {"", 128}}};
  key.contiguous = true;
  ArgSpec cache{"key_cache",
                ArgSpec::Kind::kView,
                DType::kBF16,
                {{"num_blocks"}, {"", 16}, {"", 8}, {"", 128}}};
  cache.writable = true;
  ArgSpec scale{"scale", ArgSpec::Kind::kScalar, DType::kF32, {}};
  metadata.args = {key, cache, scale};
  metadata.grid = {"cdiv(num_tokens, 4)", "1", "min(2, num_blocks)"};
  metadata.threadsPerProgram = 128;
  metadata.dynamicSharedBytes = 65536;
  metadata.vectorBytes = 8;
  metadata.waitsForPreviousKernel = true;
  metadata.clusterPrograms = 4;
  metadata.resources = {40, 4, 8, 1024, 16};
  return metadata;
}

TEST(KernelMetadata, RoundTripKeepsEveryField) {
  KernelMetadata original = sampleMetadata();
  std::string json = serializeMetadata(original);
  absl::StatusOr<KernelMetadata> parsed = parseMetadata(json);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->templateName, original.templateName);
  EXPECT_EQ(parsed->entry, original.entry);
  EXPECT_EQ(parsed->target, original.target);
  EXPECT_EQ(parsed->backend, original.backend);
  EXPECT_EQ(parsed->parameters, original.parameters);
  ASSERT_EQ(parsed->args.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    const ArgSpec& a = parsed->args[i];
    const ArgSpec& b = original.args[i];
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.kind, b.kind);
    EXPECT_EQ(a.dtype, b.dtype);
    EXPECT_EQ(a.contiguous, b.contiguous);
    EXPECT_EQ(a.writable, b.writable);
    ASSERT_EQ(a.dims.size(), b.dims.size());
    for (size_t d = 0; d < a.dims.size(); ++d) {
      EXPECT_EQ(a.dims[d].symbol, b.dims[d].symbol);
      EXPECT_EQ(a.dims[d].value, b.dims[d].value);
    }
  }
  EXPECT_EQ(parsed->grid, original.grid);
  EXPECT_EQ(parsed->threadsPerProgram, 128);
  EXPECT_EQ(parsed->dynamicSharedBytes, 65536);
  EXPECT_EQ(parsed->vectorBytes, 8);
  EXPECT_TRUE(parsed->waitsForPreviousKernel);
  EXPECT_EQ(parsed->clusterPrograms, 4);
  EXPECT_EQ(parsed->resources.registers, 40);
  EXPECT_EQ(parsed->resources.spillStores, 4);
  EXPECT_EQ(parsed->resources.spillLoads, 8);
  EXPECT_EQ(parsed->resources.staticSharedBytes, 1024);
  EXPECT_EQ(parsed->resources.localBytes, 16);
  // Serializing what was parsed gives the same text: the format has one spelling.
  EXPECT_EQ(serializeMetadata(*parsed), json);
}

TEST(KernelMetadata, NotJson) {
  absl::StatusOr<KernelMetadata> parsed = parseMetadata("{\"template\": ");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(parsed.status().message(), HasSubstr("not valid JSON"));
}

// Replaces `from` in the serialized sample by `to` and returns the parse error.
std::string errorAfterEdit(const std::string& from, const std::string& to) {
  std::string json = serializeMetadata(sampleMetadata());
  size_t at = json.find(from);
  EXPECT_NE(at, std::string::npos) << from << " not in " << json;
  if (at == std::string::npos) return "";
  json.replace(at, from.size(), to);
  absl::StatusOr<KernelMetadata> parsed = parseMetadata(json);
  EXPECT_FALSE(parsed.ok()) << json;
  if (parsed.ok()) return "";
  EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(parsed.status().message());
}

TEST(KernelMetadata, ErrorsNameTheField) {
  EXPECT_THAT(errorAfterEdit("\"entry\"", "\"entree\""), HasSubstr("missing field 'entry'"));
  EXPECT_THAT(errorAfterEdit("\"dtype\": \"bf16\"", "\"dtype\": \"bf17\""),
              AllOf(HasSubstr("args[0].dtype"), HasSubstr("unknown dtype 'bf17'")));
  EXPECT_THAT(errorAfterEdit("\"num_blocks\"", "-3"),
              AllOf(HasSubstr("args[1].dims[0]"), HasSubstr("-3")));
  EXPECT_THAT(errorAfterEdit("\"kind\": \"scalar\"", "\"kind\": \"tensor\""),
              AllOf(HasSubstr("args[2].kind"), HasSubstr("unknown kind 'tensor'")));
  EXPECT_THAT(errorAfterEdit("\"threads_per_program\": 128", "\"threads_per_program\": \"128\""),
              AllOf(HasSubstr("threads_per_program"), HasSubstr("expected an integer")));
  EXPECT_THAT(errorAfterEdit("\"threads_per_program\": 128", "\"threads_per_program\": 0"),
              HasSubstr("must be at least 1"));
  EXPECT_THAT(errorAfterEdit("\"contiguous\": true", "\"contiguous\": 1"),
              AllOf(HasSubstr("args[0].contiguous"), HasSubstr("expected true or false")));
  EXPECT_THAT(errorAfterEdit("\"min(2, num_blocks)\"", "3"),
              AllOf(HasSubstr("grid[2]"), HasSubstr("expected a string")));
}

TEST(KernelMetadata, GridMustHaveThreeAxes) {
  std::string json = serializeMetadata(sampleMetadata());
  size_t at = json.find("\"grid\"");
  size_t end = json.find(']', at);
  json.replace(at, end - at + 1, "\"grid\": [\"1\", \"1\"]");
  absl::StatusOr<KernelMetadata> parsed = parseMetadata(json);
  ASSERT_FALSE(parsed.ok());
  EXPECT_THAT(parsed.status().message(), HasSubstr("expected an array of 3 expressions"));
}

TEST(KernelMetadata, OptionalFieldsDefault) {
  absl::StatusOr<KernelMetadata> parsed = parseMetadata(R"({
    "template": "t", "entry": "e", "target": "host", "backend": "cpu",
    "args": [{"name": "x", "kind": "view", "dtype": "f32", "dims": ["n"]}],
    "grid": ["n", "1", "1"], "threads_per_program": 1})");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->vectorBytes, 16);
  EXPECT_EQ(parsed->dynamicSharedBytes, 0);
  EXPECT_EQ(parsed->resources.registers, -1);
  EXPECT_FALSE(parsed->args[0].contiguous);
  EXPECT_EQ(parsed->args[0].dims[0].symbol, "n");
}

}  // namespace
}  // namespace tilejit
