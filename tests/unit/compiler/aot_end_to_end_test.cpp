// The AOT path end to end on the CPU: manifest requests -> parallel compiles -> bundle on disk
// -> Bundle::open -> load on the CPU device, plus the rerun (all cache hits) and the journal.
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "runtime/bundle.h"
#include "runtime/device.h"
#include "tools/aot/aot_manifest.h"
#include "tools/aot/aot_runner.h"

namespace tilejit {
namespace {

using ::testing::HasSubstr;

class AotEndToEnd : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/tj_aot_test_XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
    // A private cache: the first run must really compile, and no other test's entries count.
    const char* previous = getenv("TILEJIT_CACHE_DIR");
    if (previous) previousCacheDir_ = previous;
    hadCacheDir_ = previous != nullptr;
    setenv("TILEJIT_CACHE_DIR", (dir_ + "/cache").c_str(), 1);
  }
  void TearDown() override {
    if (hadCacheDir_) setenv("TILEJIT_CACHE_DIR", previousCacheDir_.c_str(), 1);
    else unsetenv("TILEJIT_CACHE_DIR");
    std::system(("rm -rf '" + dir_ + "'").c_str());
  }

  std::vector<AotSpecRequest> requests() {
    absl::StatusOr<AotManifest> manifest = parseAotManifest(R"({"jobs": [
        {"template": "reshape_and_cache", "targets": ["host"], "skip_rejected": true,
         "grid": {"block_size": [4, 16], "kv_layout": ["shuffled"]}},
        {"template": "merge_attn_states", "targets": ["host"]}]})",
                                                            dir_);
    EXPECT_TRUE(manifest.ok()) << manifest.status();
    return expandAotManifest(*manifest);
  }

  AotOptions options() {
    AotOptions options;
    options.bundlePath = dir_ + "/kernels.tjb";
    options.jobs = 2;
    options.progress = nullptr;
    return options;
  }

  // Entries in this test's cache: zero means nothing was compiled.
  size_t cachedEntries() {
    size_t count = 0;
    std::error_code ignored;
    for (const auto& item : std::filesystem::recursive_directory_iterator(dir_ + "/cache/v1", ignored))
      count += item.is_regular_file();
    return count;
  }

  std::string dir_;
  std::string previousCacheDir_;
  bool hadCacheDir_ = false;
};

TEST_F(AotEndToEnd, CompilesBundlesAndLoadsOnTheCpu) {
  std::vector<AotSpecRequest> specs = requests();
  ASSERT_EQ(specs.size(), 3u);
  absl::StatusOr<AotReport> report = runAot(specs, options());
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_TRUE(report->failures.empty()) << formatAotReport(*report);
  EXPECT_EQ(report->compiled, 2u);
  EXPECT_EQ(report->cacheHits, 0u);
  EXPECT_EQ(report->bundleEntries, 2u);
  // The shuffled layout needs block_size % 8 == 0: block_size=4 is skipped, with the reason.
  ASSERT_EQ(report->skipped.size(), 1u);
  EXPECT_EQ(report->skipped[0].request.parameters.at("block_size"), "4");
  EXPECT_THAT(report->skipped[0].reason, HasSubstr("rejects this specialization"));
  EXPECT_THAT(formatAotReport(*report), HasSubstr("skipped: reshape_and_cache host"));
  EXPECT_TRUE(report->bundleWritten);
  // The journal is gone once the bundle is written.
  EXPECT_NE(access((options().bundlePath + ".progress").c_str(), F_OK), 0);

  absl::StatusOr<Bundle> bundle = Bundle::open(options().bundlePath);
  ASSERT_TRUE(bundle.ok()) << bundle.status();
  ASSERT_EQ(bundle->entries().size(), 2u);
  absl::StatusOr<const BundleEntry*> entry =
      bundle->find("reshape_and_cache", "host", {{"kv_layout", "shuffled"}});
  ASSERT_TRUE(entry.ok()) << entry.status();
  EXPECT_EQ((*entry)->parameters.at("block_size"), "16");
  // Every bound parameter is recorded, defaults included, so lookups can name any of them.
  EXPECT_EQ((*entry)->parameters.count("dtype"), 1u);

  std::unique_ptr<Device> cpu = createCpuDevice();
  for (const BundleEntry& each : bundle->entries()) {
    EXPECT_EQ(each.target, "host");
    absl::StatusOr<std::unique_ptr<LoadedKernel>> loaded = cpu->load(each.metadata, each.binary);
    ASSERT_TRUE(loaded.ok()) << each.templateName << ": " << loaded.status();
    EXPECT_EQ((*loaded)->metadata().templateName, each.templateName);
  }

  // A rerun compiles nothing: every spec is a cache hit, and the bundle is the same.
  absl::StatusOr<AotReport> rerun = runAot(specs, options());
  ASSERT_TRUE(rerun.ok()) << rerun.status();
  EXPECT_EQ(rerun->compiled, 0u);
  EXPECT_EQ(rerun->cacheHits, 2u);
  EXPECT_EQ(rerun->skipped.size(), 1u);
}

TEST_F(AotEndToEnd, ResumeCountsKeysFromAnInterruptedRunsJournal) {
  std::vector<AotSpecRequest> specs = requests();
  absl::StatusOr<AotReport> first = runAot(specs, options());
  ASSERT_TRUE(first.ok()) << first.status();
  absl::StatusOr<Bundle> bundle = Bundle::open(options().bundlePath);
  ASSERT_TRUE(bundle.ok()) << bundle.status();
  // Simulate an interruption after one spec: its key is in the journal, plus a torn line.
  {
    std::ofstream journal(options().bundlePath + ".progress");
    journal << bundle->entries()[0].key << "\n" << "0123";
  }
  absl::StatusOr<AotReport> resumed = runAot(specs, options());
  ASSERT_TRUE(resumed.ok()) << resumed.status();
  EXPECT_EQ(resumed->resumed, 1u);
  EXPECT_EQ(resumed->cacheHits, 2u);
}

TEST_F(AotEndToEnd, UnknownTemplateTargetOrParameterStopsBeforeCompiling) {
  std::vector<std::pair<AotSpecRequest, std::string>> cases = {
      {{"no_such_template", "host", {}}, "no_such_template"},
      {{"merge_attn_states", "no_such_target", {}}, "no_such_target"},
      {{dir_ + "/missing.mlir", "host", {}}, "missing.mlir"},
      {{"merge_attn_states", "host", {{"block_sise", "16"}}}, "has no parameter 'block_sise'"}};
  for (const auto& [bad, named] : cases) {
    // A good request first: the run must stop before compiling it.
    std::vector<AotSpecRequest> specs = {{"merge_attn_states", "host", {}}, bad};
    absl::StatusOr<AotReport> report = runAot(specs, options());
    ASSERT_FALSE(report.ok()) << bad.describe();
    EXPECT_THAT(std::string(report.status().message()), HasSubstr(named));
    EXPECT_NE(access(options().bundlePath.c_str(), F_OK), 0) << "a bundle was written";
    EXPECT_EQ(cachedEntries(), 0u) << "something was compiled";
  }
}

TEST_F(AotEndToEnd, ValueOutsideTheDomainFailsTheRunAndWritesNothing) {
  std::vector<AotSpecRequest> specs = {{"merge_attn_states", "host", {}},
                                       {"reshape_and_cache", "host", {{"block_size", "3"}}}};
  absl::StatusOr<AotReport> report = runAot(specs, options());
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_EQ(report->failures.size(), 1u) << formatAotReport(*report);
  EXPECT_THAT(report->failures[0].reason, HasSubstr("is not allowed"));
  EXPECT_THAT(report->failures[0].reason, HasSubstr("skip_rejected"));
  EXPECT_FALSE(report->bundleWritten);
  EXPECT_THAT(formatAotReport(*report), HasSubstr("bundle: not written"));
  EXPECT_NE(access(options().bundlePath.c_str(), F_OK), 0);
}

TEST_F(AotEndToEnd, ValueOutsideTheDomainIsSkippedWhenTheJobSaysSo) {
  AotSpecRequest request{"reshape_and_cache", "host", {{"block_size", "3"}}, /*skipRejected=*/true};
  absl::StatusOr<AotReport> report = runAot({request}, options());
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_EQ(report->skipped.size(), 1u) << formatAotReport(*report);
  EXPECT_THAT(report->skipped[0].reason, HasSubstr("is not allowed"));
  EXPECT_TRUE(report->bundleWritten);
}

TEST_F(AotEndToEnd, UnwritableOutputIsFoundFirst) {
  for (const std::string& path : {dir_, dir_ + "/no/such/folder/k.tjb"}) {
    AotOptions unwritable = options();
    unwritable.bundlePath = path;
    absl::StatusOr<AotReport> report = runAot(requests(), unwritable);
    ASSERT_FALSE(report.ok()) << path;
    EXPECT_THAT(std::string(report.status().message()), HasSubstr(path));
    EXPECT_EQ(cachedEntries(), 0u) << "compiled before checking " << path;
  }
}

TEST_F(AotEndToEnd, GridPastTheLimitNeedsMaxSpecs) {
  AotOptions limited = options();
  limited.maxSpecs = 2;
  absl::StatusOr<AotReport> report = runAot(requests(), limited);
  ASSERT_FALSE(report.ok());
  EXPECT_THAT(std::string(report.status().message()), HasSubstr("--max-specs 3"));
  EXPECT_EQ(cachedEntries(), 0u);
}

TEST(AotRunner, NeedsABundlePath) {
  EXPECT_EQ(runAot({}, AotOptions{}).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tilejit
