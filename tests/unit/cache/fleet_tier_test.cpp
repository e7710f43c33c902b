// The fleet tier against a real redis-server (redis_test_server.h): what a second node gets,
// and every way Redis can fail or lie, each of which must end in a correct kernel.
#include "cache/fleet_tier.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>

#include "cache/disk_cache.h"
#include "cache_test_util.h"
#include "redis_test_server.h"

namespace tilejit::testing {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

constexpr char kSigningKey[] = "fleet-test-signing-key-0123456789";

double millisecondsSince(steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(steady_clock::now() - start).count();
}

class FleetTierTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why = server_.start();
    if (!why.empty()) GTEST_SKIP() << why;
    admin_ = server_.admin();
    ASSERT_NE(admin_, nullptr);
  }

  FleetTierOptions tierOptions(WarningLog* warnings) const {
    FleetTierOptions options;
    options.endpoint = server_.endpoint();
    options.signingKey = kSigningKey;
    options.connectTimeout = milliseconds(200);
    options.commandTimeout = milliseconds(300);
    options.retryAfterFailure = std::chrono::seconds(60);
    options.writerVersion = "test";
    options.warningSink = warnings->sink();
    return options;
  }
  std::shared_ptr<FleetTier> tier(const FleetTierOptions& options) {
    auto created = FleetTier::create(options);
    EXPECT_TRUE(created.ok()) << created.status();
    return created.ok() ? std::shared_ptr<FleetTier>(std::move(*created)) : nullptr;
  }
  std::unique_ptr<DiskCache> cache(const std::string& directory, std::shared_ptr<FleetTier> fleet,
                                   WarningLog* warnings) {
    DiskCacheOptions options = testOptions(directory, warnings);
    options.fleetTier = std::move(fleet);
    auto opened = DiskCache::open(options);
    EXPECT_TRUE(opened.ok()) << opened.status();
    return std::move(*opened);
  }
  // getOrCompute whose compute is counted and builds the key's deterministic entry.
  CacheEntry get(DiskCache& cache, const std::string& key, int* computes, size_t bytes = 4096) {
    bool hit = false;
    auto entry = cache.getOrCompute(key, [&]() -> absl::StatusOr<CacheEntry> {
      ++*computes;
      return testEntry(key, bytes);
    }, &hit);
    EXPECT_TRUE(entry.ok()) << entry.status();
    return entry.ok() ? *entry : CacheEntry();
  }
  void plant(const std::string& key, const std::string& value) {
    auto reply = admin_->command({"SET", FleetTier::redisKey(key), value});
    ASSERT_TRUE(reply.ok()) << reply.status();
    ASSERT_EQ(reply->text, "OK");
  }
  std::string stored(const std::string& key) {
    auto reply = admin_->command({"GET", FleetTier::redisKey(key)});
    return reply.ok() ? reply->text : "";
  }
  static bool anyContains(WarningLog& log, const std::string& text) {
    return std::any_of(log.messages.begin(), log.messages.end(),
                       [&](const std::string& m) { return m.find(text) != std::string::npos; });
  }

  RedisTestServer server_;
  std::unique_ptr<RedisConnection> admin_;
  ScratchDirectory nodeA_{"fleet_a"}, nodeB_{"fleet_b"};
};

TEST_F(FleetTierTest, SecondNodeWithEmptyDiskGetsTheEntryWithoutCompiling) {
  WarningLog warnings;
  std::string key = testKey(1);
  int computes = 0;
  auto first = cache(nodeA_.path(), tier(tierOptions(&warnings)), &warnings);
  get(*first, key, &computes);
  ASSERT_EQ(computes, 1);
  EXPECT_EQ(stored(key), tier(tierOptions(&warnings))->seal(key, testEntry(key, 4096)));

  // Another process: its own connection, its own (empty) disk.
  pid_t child = ::fork();
  if (child == 0) {
    WarningLog childWarnings;
    int childComputes = 0;
    auto second = cache(nodeB_.path(), tier(tierOptions(&childWarnings)), &childWarnings);
    CacheEntry entry = get(*second, key, &childComputes);
    bool ok = childComputes == 0 && entry == testEntry(key, 4096) &&
              entryFiles(nodeB_.path()).size() == 1 && childWarnings.messages.empty() &&
              second->stats()->fleetHits == 1;
    ::_exit(ok ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << "the second node compiled, got a wrong entry or did not write it to its disk";

  // Written to node B's disk: served from there with Redis gone.
  server_.kill();
  auto again = cache(nodeB_.path(), tier(tierOptions(&warnings)), &warnings);
  EXPECT_EQ(get(*again, key, &computes), testEntry(key, 4096));
  EXPECT_EQ(computes, 1);
  EXPECT_EQ(again->stats()->diskHits, 1);
  EXPECT_TRUE(warnings.messages.empty());
}

int64_t connectedClients(RedisConnection& admin) {
  auto info = admin.command({"INFO", "clients"});
  if (!info.ok()) return -1;
  size_t at = info->text.find("connected_clients:");
  return at == std::string::npos ? -1 : std::atoll(info->text.c_str() + at + 18);
}

TEST_F(FleetTierTest, ForkedChildOpensItsOwnConnection) {
  WarningLog warnings;
  auto fleet = tier(tierOptions(&warnings));
  fleet->publish(testKey(90), testEntry(testKey(90), 4096));
  ASSERT_EQ(connectedClients(*admin_), 2);  // the test's and the tier's
  int fromChild[2], toChild[2];
  ASSERT_EQ(::pipe(fromChild), 0);
  ASSERT_EQ(::pipe(toChild), 0);
  pid_t child = ::fork();
  if (child == 0) {
    char done = fleet->fetch(testKey(90)) != nullptr ? 'y' : 'n';
    (void)!::write(fromChild[1], &done, 1);
    (void)!::read(toChild[0], &done, 1);  // stay connected until the parent has counted
    ::_exit(0);
  }
  char result = 0;
  ASSERT_EQ(::read(fromChild[0], &result, 1), 1);
  EXPECT_EQ(result, 'y');
  EXPECT_EQ(connectedClients(*admin_), 3) << "the child spoke on its parent's socket";
  (void)!::write(toChild[1], &result, 1);
  ::waitpid(child, nullptr, 0);
  EXPECT_NE(fleet->fetch(testKey(90)), nullptr) << "the parent's connection was disturbed";
  for (int fd : {fromChild[0], fromChild[1], toChild[0], toChild[1]}) ::close(fd);
}

TEST_F(FleetTierTest, ForgedEntryIsRejectedRecompiledAndReplaced) {
  WarningLog warnings;
  std::string key = testKey(2);
  FleetTierOptions forger = tierOptions(&warnings);
  forger.signingKey = "not-the-fleet-key-but-long-enough";
  CacheEntry planted = testEntry(testKey(99), 4096);  // well-formed, checksummed, for `key`
  plant(key, tier(forger)->seal(key, planted));

  int computes = 0;
  auto fleet = tier(tierOptions(&warnings));
  auto node = cache(nodeA_.path(), fleet, &warnings);
  EXPECT_EQ(get(*node, key, &computes), testEntry(key, 4096));
  EXPECT_EQ(computes, 1);
  EXPECT_EQ(fleet->stats().rejected, 1);
  EXPECT_TRUE(anyContains(warnings, "signature does not match")) << warnings.messages.size();
  EXPECT_EQ(stored(key), fleet->seal(key, testEntry(key, 4096)));  // overwritten by the compile
}

TEST_F(FleetTierTest, GarbageAndOtherTypesAreRejected) {
  WarningLog warnings;
  int computes = 0;
  plant(testKey(3), std::string(700, '\x5a'));
  plant(testKey(4), "");
  ASSERT_TRUE(admin_->command({"RPUSH", FleetTier::redisKey(testKey(5)), "x"}).ok());
  auto fleet = tier(tierOptions(&warnings));
  auto node = cache(nodeA_.path(), fleet, &warnings);
  for (int i : {3, 4, 5}) EXPECT_EQ(get(*node, testKey(i), &computes), testEntry(testKey(i), 4096));
  EXPECT_EQ(computes, 3);
  EXPECT_EQ(fleet->stats().rejected, 3);
  EXPECT_EQ(warnings.messages.size(), 1u) << "one warning per kind of fault";
}

TEST_F(FleetTierTest, TruncatedEntryIsRejected) {
  WarningLog warnings;
  std::string key = testKey(6);
  auto fleet = tier(tierOptions(&warnings));
  std::string sealed = fleet->seal(key, testEntry(key, 4096));
  plant(key, sealed.substr(0, sealed.size() - 100));
  int computes = 0;
  auto node = cache(nodeA_.path(), fleet, &warnings);
  get(*node, key, &computes);
  EXPECT_EQ(computes, 1);
  EXPECT_EQ(fleet->stats().rejected, 1);
}

// Signed by the fleet, intact, but built for another key: content addressing is checked too.
TEST_F(FleetTierTest, EntryOfAnotherKeyIsRejected) {
  WarningLog warnings;
  std::string key = testKey(7), other = testKey(8);
  auto fleet = tier(tierOptions(&warnings));
  plant(key, fleet->seal(other, testEntry(other, 4096)));
  int computes = 0;
  auto node = cache(nodeA_.path(), fleet, &warnings);
  EXPECT_EQ(get(*node, key, &computes), testEntry(key, 4096));
  EXPECT_EQ(computes, 1);
  EXPECT_EQ(fleet->stats().rejected, 1);
  EXPECT_TRUE(anyContains(warnings, "rejected"));
}

TEST_F(FleetTierTest, ServerKilledMidRunCompilesLocallyAndBacksOff) {
  WarningLog warnings;
  auto fleet = tier(tierOptions(&warnings));
  auto node = cache(nodeA_.path(), fleet, &warnings);
  int computes = 0;
  get(*node, testKey(10), &computes);
  ASSERT_EQ(fleet->stats().published, 1);
  server_.kill();
  auto start = steady_clock::now();
  for (int i = 11; i < 16; ++i) {
    EXPECT_EQ(get(*node, testKey(i), &computes), testEntry(testKey(i), 4096));
  }
  EXPECT_EQ(computes, 6);
  EXPECT_EQ(warnings.messages.size(), 1u);
  EXPECT_EQ(fleet->stats().failures, 1) << "reconnected during the back-off";
  EXPECT_GE(fleet->stats().skippedBackoff, 8);  // 4 lookups and 5 stores after the failure
  EXPECT_LT(millisecondsSince(start), 1000);
}

TEST_F(FleetTierTest, UnreachablePortCostsOneWarningAndNoTimeoutPerLookup) {
  WarningLog warnings;
  FleetTierOptions options = tierOptions(&warnings);
  server_.kill();
  options.endpoint.port = freeLoopbackPort();
  auto fleet = tier(options);
  auto node = cache(nodeA_.path(), fleet, &warnings);
  int computes = 0;
  for (int i = 20; i < 24; ++i) get(*node, testKey(i), &computes);
  EXPECT_EQ(computes, 4);
  ASSERT_EQ(warnings.messages.size(), 1u);
  EXPECT_TRUE(anyContains(warnings, "cannot connect to Redis")) << warnings.messages[0];
  EXPECT_EQ(fleet->stats().failures, 1);
}

TEST_F(FleetTierTest, StalledServerTimesOutThenCompilesLocally) {
  WarningLog warnings;
  auto fleet = tier(tierOptions(&warnings));
  auto node = cache(nodeA_.path(), fleet, &warnings);
  int computes = 0;
  get(*node, testKey(30), &computes);  // connected
  server_.pause();
  auto start = steady_clock::now();
  for (int i = 31; i < 34; ++i) {
    EXPECT_EQ(get(*node, testKey(i), &computes), testEntry(testKey(i), 4096));
  }
  double elapsed = millisecondsSince(start);
  server_.resume();
  EXPECT_EQ(computes, 4);
  EXPECT_GE(elapsed, 250);   // waited for the 300 ms command timeout once...
  EXPECT_LT(elapsed, 1000);  // ...and only once (backing off), not per lookup and store (6x)
  EXPECT_TRUE(anyContains(warnings, "timed out"));
}

TEST_F(FleetTierTest, EntriesAreStoredWithTheTtl) {
  WarningLog warnings;
  FleetTierOptions options = tierOptions(&warnings);
  options.ttl = std::chrono::seconds(1234);
  auto node = cache(nodeA_.path(), tier(options), &warnings);
  int computes = 0;
  get(*node, testKey(40), &computes);
  auto ttl = admin_->command({"TTL", FleetTier::redisKey(testKey(40))});
  ASSERT_TRUE(ttl.ok());
  EXPECT_GT(ttl->integer, 1200);
  EXPECT_LE(ttl->integer, 1234);
}

TEST_F(FleetTierTest, OversizeEntriesAreNeitherStoredNorRead) {
  WarningLog warnings;
  FleetTierOptions options = tierOptions(&warnings);
  options.maxEntryBytes = 2000;
  auto fleet = tier(options);
  auto node = cache(nodeA_.path(), fleet, &warnings);
  int computes = 0;
  get(*node, testKey(50), &computes, 4096);
  auto exists = admin_->command({"EXISTS", FleetTier::redisKey(testKey(50))});
  ASSERT_TRUE(exists.ok());
  EXPECT_EQ(exists->integer, 0);
  EXPECT_EQ(fleet->stats().notPublishedOversize, 1);
  EXPECT_TRUE(anyContains(warnings, "over the bound"));
  // A valid entry over the bound (put there by a node with a larger bound) is not read.
  plant(testKey(51), tier(tierOptions(&warnings))->seal(testKey(51), testEntry(testKey(51), 4096)));
  get(*node, testKey(51), &computes, 4096);
  EXPECT_EQ(computes, 2);
  EXPECT_EQ(fleet->stats().rejected, 1);
}

TEST_F(FleetTierTest, FullServerRefusingStoresKeepsTheEntryLocally) {
  WarningLog warnings;
  ASSERT_TRUE(admin_->command({"CONFIG", "SET", "maxmemory", "1"}).ok());
  auto fleet = tier(tierOptions(&warnings));
  auto node = cache(nodeA_.path(), fleet, &warnings);
  int computes = 0;
  get(*node, testKey(60), &computes);
  get(*node, testKey(61), &computes);
  EXPECT_EQ(computes, 2);
  EXPECT_EQ(entryFiles(nodeA_.path()).size(), 2u);
  EXPECT_EQ(fleet->stats().published, 0);
  ASSERT_EQ(warnings.messages.size(), 1u);
  EXPECT_TRUE(anyContains(warnings, "OOM")) << warnings.messages[0];
}

TEST_F(FleetTierTest, PasswordIsSentAndItsAbsenceIsOneWarning) {
  ASSERT_TRUE(admin_->command({"CONFIG", "SET", "requirepass", "hunter2-hunter2"}).ok());
  WarningLog warnings;
  FleetTierOptions options = tierOptions(&warnings);
  auto withoutPassword = cache(nodeA_.path(), tier(options), &warnings);
  int computes = 0;
  get(*withoutPassword, testKey(85), &computes);
  EXPECT_EQ(computes, 1);
  ASSERT_EQ(warnings.messages.size(), 1u);
  EXPECT_TRUE(anyContains(warnings, "NOAUTH")) << warnings.messages[0];

  options.endpoint = *parseRedisUrl("redis://:hunter2-hunter2@127.0.0.1:" +
                                    std::to_string(server_.port()));
  auto fleet = tier(options);
  fleet->publish(testKey(86), testEntry(testKey(86), 4096));
  EXPECT_EQ(fleet->stats().published, 1);
  EXPECT_NE(fleet->fetch(testKey(86)), nullptr);
}

// A node-local Redis on a Unix socket (redis_test_server.h starts ours with one).
TEST_F(FleetTierTest, UnixSocketEndpoint) {
  WarningLog warnings;
  FleetTierOptions options = tierOptions(&warnings);
  auto endpoint = parseRedisUrl("unix://" + server_.unixSocket() + "?db=1");
  ASSERT_TRUE(endpoint.ok()) << endpoint.status();
  options.endpoint = *endpoint;
  auto fleet = tier(options);
  std::string key = testKey(80);
  fleet->publish(key, testEntry(key, 4096));
  auto fetched = fleet->fetch(key);
  ASSERT_NE(fetched, nullptr) << (warnings.messages.empty() ? "" : warnings.messages[0]);
  EXPECT_EQ(*fetched, testEntry(key, 4096));
  EXPECT_EQ(stored(key), "") << "SELECT 1 was not sent: the entry landed in database 0";
}

TEST_F(FleetTierTest, MeasureHitLatency) {
  WarningLog warnings;
  auto fleet = tier(tierOptions(&warnings));
  // A small kernel's metadata-dominated entry, and a CPU kernel object / CUDA cubin's order.
  for (size_t binaryBytes : {size_t(4) << 10, size_t(128) << 10}) {
    std::string key = testKey(70 + int(binaryBytes >> 10));
    fleet->publish(key, testEntry(key, binaryBytes));
    std::vector<double> samples;
    for (int i = 0; i < 200; ++i) {
      auto start = steady_clock::now();
      auto entry = fleet->fetch(key);
      samples.push_back(millisecondsSince(start));
      ASSERT_NE(entry, nullptr);
    }
    std::sort(samples.begin(), samples.end());
    std::printf("[ measure ] fleet tier Redis hit (127.0.0.1, %zu KiB binary, GET + HMAC + "
                "checksum): median %.3f ms, p90 %.3f ms, min %.3f ms over %zu\n",
                binaryBytes >> 10, samples[samples.size() / 2],
                samples[samples.size() * 9 / 10], samples[0], samples.size());
  }
  EXPECT_TRUE(warnings.messages.empty());
}

}  // namespace
}  // namespace tilejit::testing
