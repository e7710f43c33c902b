// The fleet tier's configuration: Redis URLs, and the environment that turns it on - never
// without a signing key.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>

#include "cache/fleet_tier.h"
#include "cache/redis_client.h"
#include "cache_test_util.h"

namespace tilejit::testing {
namespace {

TEST(RedisUrlTest, AcceptedForms) {
  auto tcp = parseRedisUrl("redis://cache.internal:6380/3");
  ASSERT_TRUE(tcp.ok()) << tcp.status();
  EXPECT_EQ(tcp->host, "cache.internal");
  EXPECT_EQ(tcp->port, 6380);
  EXPECT_EQ(tcp->database, 3);
  auto defaults = parseRedisUrl("redis://10.0.0.5");
  ASSERT_TRUE(defaults.ok());
  EXPECT_EQ(defaults->port, 6379);
  EXPECT_EQ(defaults->database, 0);
  auto password = parseRedisUrl("redis://:s3cret@h:1/");
  ASSERT_TRUE(password.ok());
  EXPECT_EQ(password->password, "s3cret");
  EXPECT_EQ(password->describe().find("s3cret"), std::string::npos);
  auto unixSocket = parseRedisUrl("unix:///run/redis/redis.sock?db=2");
  ASSERT_TRUE(unixSocket.ok());
  EXPECT_EQ(unixSocket->unixPath, "/run/redis/redis.sock");
  EXPECT_EQ(unixSocket->database, 2);
}

TEST(RedisUrlTest, RejectedFormsSayWhy) {
  auto expectError = [](const char* url, const char* why) {
    auto parsed = parseRedisUrl(url);
    ASSERT_FALSE(parsed.ok()) << url;
    EXPECT_NE(parsed.status().message().find(why), std::string::npos) << parsed.status();
    EXPECT_NE(parsed.status().message().find(url), std::string::npos) << parsed.status();
  };
  expectError("http://h:1", "unknown scheme");
  expectError("redis://h:0", "port '0'");
  expectError("redis://h:99999", "port '99999'");
  expectError("redis://h:1/x", "database 'x'");
  expectError("redis://:1", "no host");
  expectError("redis://user:pw@h", "':password@'");
  expectError("unix://relative.sock", "absolute");
  expectError("unix:///s.sock?database=1", "db=");
}

// Sets the fleet tier's variables for one test and clears them after.
class FleetEnvironmentTest : public ::testing::Test {
 protected:
  void TearDown() override {
    for (const char* name : {"TILEJIT_REDIS_URL", "TILEJIT_REDIS_KEY_FILE",
                             "TILEJIT_REDIS_TTL_SECONDS", "TILEJIT_REDIS_MAX_ENTRY_BYTES",
                             "TILEJIT_REDIS_CONNECT_TIMEOUT_MS", "TILEJIT_REDIS_COMMAND_TIMEOUT_MS",
                             "TILEJIT_REDIS_RETRY_SECONDS"}) {
      ::unsetenv(name);
    }
  }
  std::string keyFile(const std::string& content, mode_t mode = 0600) {
    std::string path = directory_ / "fleet.key";
    writeFile(path, content);
    ::chmod(path.c_str(), mode);
    return path;
  }
  ScratchDirectory directory_{"fleet_env"};
  std::vector<std::string> warnings_;
};

TEST_F(FleetEnvironmentTest, NoUrlMeansNoTierAndNoWarning) {
  EXPECT_EQ(FleetTier::fromEnvironment(nullptr, &warnings_), nullptr);
  EXPECT_TRUE(warnings_.empty());
}

TEST_F(FleetEnvironmentTest, NoSigningKeyTurnsTheTierOffWithOneWarning) {
  ::setenv("TILEJIT_REDIS_URL", "redis://127.0.0.1:6379", 1);
  EXPECT_EQ(FleetTier::fromEnvironment(nullptr, &warnings_), nullptr);
  ASSERT_EQ(warnings_.size(), 1u);
  EXPECT_NE(warnings_[0].find("TILEJIT_REDIS_KEY_FILE"), std::string::npos);
  warnings_.clear();
  ::setenv("TILEJIT_REDIS_KEY_FILE", (directory_ / "missing.key").c_str(), 1);
  EXPECT_EQ(FleetTier::fromEnvironment(nullptr, &warnings_), nullptr);
  ASSERT_EQ(warnings_.size(), 1u);
  EXPECT_NE(warnings_[0].find("cannot be read"), std::string::npos);
}

TEST_F(FleetEnvironmentTest, ShortKeyTurnsTheTierOff) {
  ::setenv("TILEJIT_REDIS_URL", "redis://127.0.0.1:6379", 1);
  ::setenv("TILEJIT_REDIS_KEY_FILE", keyFile("short\n").c_str(), 1);
  EXPECT_EQ(FleetTier::fromEnvironment(nullptr, &warnings_), nullptr);
  ASSERT_EQ(warnings_.size(), 1u);
  EXPECT_NE(warnings_[0].find("at least 16"), std::string::npos) << warnings_[0];
}

TEST_F(FleetEnvironmentTest, BadUrlTurnsTheTierOff) {
  ::setenv("TILEJIT_REDIS_URL", "redis://h:notaport", 1);
  ::setenv("TILEJIT_REDIS_KEY_FILE", keyFile("0123456789abcdef0123").c_str(), 1);
  EXPECT_EQ(FleetTier::fromEnvironment(nullptr, &warnings_), nullptr);
  ASSERT_EQ(warnings_.size(), 1u);
  EXPECT_NE(warnings_[0].find("TILEJIT_REDIS_URL"), std::string::npos);
}

TEST_F(FleetEnvironmentTest, EveryVariableIsRead) {
  ::setenv("TILEJIT_REDIS_URL", "unix:///run/redis.sock?db=4", 1);
  ::setenv("TILEJIT_REDIS_KEY_FILE", keyFile("0123456789abcdef0123\n").c_str(), 1);
  ::setenv("TILEJIT_REDIS_TTL_SECONDS", "3600", 1);
  ::setenv("TILEJIT_REDIS_MAX_ENTRY_BYTES", "8M", 1);
  ::setenv("TILEJIT_REDIS_CONNECT_TIMEOUT_MS", "50", 1);
  ::setenv("TILEJIT_REDIS_COMMAND_TIMEOUT_MS", "75", 1);
  ::setenv("TILEJIT_REDIS_RETRY_SECONDS", "5", 1);
  auto tier = FleetTier::fromEnvironment(nullptr, &warnings_);
  ASSERT_NE(tier, nullptr);
  EXPECT_TRUE(warnings_.empty()) << warnings_[0];
  const FleetTierOptions& options = tier->options();
  EXPECT_EQ(options.signingKey, "0123456789abcdef0123");  // the editor's newline dropped
  EXPECT_EQ(options.endpoint.database, 4);
  EXPECT_EQ(options.ttl.count(), 3600);
  EXPECT_EQ(options.maxEntryBytes, 8 << 20);
  EXPECT_EQ(options.connectTimeout.count(), 50);
  EXPECT_EQ(options.commandTimeout.count(), 75);
  EXPECT_EQ(options.retryAfterFailure.count(), 5000);
}

TEST_F(FleetEnvironmentTest, UnusableNumbersKeepDefaultsAndWorldReadableKeyIsNoted) {
  ::setenv("TILEJIT_REDIS_URL", "redis://127.0.0.1", 1);
  ::setenv("TILEJIT_REDIS_KEY_FILE", keyFile("0123456789abcdef0123", 0644).c_str(), 1);
  ::setenv("TILEJIT_REDIS_TTL_SECONDS", "-5", 1);
  ::setenv("TILEJIT_REDIS_MAX_ENTRY_BYTES", "lots", 1);
  auto tier = FleetTier::fromEnvironment(nullptr, &warnings_);
  ASSERT_NE(tier, nullptr);
  EXPECT_EQ(tier->options().ttl, FleetTierOptions().ttl);
  EXPECT_EQ(tier->options().maxEntryBytes, FleetTierOptions().maxEntryBytes);
  ASSERT_EQ(warnings_.size(), 3u);
  EXPECT_NE(warnings_[0].find("readable by every user"), std::string::npos);
  EXPECT_NE(warnings_[1].find("TILEJIT_REDIS_TTL_SECONDS='-5'"), std::string::npos);
  EXPECT_NE(warnings_[2].find("TILEJIT_REDIS_MAX_ENTRY_BYTES='lots'"), std::string::npos);
}

}  // namespace
}  // namespace tilejit::testing
