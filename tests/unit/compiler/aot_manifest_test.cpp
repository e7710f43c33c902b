#include "tools/aot/aot_manifest.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace tilejit {
namespace {

using ::testing::HasSubstr;

std::string errorOf(const std::string& json) {
  absl::StatusOr<AotManifest> manifest = parseAotManifest(json, "");
  EXPECT_FALSE(manifest.ok()) << json;
  EXPECT_EQ(manifest.status().code(), absl::StatusCode::kInvalidArgument) << json;
  return std::string(manifest.status().message());
}

TEST(AotManifest, ParsesTheDocumentedExample) {
  absl::StatusOr<AotManifest> manifest = parseAotManifest(R"({
    "bundle": "out.tjb",
    "jobs": [{"template": "reshape_and_cache", "targets": ["sm_90", "host"],
              "grid": {"dtype": ["bf16", "f16"], "block_size": [1, 16, 32],
                       "kv_layout": ["standard", "shuffled"]}}]})",
                                                          "");
  ASSERT_TRUE(manifest.ok()) << manifest.status();
  EXPECT_EQ(manifest->bundlePath, "out.tjb");
  ASSERT_EQ(manifest->jobs.size(), 1u);
  EXPECT_EQ(manifest->jobs[0].templateRef, "reshape_and_cache");
  EXPECT_EQ(manifest->jobs[0].targets, (std::vector<std::string>{"sm_90", "host"}));
  // Integers become their decimal text, as `-p block_size=16` would give them.
  EXPECT_EQ(manifest->jobs[0].grid[1].first, "block_size");
  EXPECT_EQ(manifest->jobs[0].grid[1].second, (std::vector<std::string>{"1", "16", "32"}));

  std::vector<AotSpecRequest> requests = expandAotManifest(*manifest);
  ASSERT_EQ(requests.size(), 2u * 2 * 3 * 2);
  EXPECT_EQ(requests.front().target, "sm_90");
  EXPECT_EQ(requests.front().parameters,
            (std::map<std::string, std::string>{
                {"dtype", "bf16"}, {"block_size", "1"}, {"kv_layout", "standard"}}));
  // The last grid parameter varies fastest, targets slowest.
  EXPECT_EQ(requests[1].parameters.at("kv_layout"), "shuffled");
  EXPECT_EQ(requests.back().target, "host");
  EXPECT_EQ(requests.back().parameters,
            (std::map<std::string, std::string>{
                {"dtype", "f16"}, {"block_size", "32"}, {"kv_layout", "shuffled"}}));
}

TEST(AotManifest, JobWithoutGridIsOneSpecPerTarget) {
  absl::StatusOr<AotManifest> manifest = parseAotManifest(
      R"({"jobs": [{"template": "merge_attn_states", "target": "host"}]})", "");
  ASSERT_TRUE(manifest.ok()) << manifest.status();
  EXPECT_TRUE(manifest->bundlePath.empty());
  std::vector<AotSpecRequest> requests = expandAotManifest(*manifest);
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_TRUE(requests[0].parameters.empty());
  EXPECT_EQ(requests[0].describe(), "merge_attn_states host");
}

TEST(AotManifest, ScalarGridValueAndDuplicateRequestsAcrossJobs) {
  absl::StatusOr<AotManifest> manifest = parseAotManifest(R"({"jobs": [
      {"template": "merge_attn_states", "targets": ["host"], "grid": {"dtype": "bf16"}},
      {"template": "merge_attn_states", "targets": ["host"], "grid": {"dtype": ["bf16", "f16"]}}
    ]})", "");
  ASSERT_TRUE(manifest.ok()) << manifest.status();
  std::vector<AotSpecRequest> requests = expandAotManifest(*manifest);
  ASSERT_EQ(requests.size(), 2u);  // bf16 listed by both jobs is compiled once
  EXPECT_EQ(requests[1].parameters.at("dtype"), "f16");
}

TEST(AotManifest, RelativePathsFollowTheManifestFolder) {
  absl::StatusOr<AotManifest> manifest = parseAotManifest(R"({"bundle": "out/k.tjb",
      "jobs": [{"template": "kernels/my.mlir", "targets": ["host"]},
               {"template": "/abs/other.mlir", "targets": ["host"]},
               {"template": "merge_attn_states", "targets": ["host"]}]})",
                                                          "/etc/tj");
  ASSERT_TRUE(manifest.ok()) << manifest.status();
  EXPECT_EQ(manifest->bundlePath, "/etc/tj/out/k.tjb");
  EXPECT_EQ(manifest->jobs[0].templateRef, "/etc/tj/kernels/my.mlir");
  EXPECT_EQ(manifest->jobs[1].templateRef, "/abs/other.mlir");
  EXPECT_EQ(manifest->jobs[2].templateRef, "merge_attn_states");  // shipped name untouched
  EXPECT_TRUE(isTemplatePath("x.mlir"));
  EXPECT_FALSE(isTemplatePath("merge_attn_states"));
}

TEST(AotManifest, ErrorsNameTheField) {
  EXPECT_THAT(errorOf("{"), HasSubstr("not valid JSON"));
  EXPECT_THAT(errorOf("[]"), HasSubstr("expected an object"));
  EXPECT_THAT(errorOf(R"({"bundle": "x"})"), HasSubstr("jobs"));
  EXPECT_THAT(errorOf(R"({"jobs": []})"), HasSubstr("non-empty"));
  EXPECT_THAT(errorOf(R"({"jobs": [], "bundel": "x"})"), HasSubstr("bundel"));
  EXPECT_THAT(errorOf(R"({"jobs": [{"targets": ["host"]}]})"), HasSubstr("jobs[0].template"));
  EXPECT_THAT(errorOf(R"({"jobs": [{"template": "t"}]})"), HasSubstr("jobs[0].targets"));
  EXPECT_THAT(errorOf(R"({"jobs": [{"template": "t", "targets": []}]})"), HasSubstr("empty"));
  EXPECT_THAT(errorOf(R"({"jobs": [{"template": "t", "targets": [7]}]})"),
              HasSubstr("not a string"));
  EXPECT_THAT(errorOf(R"({"jobs": [{"template": "t", "target": "host", "targets": ["host"]}]})"),
              HasSubstr("not both"));
  EXPECT_THAT(errorOf(R"({"jobs": [{"template": "t", "targets": ["host"], "grids": {}}]})"),
              HasSubstr("unknown key 'grids'"));
  EXPECT_THAT(errorOf(R"({"jobs": [{"template": "t", "targets": ["host"], "grid": []}]})"),
              HasSubstr("jobs[0].grid"));
  EXPECT_THAT(
      errorOf(R"({"jobs": [{"template": "t", "targets": ["host"], "grid": {"a": []}}]})"),
      HasSubstr("jobs[0].grid.a: empty list"));
  EXPECT_THAT(
      errorOf(R"({"jobs": [{"template": "t", "targets": ["host"], "grid": {"a": [1.5]}}]})"),
      HasSubstr("jobs[0].grid.a"));
  EXPECT_THAT(
      errorOf(R"({"jobs": [{"template": "t", "targets": ["host"], "grid": {"a": [1, 1]}}]})"),
      HasSubstr("listed twice"));
  EXPECT_THAT(errorOf(R"({"jobs": [], "bundle": 3})"), HasSubstr("bundle"));
}

TEST(AotManifest, SkipRejectedIsPerJobWithAManifestDefault) {
  absl::StatusOr<AotManifest> manifest = parseAotManifest(R"({"skip_rejected": true, "jobs": [
      {"template": "a", "targets": ["host"]},
      {"template": "b", "targets": ["host"], "skip_rejected": false}]})", "");
  ASSERT_TRUE(manifest.ok()) << manifest.status();
  std::vector<AotSpecRequest> requests = expandAotManifest(*manifest);
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_TRUE(requests[0].skipRejected);
  EXPECT_FALSE(requests[1].skipRejected);
  EXPECT_FALSE(expandAotManifest(*parseAotManifest(R"({"jobs": [{"template": "a", "targets": "host"}]})", ""))[0].skipRejected)
      << "rejections fail unless a manifest says otherwise";
  EXPECT_THAT(errorOf(R"({"jobs": [{"template": "a", "targets": "host", "skip_rejected": 1}]})"),
              HasSubstr("jobs[0].skip_rejected: expected true or false"));
}

TEST(AotManifest, MissingManifestFile) {
  absl::StatusOr<AotManifest> manifest = loadAotManifest("/nonexistent/manifest.json");
  EXPECT_EQ(manifest.status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace tilejit
