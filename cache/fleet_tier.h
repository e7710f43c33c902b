// The fleet tier: a Redis shared by many nodes, behind each node's disk cache (memory -> local
// disk -> Redis -> compile). Entries are content-addressed (Redis key tilejit:v1:<cache key>),
// carry the disk entry format (its SHA-256 checksum and the key it was built for) and an
// HMAC-SHA-256 of those bytes under a key the fleet shares, so write access to Redis alone
// cannot plant a kernel. The tier never fails a lookup: an unreachable, slow, full or lying
// server costs one warning per kind of fault and the local path goes on; after a connection
// failure it is not asked again for a while, so a dead server does not cost a timeout per
// lookup.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "cache/entry_format.h"
#include "cache/redis_client.h"

namespace tilejit {

inline constexpr size_t kFleetSigningKeyMinBytes = 16;

struct FleetTierOptions {
  RedisEndpoint endpoint;
  std::string signingKey;  // at least kFleetSigningKeyMinBytes bytes
  std::chrono::seconds ttl = std::chrono::hours(24 * 7);
  // Entries larger than this (encoded, before the signature) are neither stored nor read.
  int64_t maxEntryBytes = int64_t(64) << 20;
  std::chrono::milliseconds connectTimeout{250};
  std::chrono::milliseconds commandTimeout{1000};
  // After a connection failure or timeout the server is left alone this long.
  std::chrono::milliseconds retryAfterFailure{30000};
  std::string writerVersion;
  // Receives warnings; default prints to stderr.
  std::function<void(const std::string&)> warningSink;
};

struct FleetTierStats {
  int64_t hits = 0;
  int64_t misses = 0;
  int64_t rejected = 0;       // forged, corrupt, truncated, oversize or another key's entry
  int64_t failures = 0;       // connection, timeout or error replies
  int64_t skippedBackoff = 0; // lookups and stores not sent while backing off
  int64_t published = 0;
  int64_t notPublishedOversize = 0;
};

class FleetTier {
 public:
  // InvalidArgument for a signing key too short, a TTL or bound that is not positive.
  static absl::StatusOr<std::unique_ptr<FleetTier>> create(FleetTierOptions options);
  // From TILEJIT_REDIS_URL, TILEJIT_REDIS_KEY_FILE, TILEJIT_REDIS_TTL_SECONDS,
  // TILEJIT_REDIS_MAX_ENTRY_BYTES, TILEJIT_REDIS_CONNECT_TIMEOUT_MS,
  // TILEJIT_REDIS_COMMAND_TIMEOUT_MS and TILEJIT_REDIS_RETRY_SECONDS. Null when no URL is set,
  // and - with one line in `warnings` - when the configuration cannot be used (no signing key:
  // the tier is never unauthenticated).
  static std::shared_ptr<FleetTier> fromEnvironment(
      std::function<void(const std::string&)> warningSink, std::vector<std::string>* warnings);

  // The verified entry, or null on a miss or any fault (warned once per kind).
  std::shared_ptr<const CacheEntry> fetch(const std::string& key);
  // Stores with the TTL; a fault is warned once per kind and otherwise ignored.
  void publish(const std::string& key, const CacheEntry& entry);

  // What fetch() accepts for `key`: the entry format's bytes followed by their HMAC.
  std::string seal(const std::string& key, const CacheEntry& entry) const;
  static std::string redisKey(const std::string& key);
  FleetTierStats stats() const;
  const FleetTierOptions& options() const { return options_; }

 private:
  explicit FleetTier(FleetTierOptions options) : options_(std::move(options)) {}
  // Caller holds mutex_. Null while backing off or when the server cannot be reached.
  RedisConnection* connection();
  // Caller holds mutex_. Drops the connection after a failed exchange and backs off.
  void exchangeFailed(const absl::Status& status, const char* kind);
  absl::StatusOr<CacheEntry> unseal(const std::string& key, std::string_view value) const;
  void warnOnce(const std::string& kind, const std::string& message);

  FleetTierOptions options_;
  std::mutex mutex_;  // the connection and the back-off clock
  std::unique_ptr<RedisConnection> connection_;
  int connectedPid_ = 0;  // a forked child must not share its parent's socket
  std::chrono::steady_clock::time_point retryAt_{};
  std::mutex warnedMutex_;
  std::set<std::string> warned_;
  std::atomic<int64_t> hits_{0}, misses_{0}, rejected_{0}, failures_{0}, skippedBackoff_{0},
      published_{0}, notPublishedOversize_{0};
};

}  // namespace tilejit
