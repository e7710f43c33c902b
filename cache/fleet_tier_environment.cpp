// The fleet tier's configuration from the environment. Like the disk cache's, it never stops
// the JIT: a value that cannot be used is one line in `warnings` (the default is kept, or the
// tier is off), never an error.
#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "cache/disk_cache.h"
#include "cache/fleet_tier.h"

namespace tilejit {
namespace {

std::string environment(const char* name) {
  const char* value = std::getenv(name);
  return value ? std::string(value) : std::string();
}

// A positive integer from `name`, else `fallback` and a line in `warnings`.
int64_t positiveFromEnvironment(const char* name, int64_t fallback,
                                std::vector<std::string>* warnings) {
  std::string text = environment(name);
  if (text.empty()) return fallback;
  int64_t value = 0;
  if (absl::SimpleAtoi(text, &value) && value > 0) return value;
  warnings->push_back(absl::StrCat(name, "='", text, "' is not a positive integer; using ",
                                   fallback));
  return fallback;
}

absl::StatusOr<std::string> readSigningKey(const std::string& path,
                                           std::vector<std::string>* warnings) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    return absl::NotFoundError(
        absl::StrCat("TILEJIT_REDIS_KEY_FILE '", path, "' cannot be read"));
  }
  std::ostringstream content;
  content << file.rdbuf();
  std::string key = content.str();
  // A key written by `echo` or an editor ends in a newline that is not meant to be part of it.
  while (!key.empty() && (key.back() == '\n' || key.back() == '\r')) key.pop_back();
  struct stat info = {};
  if (::stat(path.c_str(), &info) == 0 && (info.st_mode & S_IROTH)) {
    warnings->push_back(absl::StrCat("TILEJIT_REDIS_KEY_FILE '", path,
                                     "' is readable by every user, who can then sign kernels "
                                     "the fleet loads (chmod o-r it)"));
  }
  return key;
}

}  // namespace

std::shared_ptr<FleetTier> FleetTier::fromEnvironment(
    std::function<void(const std::string&)> warningSink, std::vector<std::string>* warnings) {
  std::string url = environment("TILEJIT_REDIS_URL");
  if (url.empty()) return nullptr;
  FleetTierOptions options;
  options.warningSink = std::move(warningSink);
  options.writerVersion = TILEJIT_VERSION_STRING;
  absl::StatusOr<RedisEndpoint> endpoint = parseRedisUrl(url);
  if (!endpoint.ok()) {
    warnings->push_back(absl::StrCat("TILEJIT_REDIS_URL: ", endpoint.status().message(),
                                     "; the fleet cache is off"));
    return nullptr;
  }
  options.endpoint = *endpoint;
  std::string keyFile = environment("TILEJIT_REDIS_KEY_FILE");
  if (keyFile.empty()) {
    warnings->push_back(
        "TILEJIT_REDIS_URL is set but TILEJIT_REDIS_KEY_FILE (the fleet's shared signing key) "
        "is not; the fleet cache is off, since unsigned entries could be planted by anyone "
        "who can write to Redis");
    return nullptr;
  }
  absl::StatusOr<std::string> signingKey = readSigningKey(keyFile, warnings);
  if (!signingKey.ok()) {
    warnings->push_back(absl::StrCat(signingKey.status().message(), "; the fleet cache is off"));
    return nullptr;
  }
  options.signingKey = std::move(*signingKey);
  options.ttl = std::chrono::seconds(
      positiveFromEnvironment("TILEJIT_REDIS_TTL_SECONDS", options.ttl.count(), warnings));
  if (std::string bound = environment("TILEJIT_REDIS_MAX_ENTRY_BYTES"); !bound.empty()) {
    absl::StatusOr<int64_t> bytes = parseByteCount(bound);
    if (bytes.ok() && *bytes > 0) {
      options.maxEntryBytes = *bytes;
    } else {
      warnings->push_back(absl::StrCat("TILEJIT_REDIS_MAX_ENTRY_BYTES='", bound,
                                       "' is not a positive byte count (e.g. 64M); using ",
                                       options.maxEntryBytes));
    }
  }
  options.connectTimeout = std::chrono::milliseconds(positiveFromEnvironment(
      "TILEJIT_REDIS_CONNECT_TIMEOUT_MS", options.connectTimeout.count(), warnings));
  options.commandTimeout = std::chrono::milliseconds(positiveFromEnvironment(
      "TILEJIT_REDIS_COMMAND_TIMEOUT_MS", options.commandTimeout.count(), warnings));
  options.retryAfterFailure = std::chrono::seconds(positiveFromEnvironment(
      "TILEJIT_REDIS_RETRY_SECONDS", options.retryAfterFailure.count() / 1000, warnings));
  absl::StatusOr<std::unique_ptr<FleetTier>> tier = create(std::move(options));
  if (!tier.ok()) {
    warnings->push_back(absl::StrCat("TILEJIT_REDIS_KEY_FILE '", keyFile,
                                     "': ", tier.status().message(), "; the fleet cache is off"));
    return nullptr;
  }
  return std::move(*tier);
}

}  // namespace tilejit
