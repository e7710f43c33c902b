// DiskCache in one process: round trip, corruption handling, read-only layers, eviction,
// staging sweep, configuration. Cross-process behaviour is in disk_cache_process_test.cpp.
#include "cache/disk_cache.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <map>
#include <random>
#include <thread>

#include "cache_test_util.h"

namespace tilejit {
namespace {

using namespace tilejit::testing;

std::unique_ptr<DiskCache> openCache(const DiskCacheOptions& options) {
  absl::StatusOr<std::unique_ptr<DiskCache>> cache = DiskCache::open(options);
  EXPECT_TRUE(cache.ok()) << cache.status();
  return cache.ok() ? std::move(*cache) : nullptr;
}

TEST(DiskCacheTest, StoreLookupRoundTrip) {
  ScratchDirectory dir("roundtrip");
  auto cache = openCache(testOptions(dir.path()));
  std::string key = testKey(1);
  CacheEntry entry = testEntry(key, 5000);
  absl::StatusOr<std::optional<CacheEntry>> missing = cache->lookup(key);
  ASSERT_TRUE(missing.ok()) << missing.status();
  EXPECT_FALSE(missing->has_value());
  ASSERT_TRUE(cache->store(key, entry).ok());
  EXPECT_EQ(cache->entryPath(key), dir.path() + "/v1/" + key.substr(0, 2) + "/" + key + ".tjc");
  EXPECT_TRUE(fileExists(cache->entryPath(key)));
  absl::StatusOr<std::optional<CacheEntry>> found = openCache(testOptions(dir.path()))->lookup(key);
  ASSERT_TRUE(found.ok() && found->has_value());
  EXPECT_EQ(**found, entry);
  // One file per entry and no staging left behind.
  EXPECT_EQ(entryFiles(dir.path()).size(), 1u);
}

TEST(DiskCacheTest, RejectsMalformedKeys) {
  ScratchDirectory dir("badkey");
  auto cache = openCache(testOptions(dir.path()));
  for (std::string key : {std::string(), std::string("../../etc/passwd"), std::string(64, 'G')}) {
    absl::Status status = cache->store(key, CacheEntry{});
    EXPECT_TRUE(absl::IsInvalidArgument(status)) << status;
    EXPECT_NE(status.message().find("64 lowercase hex"), std::string::npos);
    EXPECT_FALSE(cache->lookup(key).ok());
  }
}

TEST(DiskCacheTest, GetOrComputeComputesOnceThenHits) {
  ScratchDirectory dir("getorcompute");
  DiskCacheOptions options = testOptions(dir.path());
  options.memoryLayerMaxBytes = 1 << 20;
  auto cache = openCache(options);
  std::string key = testKey(7);
  int computed = 0;
  auto compute = [&]() -> absl::StatusOr<CacheEntry> {
    ++computed;
    return testEntry(key, 100);
  };
  bool hit = true;
  ASSERT_TRUE(cache->getOrCompute(key, compute, &hit).ok());
  EXPECT_FALSE(hit);
  absl::StatusOr<CacheEntry> again = cache->getOrCompute(key, compute, &hit);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(hit);
  EXPECT_EQ(*again, testEntry(key, 100));
  EXPECT_EQ(computed, 1);
  absl::StatusOr<CacheStats> stats = cache->stats();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->memoryHits, 1);
  EXPECT_EQ(stats->computes, 1);
  EXPECT_EQ(stats->entries, 1);
}

TEST(DiskCacheTest, ComputeErrorsPropagateAndAreNotCached) {
  ScratchDirectory dir("computeerror");
  auto cache = openCache(testOptions(dir.path()));
  std::string key = testKey(8);
  absl::StatusOr<CacheEntry> failed = cache->getOrCompute(
      key, []() -> absl::StatusOr<CacheEntry> { return absl::InvalidArgumentError("bad dtype"); });
  EXPECT_EQ(failed.status().message(), "bad dtype");
  EXPECT_TRUE(entryFiles(dir.path()).empty());
}

TEST(DiskCacheTest, ThreadsOfOneProcessComputeAKeyOnce) {
  ScratchDirectory dir("threads");
  DiskCacheOptions options = testOptions(dir.path());
  options.memoryLayerMaxBytes = 1 << 20;
  auto cache = openCache(options);
  std::atomic<int> computed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int k = 0; k < 10; ++k) {
        std::string key = testKey(100 + k);
        absl::StatusOr<CacheEntry> entry = cache->getOrCompute(key, [&]() -> absl::StatusOr<CacheEntry> {
          computed.fetch_add(1);
          std::this_thread::sleep_for(std::chrono::milliseconds(2));
          return testEntry(key, 1000);
        });
        EXPECT_TRUE(entry.ok() && *entry == testEntry(key, 1000));
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(computed.load(), 10);
}

// Mutations a disk, a crash or a foreign tool could inflict on an entry file.
enum class Mutation { kTruncate, kFlipBytes, kSwapFiles, kSwapBodies, kMalformHeader, kAppend, kEmpty };

TEST(DiskCacheTest, CorruptionFuzzIsDetectedReportedOnceAndRebuilt) {
  ScratchDirectory dir("fuzz");
  std::mt19937 random(12345);
  std::map<Mutation, int> applied;
  for (int iteration = 0; iteration < 300; ++iteration) {
    std::string keyA = testKey(2 * iteration), keyB = testKey(2 * iteration + 1);
    // Same sizes for A and B so that a body swap keeps every length field consistent.
    size_t binaryBytes = 64 + random() % 4000;
    CacheEntry entryA = testEntry(keyA, binaryBytes), entryB = testEntry(keyB, binaryBytes);
    WarningLog warnings;
    auto cache = openCache(testOptions(dir.path(), &warnings));
    ASSERT_TRUE(cache->store(keyA, entryA).ok());
    ASSERT_TRUE(cache->store(keyB, entryB).ok());
    std::string pathA = cache->entryPath(keyA), pathB = cache->entryPath(keyB);
    std::string bytes = readFile(pathA), other = readFile(pathB);
    Mutation mutation = Mutation(random() % 7);
    ++applied[mutation];
    switch (mutation) {
      case Mutation::kTruncate: bytes.resize(random() % bytes.size()); break;
      case Mutation::kFlipBytes:
        for (int flips = 1 + random() % 3; flips > 0; --flips) {
          bytes[random() % bytes.size()] ^= char(1 + random() % 255);
        }
        break;
      case Mutation::kSwapFiles: bytes = other; break;
      case Mutation::kSwapBodies: {
        size_t bodyStart = 40 + 9 + 64;  // header, writer version "0.1.0-dev", key
        bytes.replace(bodyStart, bytes.size() - 32 - bodyStart,
                      other.substr(bodyStart, other.size() - 32 - bodyStart));
        break;
      }
      case Mutation::kMalformHeader: {
        size_t at = random() % 40;
        bytes[at] = char(uint8_t(bytes[at]) ^ (1 + random() % 255));
        break;
      }
      case Mutation::kAppend: bytes += std::string(1 + random() % 100, 'z'); break;
      case Mutation::kEmpty: bytes.clear(); break;
    }
    writeFile(pathA, bytes);

    int computed = 0;
    bool useLookup = iteration % 2 == 0;
    if (useLookup) {
      absl::StatusOr<std::optional<CacheEntry>> found = cache->lookup(keyA);
      ASSERT_TRUE(found.ok()) << found.status();
      EXPECT_FALSE(found->has_value()) << "mutation " << int(mutation) << " went unnoticed";
      EXPECT_FALSE(fileExists(pathA)) << "corrupt entry left in the writable layer";
    }
    absl::StatusOr<CacheEntry> rebuilt = cache->getOrCompute(keyA, [&]() -> absl::StatusOr<CacheEntry> {
      ++computed;
      return entryA;
    });
    ASSERT_TRUE(rebuilt.ok()) << rebuilt.status();
    EXPECT_EQ(*rebuilt, entryA);
    EXPECT_EQ(computed, 1) << "mutation " << int(mutation);
    ASSERT_EQ(warnings.messages.size(), 1u) << "mutation " << int(mutation);
    EXPECT_NE(warnings.messages[0].find(pathA), std::string::npos) << warnings.messages[0];
    EXPECT_NE(warnings.messages[0].find("corrupt"), std::string::npos);
    // Rebuilt entry is sound and read back without further warnings.
    absl::StatusOr<std::optional<CacheEntry>> after = openCache(testOptions(dir.path(), &warnings))->lookup(keyA);
    ASSERT_TRUE(after.ok() && after->has_value());
    EXPECT_EQ(**after, entryA);
    EXPECT_EQ(warnings.messages.size(), 1u);
    // B untouched.
    EXPECT_EQ(readFile(pathB), other);
  }
  EXPECT_EQ(applied.size(), 7u);
}

TEST(DiskCacheTest, ReadOnlyLayerIsSearchedAndNeverWritten) {
  ScratchDirectory readOnly("readonly"), writable("writable");
  std::string keyA = testKey(1), keyB = testKey(2), keyC = testKey(3);
  {
    auto image = openCache(testOptions(readOnly.path()));
    ASSERT_TRUE(image->store(keyA, testEntry(keyA, 3000)).ok());
    ASSERT_TRUE(image->store(keyB, testEntry(keyB, 3000)).ok());
  }
  std::string pathB = readOnly.path() + "/v1/" + keyB.substr(0, 2) + "/" + keyB + ".tjc";
  std::string corruptB = readFile(pathB);
  corruptB[200] ^= 0x10;
  writeFile(pathB, corruptB);
  // Snapshot of names, bytes and mtimes: nothing below may change any of them.
  auto snapshot = [&] {
    std::vector<std::string> state;
    for (const auto& item : std::filesystem::recursive_directory_iterator(readOnly.path())) {
      struct stat info;
      ::stat(item.path().c_str(), &info);
      state.push_back(item.path().string() + " " + std::to_string(info.st_mtim.tv_nsec) + " " +
                      (item.is_regular_file() ? readFile(item.path().string()) : "dir"));
    }
    std::sort(state.begin(), state.end());
    return state;
  };
  auto before = snapshot();

  WarningLog warnings;
  DiskCacheOptions options = testOptions(writable.path(), &warnings);
  options.readOnlyDirectories = {readOnly.path(), writable.path() + "/does-not-exist"};
  auto cache = openCache(options);
  absl::StatusOr<std::optional<CacheEntry>> a = cache->lookup(keyA);
  ASSERT_TRUE(a.ok() && a->has_value());
  EXPECT_EQ(**a, testEntry(keyA, 3000));
  EXPECT_TRUE(entryFiles(writable.path()).empty()) << "read-only hits are not copied";

  for (int repeat = 0; repeat < 3; ++repeat) {
    absl::StatusOr<std::optional<CacheEntry>> b = cache->lookup(keyB);
    ASSERT_TRUE(b.ok());
    EXPECT_FALSE(b->has_value());
  }
  ASSERT_EQ(warnings.messages.size(), 1u) << "corrupt read-only entry reported once";
  EXPECT_NE(warnings.messages[0].find(pathB), std::string::npos);
  EXPECT_NE(warnings.messages[0].find("read-only"), std::string::npos);

  bool hit = true;
  absl::StatusOr<CacheEntry> b = cache->getOrCompute(
      keyB, [&]() -> absl::StatusOr<CacheEntry> { return testEntry(keyB, 3000); }, &hit);
  ASSERT_TRUE(b.ok());
  EXPECT_FALSE(hit);
  EXPECT_TRUE(fileExists(cache->entryPath(keyB))) << "rebuilt into the writable layer";
  ASSERT_TRUE(cache->store(keyC, testEntry(keyC, 10)).ok());

  absl::StatusOr<VerifyReport> verified = cache->verifyAll(/*removeCorrupt=*/true);
  ASSERT_TRUE(verified.ok());
  EXPECT_EQ(verified->checked, 4);
  ASSERT_EQ(verified->problems.size(), 1u);
  EXPECT_NE(verified->problems[0].find("read-only"), std::string::npos);
  GcOptions gc;
  gc.maxBytes = 1;
  ASSERT_TRUE(cache->collectGarbage(gc).ok());
  ASSERT_TRUE(cache->clear().ok());
  EXPECT_EQ(snapshot(), before);
}

// Sets an entry's mtime (the LRU clock) to `secondsAgo` before now.
void age(const std::string& path, int secondsAgo) {
  struct timespec times[2];
  ::clock_gettime(CLOCK_REALTIME, &times[0]);
  times[0].tv_sec -= secondsAgo;
  times[1] = times[0];
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, 0), 0);
}

TEST(DiskCacheTest, EvictionIsLeastRecentlyUsedAndSparesEntriesInUse) {
  ScratchDirectory dir("evict");
  DiskCacheOptions options = testOptions(dir.path());
  const size_t binaryBytes = 10000;
  std::string probe = testKey(0);
  int64_t fileBytes = int64_t(encodeEntry(probe, options.writerVersion, testEntry(probe, binaryBytes)).size());
  options.maxBytes = 10 * fileBytes + fileBytes / 2;
  auto cache = openCache(options);
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(cache->store(testKey(i), testEntry(testKey(i), binaryBytes)).ok());
    age(cache->entryPath(testKey(i)), 1000 - i);  // 0 oldest ... 9 newest
  }
  EXPECT_EQ(cache->stats()->evictions, 0);
  // Entry 0 (oldest) is held in use; entry 1 is read, which makes it the most recent.
  absl::StatusOr<CacheEntryPin> pin = cache->pin(testKey(0));
  ASSERT_TRUE(pin.ok() && pin->held());
  ASSERT_TRUE(openCache(testOptions(dir.path()))->lookup(testKey(1)).value().has_value());

  for (int i = 10; i < 13; ++i) {
    ASSERT_TRUE(cache->store(testKey(i), testEntry(testKey(i), binaryBytes)).ok());
  }
  auto present = [&](int i) { return fileExists(cache->entryPath(testKey(i))); };
  EXPECT_TRUE(present(0)) << "an entry in use was evicted";
  EXPECT_TRUE(present(1)) << "the most recently used entry was evicted";
  for (int i = 10; i < 13; ++i) EXPECT_TRUE(present(i));
  // Evicted: a prefix of the remaining LRU order 2, 3, 4, ...
  int firstKept = 2;
  while (firstKept < 10 && !present(firstKept)) ++firstKept;
  EXPECT_GT(firstKept, 2) << "nothing was evicted";
  for (int i = firstKept; i < 10; ++i) EXPECT_TRUE(present(i)) << "entry " << i;
  absl::StatusOr<CacheStats> stats = cache->stats();
  EXPECT_LE(stats->bytes, options.maxBytes);
  EXPECT_EQ(stats->evictions, firstKept - 2);

  // gc to zero bytes spares only the pinned entry, and takes it once the pin is gone.
  GcOptions gc;
  gc.maxBytes = 0;
  absl::StatusOr<GcReport> report = cache->collectGarbage(gc);
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->skippedInUse, 1);
  EXPECT_EQ(entryFiles(dir.path()), std::vector<std::string>{cache->entryPath(testKey(0))});
  *pin = CacheEntryPin();
  report = cache->collectGarbage(gc);
  EXPECT_TRUE(entryFiles(dir.path()).empty());
  EXPECT_EQ(report->remainingBytes, 0);
}

std::string sanitizedHost() {
  char buffer[256] = {};
  ::gethostname(buffer, sizeof(buffer) - 1);
  std::string host(buffer);
  for (char& c : host) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-') c = '-';
  }
  return host;
}

TEST(DiskCacheTest, GcSweepsStagingOfDeadWritersOnly) {
  ScratchDirectory dir("staging");
  auto cache = openCache(testOptions(dir.path()));
  std::string key = testKey(1);
  ASSERT_TRUE(cache->store(key, testEntry(key, 100)).ok());
  pid_t dead = ::fork();
  if (dead == 0) ::_exit(0);
  ::waitpid(dead, nullptr, 0);
  std::string base = cache->entryPath(key) + ".tmp.";
  std::string deadWriter = base + sanitizedHost() + "." + std::to_string(dead) + ".00aa";
  std::string liveWriter = base + sanitizedHost() + "." + std::to_string(::getpid()) + ".00bb";
  std::string otherHostFresh = base + "elsewhere.1234.00cc";
  std::string otherHostOld = base + "elsewhere.1235.00dd";
  for (const auto& path : {deadWriter, liveWriter, otherHostFresh, otherHostOld}) writeFile(path, "partial");
  age(otherHostOld, 2 * 3600);
  EXPECT_EQ(cache->stats()->stagingFiles, 4);
  absl::StatusOr<GcReport> report = cache->collectGarbage(GcOptions{});
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->sweptStagingFiles, 2);
  EXPECT_FALSE(fileExists(deadWriter));
  EXPECT_TRUE(fileExists(liveWriter));
  EXPECT_TRUE(fileExists(otherHostFresh));
  EXPECT_FALSE(fileExists(otherHostOld));
  EXPECT_TRUE(cache->lookup(key).value().has_value()) << "gc must not touch sound entries";
}

TEST(DiskCacheTest, StoreFailureStillReturnsTheComputedEntry) {
  ScratchDirectory dir("storefail");
  WarningLog warnings;
  auto cache = openCache(testOptions(dir.path(), &warnings));
  std::string key = testKey(3);
  // A directory where the shard directory should be makes the store fail.
  writeFile(dir.path() + "/v1/" + key.substr(0, 2), "not a directory");
  absl::StatusOr<CacheEntry> entry = cache->getOrCompute(
      key, [&]() -> absl::StatusOr<CacheEntry> { return testEntry(key, 10); });
  ASSERT_TRUE(entry.ok()) << entry.status();
  EXPECT_EQ(*entry, testEntry(key, 10));
  ASSERT_EQ(warnings.messages.size(), 1u);
  EXPECT_NE(warnings.messages[0].find("could not store"), std::string::npos);
}

TEST(DiskCacheTest, MemoryLayerServesHotLookupsWithoutDisk) {
  ScratchDirectory dir("memory");
  DiskCacheOptions options = testOptions(dir.path());
  options.memoryLayerMaxBytes = 3 * 1100;
  auto cache = openCache(options);
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(cache->store(testKey(i), testEntry(testKey(i), 1000)).ok());
  std::filesystem::remove_all(dir.path() + "/v1");
  // The three most recent fit the budget; the first was dropped.
  EXPECT_FALSE(cache->lookup(testKey(0)).value().has_value());
  for (int i = 1; i < 4; ++i) EXPECT_TRUE(cache->lookup(testKey(i)).value().has_value()) << i;
  cache->dropMemoryLayer();
  EXPECT_FALSE(cache->lookup(testKey(3)).value().has_value());
}

TEST(DiskCacheTest, ConfigurationFromEnvironment) {
  ::setenv("TILEJIT_CACHE_DIR", "/x/tj", 1);
  ::setenv("XDG_CACHE_HOME", "/x/xdg", 1);
  EXPECT_EQ(defaultCacheDirectory().value(), "/x/tj");
  ::unsetenv("TILEJIT_CACHE_DIR");
  EXPECT_EQ(defaultCacheDirectory().value(), "/x/xdg/tilejit");
  ::unsetenv("XDG_CACHE_HOME");
  std::string home = std::getenv("HOME") ? std::getenv("HOME") : "";
  ::setenv("HOME", "/x/home", 1);
  EXPECT_EQ(defaultCacheDirectory().value(), "/x/home/.cache/tilejit");
  ::setenv("TILEJIT_CACHE_MAX_BYTES", "512M", 1);
  ::setenv("TILEJIT_CACHE_READONLY_DIRS", "/a::/b", 1);
  absl::StatusOr<DiskCacheOptions> options = diskCacheOptionsFromEnvironment();
  ASSERT_TRUE(options.ok());
  EXPECT_EQ(options->maxBytes, int64_t(512) << 20);
  EXPECT_EQ(options->readOnlyDirectories, (std::vector<std::string>{"/a", "/b"}));
  ::setenv("TILEJIT_CACHE_MAX_BYTES", "lots", 1);
  absl::Status bad = diskCacheOptionsFromEnvironment().status();
  EXPECT_NE(bad.message().find("TILEJIT_CACHE_MAX_BYTES"), std::string::npos) << bad;
  EXPECT_NE(bad.message().find("'lots'"), std::string::npos) << bad;
  ::unsetenv("TILEJIT_CACHE_MAX_BYTES");
  ::unsetenv("TILEJIT_CACHE_READONLY_DIRS");
  ::unsetenv("HOME");
  EXPECT_FALSE(defaultCacheDirectory().ok());
  if (!home.empty()) ::setenv("HOME", home.c_str(), 1);
  EXPECT_EQ(parseByteCount("4G").value(), int64_t(4) << 30);
  EXPECT_EQ(parseByteCount("1000").value(), 1000);
  EXPECT_FALSE(parseByteCount("-1").ok());
  EXPECT_FALSE(parseByteCount("99999999999T").ok());
}

}  // namespace
}  // namespace tilejit
