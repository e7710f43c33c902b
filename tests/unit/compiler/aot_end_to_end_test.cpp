// The AOT path end to end on the CPU: manifest requests -> parallel compiles -> bundle on disk
// -> Bundle::open -> load on the CPU device, plus the rerun (all cache hits) and the journal.
#include <stdlib.h>
#include <unistd.h>

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
        {"template": "reshape_and_cache", "targets": ["host"],
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

TEST_F(AotEndToEnd, OtherErrorsAreFailuresNotSkips) {
  std::vector<AotSpecRequest> specs = {{"no_such_template", "host", {}},
                                       {"merge_attn_states", "no_such_target", {}},
                                       {dir_ + "/missing.mlir", "host", {}}};
  absl::StatusOr<AotReport> report = runAot(specs, options());
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->failures.size(), 3u) << formatAotReport(*report);
  EXPECT_TRUE(report->skipped.empty());
  EXPECT_EQ(report->bundleEntries, 0u);  // an empty bundle is still written
  EXPECT_TRUE(Bundle::open(options().bundlePath).ok());
}

TEST_F(AotEndToEnd, ValueOutsideTheDomainIsSkipped) {
  std::vector<AotSpecRequest> specs = {{"reshape_and_cache", "host", {{"block_size", "3"}}}};
  absl::StatusOr<AotReport> report = runAot(specs, options());
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_EQ(report->skipped.size(), 1u) << formatAotReport(*report);
  EXPECT_THAT(report->skipped[0].reason, HasSubstr("is not allowed"));
}

TEST(AotRunner, NeedsABundlePath) {
  EXPECT_EQ(runAot({}, AotOptions{}).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tilejit
