#include "cache/cache_command.h"

#include <gtest/gtest.h>

#include <sstream>

#include "cache_test_util.h"

namespace tilejit {
namespace {

using namespace tilejit::testing;

struct CommandResult {
  int code;
  std::string out, err;
};

CommandResult run(const std::string& dir, std::vector<std::string> args) {
  args.insert(args.begin(), {"--dir", dir});
  std::ostringstream out, err;
  int code = runCacheCommand(args, out, err);
  return {code, out.str(), err.str()};
}

TEST(CacheCommandTest, LsStatsVerifyGcClear) {
  ScratchDirectory dir("command");
  {
    auto cache = DiskCache::open(testOptions(dir.path())).value();
    for (int i = 0; i < 3; ++i) ASSERT_TRUE(cache->store(testKey(i), testEntry(testKey(i), 1000)).ok());
  }
  CommandResult ls = run(dir.path(), {"ls"});
  EXPECT_EQ(ls.code, 0) << ls.err;
  EXPECT_NE(ls.out.find(testKey(1)), std::string::npos) << ls.out;
  EXPECT_NE(ls.out.find("tmpl_" + testKey(1).substr(0, 8)), std::string::npos) << ls.out;
  EXPECT_NE(ls.out.find(TILEJIT_VERSION_STRING), std::string::npos) << ls.out;
  CommandResult json = run(dir.path(), {"ls", "--json"});
  EXPECT_EQ(json.code, 0);
  EXPECT_NE(json.out.find("\"template\": \"tmpl_"), std::string::npos) << json.out;

  CommandResult stats = run(dir.path(), {"stats"});
  EXPECT_EQ(stats.code, 0);
  EXPECT_NE(stats.out.find("entries:        3"), std::string::npos) << stats.out;

  EXPECT_EQ(run(dir.path(), {"verify"}).code, 0);
  std::string path = DiskCache::open(testOptions(dir.path())).value()->entryPath(testKey(2));
  std::string bytes = readFile(path);
  bytes[500] ^= 4;
  writeFile(path, bytes);
  CommandResult verify = run(dir.path(), {"verify"});
  EXPECT_EQ(verify.code, 1);
  EXPECT_NE(verify.out.find(path), std::string::npos) << verify.out;
  EXPECT_NE(verify.out.find("checksum"), std::string::npos) << verify.out;
  EXPECT_TRUE(fileExists(path)) << "verify must not remove anything";

  CommandResult gc = run(dir.path(), {"gc", "--max-bytes", "1500"});
  EXPECT_EQ(gc.code, 0) << gc.err;
  EXPECT_NE(gc.out.find("removed 1 corrupt"), std::string::npos) << gc.out;
  EXPECT_NE(gc.out.find("evicted 1 entries"), std::string::npos) << gc.out;
  EXPECT_EQ(entryFiles(dir.path()).size(), 1u);

  CommandResult clear = run(dir.path(), {"clear"});
  EXPECT_EQ(clear.code, 0);
  EXPECT_TRUE(entryFiles(dir.path()).empty());
}

TEST(CacheCommandTest, HelpAndUsageErrors) {
  std::ostringstream out, err;
  EXPECT_EQ(runCacheCommand({"--help"}, out, err), 0);
  EXPECT_NE(out.str().find("usage: tilejit cache"), std::string::npos);
  EXPECT_NE(out.str().find("TILEJIT_CACHE_READONLY_DIRS"), std::string::npos);
  ScratchDirectory dir("usage");
  CommandResult missing = run(dir.path(), {});
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(missing.err.find("missing command"), std::string::npos);
  CommandResult unknown = run(dir.path(), {"frobnicate"});
  EXPECT_EQ(unknown.code, 2);
  EXPECT_NE(unknown.err.find("'frobnicate'"), std::string::npos);
  CommandResult badBytes = run(dir.path(), {"gc", "--max-bytes", "ten"});
  EXPECT_EQ(badBytes.code, 2);
  EXPECT_NE(badBytes.err.find("'ten'"), std::string::npos) << badBytes.err;
  CommandResult misplaced = run(dir.path(), {"ls", "--max-bytes", "10"});
  EXPECT_EQ(misplaced.code, 2);
}

}  // namespace
}  // namespace tilejit
