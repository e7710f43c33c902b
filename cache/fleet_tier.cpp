#include "cache/fleet_tier.h"

#include <unistd.h>

#include <iostream>

#include "absl/strings/str_cat.h"
#include "cache/hmac.h"

namespace tilejit {
namespace {

constexpr char kRedisKeyPrefix[] = "tilejit:v1:";
constexpr size_t kTagBytes = 32;

std::string tagOf(std::string_view signingKey, std::string_view bytes) {
  Sha256Digest tag = hmacSha256(signingKey, bytes);
  return std::string(reinterpret_cast<const char*>(tag.data()), tag.size());
}

// "OOM command not allowed ..." -> "OOM": one warning per kind of refusal, not per message.
std::string errorCode(const std::string& text) { return text.substr(0, text.find(' ')); }

}  // namespace

absl::StatusOr<std::unique_ptr<FleetTier>> FleetTier::create(FleetTierOptions options) {
  if (options.signingKey.size() < kFleetSigningKeyMinBytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "fleet cache signing key has ", options.signingKey.size(), " bytes; at least ",
        kFleetSigningKeyMinBytes, " are needed (e.g. head -c 32 /dev/urandom | base64)"));
  }
  if (options.ttl.count() <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("fleet cache TTL ", options.ttl.count(), " s is not positive"));
  }
  if (options.maxEntryBytes <= 0) {
    return absl::InvalidArgumentError(absl::StrCat("fleet cache entry bound ",
                                                   options.maxEntryBytes, " is not positive"));
  }
  return std::unique_ptr<FleetTier>(new FleetTier(std::move(options)));
}

std::string FleetTier::redisKey(const std::string& key) { return kRedisKeyPrefix + key; }

std::string FleetTier::seal(const std::string& key, const CacheEntry& entry) const {
  std::string bytes = encodeEntry(key, options_.writerVersion, entry);
  bytes += tagOf(options_.signingKey, bytes);
  return bytes;
}

absl::StatusOr<CacheEntry> FleetTier::unseal(const std::string& key, std::string_view value) const {
  if (value.size() < kTagBytes || value.size() - kTagBytes > uint64_t(options_.maxEntryBytes)) {
    return absl::OutOfRangeError(absl::StrCat("its ", value.size(),
                                              " bytes are outside the accepted 32..",
                                              options_.maxEntryBytes + int64_t(kTagBytes)));
  }
  std::string_view bytes = value.substr(0, value.size() - kTagBytes);
  if (!digestsEqualConstantTime(value.substr(bytes.size()), tagOf(options_.signingKey, bytes))) {
    return absl::PermissionDeniedError(
        "its signature does not match (forged, corrupt, truncated, or signed with another key)");
  }
  // Signed by a holder of the key, yet still checked: a bug of ours must not load a wrong
  // kernel either (another key's entry, a bad checksum).
  return decodeEntry(bytes, key);
}

void FleetTier::warnOnce(const std::string& kind, const std::string& message) {
  {
    std::lock_guard<std::mutex> guard(warnedMutex_);
    if (!warned_.insert(kind).second) return;
  }
  std::string line = absl::StrCat(message, " (said once per process)");
  if (options_.warningSink) {
    options_.warningSink(line);
  } else {
    std::cerr << "tilejit cache: warning: " << line << "\n";
  }
}

RedisConnection* FleetTier::connection() {
  // Two processes speaking on one socket would read each other's replies (rejected, but
  // lost): after fork() the child opens its own (closing its copy leaves the parent's open).
  if (connection_ && connectedPid_ != ::getpid()) connection_.reset();
  if (connection_) return connection_.get();
  auto now = std::chrono::steady_clock::now();
  if (now < retryAt_) {
    skippedBackoff_.fetch_add(1);
    return nullptr;
  }
  absl::StatusOr<std::unique_ptr<RedisConnection>> connected = RedisConnection::connect(
      options_.endpoint, options_.connectTimeout, options_.commandTimeout);
  if (!connected.ok()) {
    exchangeFailed(connected.status(), "connect");
    return nullptr;
  }
  connection_ = std::move(*connected);
  connectedPid_ = ::getpid();
  return connection_.get();
}

void FleetTier::exchangeFailed(const absl::Status& status, const char* kind) {
  failures_.fetch_add(1);
  connection_.reset();
  retryAt_ = std::chrono::steady_clock::now() + options_.retryAfterFailure;
  warnOnce(kind, absl::StrCat("fleet cache: ", status.message(),
                              "; using the local cache and compiling locally, Redis asked again "
                              "in ", options_.retryAfterFailure.count() / 1000.0, " s"));
}

std::shared_ptr<const CacheEntry> FleetTier::fetch(const std::string& key) {
  std::string value;
  {
    std::lock_guard<std::mutex> guard(mutex_);
    RedisConnection* redis = connection();
    if (!redis) return nullptr;
    std::string name = redisKey(key);
    auto notAString = [&]() -> std::shared_ptr<const CacheEntry> {
      rejected_.fetch_add(1);
      warnOnce("rejected", absl::StrCat("fleet cache: Redis holds no string at ", name,
                                        "; entry rejected, compiling locally"));
      return nullptr;
    };
    absl::StatusOr<RedisReply> reply = redis->command({"GET", name});
    if (!reply.ok()) {
      exchangeFailed(reply.status(), absl::IsDeadlineExceeded(reply.status()) ? "timeout" : "io");
      return nullptr;
    }
    switch (reply->kind) {
      case RedisReply::Kind::kNil:
        misses_.fetch_add(1);
        return nullptr;
      case RedisReply::Kind::kString:
        value = std::move(reply->text);
        break;
      case RedisReply::Kind::kError:
        if (errorCode(reply->text) == "WRONGTYPE") return notAString();  // a list, a hash...
        failures_.fetch_add(1);
        warnOnce("error:" + errorCode(reply->text),
                 absl::StrCat("fleet cache: Redis answered GET ", name, " with '", reply->text,
                              "'; compiling locally"));
        return nullptr;
      default:
        return notAString();
    }
  }
  absl::StatusOr<CacheEntry> entry = unseal(key, value);
  if (!entry.ok()) {
    rejected_.fetch_add(1);
    warnOnce("rejected", absl::StrCat("fleet cache: entry ", redisKey(key), " rejected: ",
                                      entry.status().message(), "; compiling locally"));
    return nullptr;
  }
  hits_.fetch_add(1);
  return std::make_shared<const CacheEntry>(std::move(*entry));
}

void FleetTier::publish(const std::string& key, const CacheEntry& entry) {
  std::string value = seal(key, entry);
  if (value.size() - kTagBytes > uint64_t(options_.maxEntryBytes)) {
    notPublishedOversize_.fetch_add(1);
    warnOnce("oversize", absl::StrCat("fleet cache: entry ", key, " has ",
                                      value.size() - kTagBytes, " bytes, over the bound of ",
                                      options_.maxEntryBytes,
                                      " (TILEJIT_REDIS_MAX_ENTRY_BYTES): kept locally only"));
    return;
  }
  std::lock_guard<std::mutex> guard(mutex_);
  RedisConnection* redis = connection();
  if (!redis) return;
  std::string name = redisKey(key);
  std::string ttl = std::to_string(options_.ttl.count());
  absl::StatusOr<RedisReply> reply = redis->command({"SET", name, value, "EX", ttl});
  if (!reply.ok()) {
    exchangeFailed(reply.status(), absl::IsDeadlineExceeded(reply.status()) ? "timeout" : "io");
    return;
  }
  if (reply->kind == RedisReply::Kind::kError) {
    failures_.fetch_add(1);
    warnOnce("error:" + errorCode(reply->text),
             absl::StrCat("fleet cache: Redis refused to store ", name, ": '", reply->text,
                          "'; the entry is kept locally only"));
    return;
  }
  published_.fetch_add(1);
}

FleetTierStats FleetTier::stats() const {
  FleetTierStats stats;
  stats.hits = hits_.load();
  stats.misses = misses_.load();
  stats.rejected = rejected_.load();
  stats.failures = failures_.load();
  stats.skippedBackoff = skippedBackoff_.load();
  stats.published = published_.load();
  stats.notPublishedOversize = notPublishedOversize_.load();
  return stats;
}

}  // namespace tilejit
