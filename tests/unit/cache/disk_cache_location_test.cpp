// The JIT's cache (DiskCache::openForJit) never stops a compile: a root that is a file, cannot be
// written, cannot be created, belongs to someone else or is writable by every user is said once
// and the cache goes on in memory (reading what it may trust); bad bounds are warnings; lock
// files do not pile up. Permission cases run in a child that drops root, since root ignores
// file modes.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <functional>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "cache_test_util.h"

namespace tilejit {
namespace {

using namespace tilejit::testing;

constexpr uid_t kNobody = 65534;

// Computes a test entry and counts how often it had to.
struct Compiler {
  int computes = 0;
  DiskCache::ComputeFn forKey(const std::string& key) {
    return [this, key]() -> absl::StatusOr<CacheEntry> {
      ++computes;
      return testEntry(key, 4096);
    };
  }
};

// Empty when `cache` serves `key` (computing it at most once over two calls) with the right bytes.
std::string servesTwice(DiskCache& cache, const std::string& key, Compiler& compiler) {
  for (int i = 0; i < 2; ++i) {
    absl::StatusOr<CacheEntry> entry = cache.getOrCompute(key, compiler.forKey(key));
    if (!entry.ok()) return absl::StrCat("getOrCompute failed: ", entry.status().message());
    if (!(*entry == testEntry(key, 4096))) return "getOrCompute returned other bytes";
  }
  return compiler.computes == 1 ? "" : absl::StrCat("computed ", compiler.computes, " times");
}

std::string joined(const WarningLog& log) {
  std::string all;
  for (const std::string& message : log.messages) absl::StrAppend(&all, message, "\n");
  return all;
}

DiskCacheOptions jitOptions(const std::string& directory, WarningLog* warnings) {
  DiskCacheOptions options = testOptions(directory, warnings);
  options.memoryLayerMaxBytes = 1 << 20;  // the JIT's cache always has its memory layer
  return options;
}

// Runs `body` in a child process as an unprivileged user (when this process is root) and
// returns its failure text, empty on success. The child makes its own scratch directory.
std::string runUnprivileged(const std::function<std::string(const std::string& scratch)>& body) {
  int pipeFds[2];
  if (::pipe(pipeFds) != 0) return "pipe failed";
  pid_t child = ::fork();
  if (child == 0) {
    ::close(pipeFds[0]);
    std::string failure;
    if (::geteuid() == 0 && (::setgid(kNobody) != 0 || ::setuid(kNobody) != 0)) {
      failure = "cannot drop root";
    } else {
      char pattern[] = "/tmp/tj_unpriv_XXXXXX";
      const char* scratch = ::mkdtemp(pattern);
      failure = scratch ? body(scratch) : "mkdtemp failed";
      if (scratch) {
        std::error_code ignored;
        for (const auto& item : std::filesystem::recursive_directory_iterator(scratch, ignored)) {
          ::chmod(item.path().c_str(), 0700);
        }
        std::filesystem::remove_all(scratch, ignored);
      }
    }
    (void)!::write(pipeFds[1], failure.data(), failure.size());
    ::_exit(0);
  }
  ::close(pipeFds[1]);
  std::string failure;
  char buffer[512];
  for (ssize_t n; (n = ::read(pipeFds[0], buffer, sizeof(buffer))) > 0;) failure.append(buffer, n);
  ::close(pipeFds[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  if (!WIFEXITED(status)) return absl::StrCat("child died: ", failure);
  return failure;
}

TEST(JitCacheLocation, RootThatIsAFileRunsInMemory) {
  ScratchDirectory dir("file_root");
  std::string root = dir / "cache";
  writeFile(root, "not a directory");
  WarningLog log;
  std::unique_ptr<DiskCache> cache = DiskCache::openForJit(jitOptions(root, &log));
  Compiler compiler;
  EXPECT_EQ(servesTwice(*cache, testKey(1), compiler), "");
  ASSERT_EQ(log.messages.size(), 1u) << joined(log);
  EXPECT_TRUE(absl::StrContains(log.messages[0], "is not a directory")) << log.messages[0];
  EXPECT_TRUE(absl::StrContains(log.messages[0], "in memory only")) << log.messages[0];
  EXPECT_EQ(readFile(root), "not a directory");
  EXPECT_EQ(cache->writableRoot(), "");
}

TEST(JitCacheLocation, ReadOnlyRootIsReadNotWritten) {
  std::string failure = runUnprivileged([](const std::string& scratch) -> std::string {
    std::string root = scratch + "/cache";
    std::string stored = testKey(1);
    {
      auto writer = DiskCache::open(testOptions(root));
      if (!writer.ok()) return std::string(writer.status().message());
      if (!(*writer)->store(stored, testEntry(stored, 4096)).ok()) return "store failed";
    }
    std::vector<std::string> before = entryFiles(root);
    // As a root shipped read-only would be: entries only, no locks folder.
    ::rmdir((root + "/locks").c_str());
    for (const std::string& dir : {root, root + "/v1", root + "/v1/" + stored.substr(0, 2)}) {
      ::chmod(dir.c_str(), 0555);
    }
    WarningLog log;
    std::unique_ptr<DiskCache> cache = DiskCache::openForJit(jitOptions(root, &log));
    Compiler compiler;
    absl::StatusOr<CacheEntry> hit = cache->getOrCompute(stored, compiler.forKey(stored));
    if (!hit.ok() || compiler.computes != 0) return "the read-only root's entry was not read";
    if (std::string why = servesTwice(*cache, testKey(2), compiler); !why.empty()) return why;
    if (log.messages.size() != 1 || !absl::StrContains(log.messages[0], "cannot be written")) {
      return "expected one 'cannot be written' warning, got: " + joined(log);
    }
    if (entryFiles(root) != before) return "the read-only root changed";
    return "";
  });
  EXPECT_EQ(failure, "");
}

TEST(JitCacheLocation, RootUnderAnUnwritableParentRunsInMemory) {
  std::string failure = runUnprivileged([](const std::string& scratch) -> std::string {
    ::chmod(scratch.c_str(), 0555);
    WarningLog log;
    std::unique_ptr<DiskCache> cache =
        DiskCache::openForJit(jitOptions(scratch + "/home/.cache/tilejit", &log));
    Compiler compiler;
    if (std::string why = servesTwice(*cache, testKey(3), compiler); !why.empty()) return why;
    if (log.messages.size() != 1 || !absl::StrContains(log.messages[0], "cannot create directory")) {
      return "expected one 'cannot create directory' warning, got: " + joined(log);
    }
    return "";
  });
  EXPECT_EQ(failure, "");
}

TEST(JitCacheLocation, UnreadableEntryIsRebuilt) {
  std::string failure = runUnprivileged([](const std::string& scratch) -> std::string {
    std::string key = testKey(4);
    WarningLog log;
    std::unique_ptr<DiskCache> cache = DiskCache::openForJit(jitOptions(scratch, &log));
    if (!cache->store(key, testEntry(key, 4096)).ok()) return "store failed";
    ::chmod(cache->entryPath(key).c_str(), 0);
    cache->dropMemoryLayer();
    Compiler compiler;
    if (std::string why = servesTwice(*cache, key, compiler); !why.empty()) return why;
    if (!absl::StrContains(joined(log), "cannot open cache entry")) return "no warning: " + joined(log);
    return "";
  });
  EXPECT_EQ(failure, "");
}

TEST(JitCacheLocation, RootWritableByEveryUserIsRefused) {
  ScratchDirectory dir("world_root");
  std::string key = testKey(5);
  ASSERT_TRUE(DiskCache::open(testOptions(dir.path())).value()->store(key, testEntry(key, 4096)).ok());
  ::chmod(dir.path().c_str(), 0777);
  WarningLog log;
  std::unique_ptr<DiskCache> cache = DiskCache::openForJit(jitOptions(dir.path(), &log));
  Compiler compiler;
  EXPECT_EQ(servesTwice(*cache, key, compiler), "");
  EXPECT_EQ(compiler.computes, 1) << "an entry of a root anyone can write was loaded";
  ASSERT_EQ(log.messages.size(), 1u) << joined(log);
  EXPECT_TRUE(absl::StrContains(log.messages[0], "writable by every user (mode 0777)"))
      << log.messages[0];
}

TEST(JitCacheLocation, GroupWritableRootIsUsedWithAWarning) {
  ScratchDirectory dir("group_root");
  ::chmod(dir.path().c_str(), 0770);
  WarningLog log;
  std::unique_ptr<DiskCache> cache = DiskCache::openForJit(jitOptions(dir.path(), &log));
  Compiler compiler;
  EXPECT_EQ(servesTwice(*cache, testKey(6), compiler), "");
  EXPECT_EQ(entryFiles(dir.path()).size(), 1u);
  ASSERT_EQ(log.messages.size(), 1u) << joined(log);
  EXPECT_TRUE(absl::StrContains(log.messages[0], "writable by its group")) << log.messages[0];
}

TEST(JitCacheLocation, RootOwnedByAnotherUserIsRefused) {
  ScratchDirectory dir("owned_root");
  std::string root = dir.path();
  uid_t owner = 0;
  if (::geteuid() == 0) {
    ASSERT_EQ(::chown(root.c_str(), kNobody, kNobody), 0);
    owner = kNobody;
  } else {
    root = "/";  // root's, not ours
  }
  WarningLog log;
  std::unique_ptr<DiskCache> cache = DiskCache::openForJit(jitOptions(root, &log));
  Compiler compiler;
  EXPECT_EQ(servesTwice(*cache, testKey(7), compiler), "");
  ASSERT_EQ(log.messages.size(), 1u) << joined(log);
  EXPECT_TRUE(absl::StrContains(log.messages[0], absl::StrCat("owned by uid ", owner)))
      << log.messages[0];
  EXPECT_EQ(cache->writableRoot(), "");
}

TEST(JitCacheLocation, EntryOwnedByAnotherUserIsNotTrusted) {
  if (::geteuid() != 0) GTEST_SKIP() << "making a file owned by another user needs root";
  ScratchDirectory dir("owned_entry");
  std::string key = testKey(8);
  WarningLog log;
  std::unique_ptr<DiskCache> cache = DiskCache::openForJit(jitOptions(dir.path(), &log));
  ASSERT_TRUE(cache->store(key, testEntry(key, 4096)).ok());
  ASSERT_EQ(::chown(cache->entryPath(key).c_str(), kNobody, kNobody), 0);
  cache->dropMemoryLayer();
  Compiler compiler;
  EXPECT_EQ(servesTwice(*cache, key, compiler), "");
  EXPECT_TRUE(absl::StrContains(joined(log), "owned by uid 65534")) << joined(log);
  struct stat info;
  ASSERT_EQ(::stat(cache->entryPath(key).c_str(), &info), 0);
  EXPECT_EQ(info.st_uid, ::geteuid()) << "the rebuilt entry replaces the untrusted one";
}

// Sets environment variables for one test and restores them.
class ScopedEnvironment {
 public:
  void set(const char* name, const char* value) {
    const char* old = std::getenv(name);
    saved_.emplace_back(name, old ? std::optional<std::string>(old) : std::nullopt);
    value ? ::setenv(name, value, 1) : ::unsetenv(name);
  }
  ~ScopedEnvironment() {
    for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
      it->second ? ::setenv(it->first.c_str(), it->second->c_str(), 1) : ::unsetenv(it->first.c_str());
    }
  }

 private:
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

TEST(JitCacheLocation, UnparseableBoundIsAWarning) {
  ScratchDirectory dir("bad_bound");
  ScopedEnvironment environment;
  environment.set("TILEJIT_CACHE_DIR", dir.path().c_str());
  environment.set("TILEJIT_CACHE_MAX_BYTES", "lots");
  std::vector<std::string> warnings;
  DiskCacheOptions options = jitCacheOptionsFromEnvironment(&warnings);
  EXPECT_EQ(options.directory, dir.path());
  EXPECT_EQ(options.maxBytes, kDefaultCacheMaxBytes);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_TRUE(absl::StrContains(warnings[0], "TILEJIT_CACHE_MAX_BYTES")) << warnings[0];
  EXPECT_TRUE(absl::StrContains(warnings[0], "'lots'")) << warnings[0];
  EXPECT_FALSE(diskCacheOptionsFromEnvironment().ok()) << "the cache commands stay strict";
}

TEST(JitCacheLocation, NoDirectoryAtAllRunsInMemory) {
  ScopedEnvironment environment;
  for (const char* name : {"TILEJIT_CACHE_DIR", "XDG_CACHE_HOME", "HOME"}) environment.set(name, nullptr);
  std::vector<std::string> warnings;
  DiskCacheOptions options = jitCacheOptionsFromEnvironment(&warnings);
  EXPECT_EQ(options.directory, "");
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_TRUE(absl::StrContains(warnings[0], "in memory only")) << warnings[0];
  WarningLog log;
  std::unique_ptr<DiskCache> cache = DiskCache::openForJit(jitOptions("", &log), warnings);
  Compiler compiler;
  EXPECT_EQ(servesTwice(*cache, testKey(9), compiler), "");
  EXPECT_EQ(log.messages, warnings);
}

TEST(JitCacheLocation, BoundSmallerThanOneEntryIsSaidOnce) {
  ScratchDirectory dir("tiny_bound");
  WarningLog log;
  DiskCacheOptions options = jitOptions(dir.path(), &log);
  options.maxBytes = 1000;
  std::unique_ptr<DiskCache> cache = DiskCache::openForJit(options);
  Compiler compiler;
  for (int i = 10; i < 13; ++i) {
    ASSERT_TRUE(cache->getOrCompute(testKey(i), compiler.forKey(testKey(i))).ok());
  }
  ASSERT_EQ(log.messages.size(), 1u) << joined(log);
  EXPECT_TRUE(absl::StrContains(log.messages[0], "smaller than one entry")) << log.messages[0];
  EXPECT_TRUE(absl::StrContains(log.messages[0], "1000 bytes")) << log.messages[0];
}

TEST(JitCacheLocation, LockFilesDoNotPileUp) {
  ScratchDirectory dir("locks");
  std::string locks = dir / "locks";
  {
    std::unique_ptr<DiskCache> cache = DiskCache::openForJit(jitOptions(dir.path(), nullptr));
    Compiler compiler;
    for (int i = 20; i < 24; ++i) {
      ASSERT_TRUE(cache->getOrCompute(testKey(i), compiler.forKey(testKey(i))).ok());
    }
    EXPECT_EQ(compiler.computes, 4);
  }
  EXPECT_TRUE(std::filesystem::is_empty(locks)) << "a compile left its lock file";
  // Left by processes that died (flock dies with them, the file does not); one is in use.
  std::string idle = locks + "/" + testKey(30) + ".lock";
  std::string held = locks + "/" + testKey(31) + ".lock";
  writeFile(idle, "");
  writeFile(held, "");
  int holder = ::open(held.c_str(), O_RDONLY);
  ASSERT_EQ(::flock(holder, LOCK_EX), 0);
  DiskCache::openForJit(jitOptions(dir.path(), nullptr));
  EXPECT_FALSE(fileExists(idle)) << "an idle lock file was not swept";
  EXPECT_TRUE(fileExists(held)) << "a lock file in use was removed";
  ::close(holder);
}

}  // namespace
}  // namespace tilejit
