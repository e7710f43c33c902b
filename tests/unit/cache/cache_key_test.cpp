#include "cache/cache_key.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <set>

namespace tilejit {
namespace {

std::string keyOf(std::initializer_list<std::pair<std::string, std::string>> fields) {
  CacheKeyBuilder builder;
  for (const auto& [name, value] : fields) builder.addField(name, value);
  return builder.finish();
}

TEST(CacheKeyTest, KeysAreWellFormedAndDeterministic) {
  std::string key = keyOf({{"template", "tj.func"}, {"target", "sm_90"}});
  EXPECT_TRUE(isWellFormedCacheKey(key)) << key;
  EXPECT_EQ(key, keyOf({{"template", "tj.func"}, {"target", "sm_90"}}));
}

TEST(CacheKeyTest, FieldBoundariesMatter) {
  std::set<std::string> keys = {
      keyOf({{"a", "bc"}}),          keyOf({{"ab", "c"}}),
      keyOf({{"x", "ab"}, {"y", "c"}}), keyOf({{"x", "a"}, {"y", "bc"}}),
      keyOf({{"x", "ab"}, {"y", ""}}), keyOf({{"x", "ab"}}),
      keyOf({{"y", "c"}, {"x", "ab"}}),  // order is part of the key
      keyOf({}),
  };
  EXPECT_EQ(keys.size(), 8u);
}

TEST(CacheKeyTest, EveryConventionalFieldChangesTheKey) {
  auto build = [](int changed) {
    CacheKeyBuilder builder;
    builder.addTemplateText(changed == 0 ? "text'" : "text")
        .addParameter("head_size", int64_t(changed == 1 ? 64 : 128))
        .addParameter("dtype", changed == 2 ? "f16" : "bf16")
        .addTarget(changed == 3 ? "sm_80" : "sm_90")
        .addEmitterVersion(changed == 4 ? "2" : "1")
        .addDeviceLibrary("cuda/tile.h", changed == 5 ? "// edited" : "// v1")
        .addToolchainIdentity(changed == 6 ? "nvrtc 12.4" : "nvrtc 12.8")
        .addCompileOption(changed == 7 ? "-O2" : "-O3");
    return builder.finish();
  };
  std::set<std::string> keys;
  for (int changed = -1; changed < 8; ++changed) keys.insert(build(changed));
  EXPECT_EQ(keys.size(), 9u);
}

TEST(CacheKeyTest, IntegerAndStringParametersDiffer) {
  EXPECT_NE(CacheKeyBuilder().addParameter("n", int64_t(128)).finish(),
            CacheKeyBuilder().addParameter("n", "128").finish());
}

TEST(CacheKeyTest, FileContentIsHashedNotItsPath) {
  std::string path = ::testing::TempDir() + "/cache_key_test_file.h";
  { std::ofstream(path) << "int x;"; }
  CacheKeyBuilder fromFile;
  ASSERT_TRUE(fromFile.addFileContent("lib", path).ok());
  EXPECT_EQ(fromFile.finish(), keyOf({{"lib", "int x;"}}));
  std::remove(path.c_str());
  CacheKeyBuilder missing;
  absl::Status status = missing.addFileContent("lib", path);
  EXPECT_TRUE(absl::IsNotFound(status));
  EXPECT_NE(status.message().find(path), std::string::npos) << status;
}

TEST(CacheKeyTest, WellFormedKeyCheck) {
  EXPECT_FALSE(isWellFormedCacheKey(""));
  EXPECT_FALSE(isWellFormedCacheKey(std::string(64, 'A')));
  EXPECT_FALSE(isWellFormedCacheKey("../" + std::string(61, 'a')));
  EXPECT_TRUE(isWellFormedCacheKey(std::string(64, 'f')));
}

}  // namespace
}  // namespace tilejit
