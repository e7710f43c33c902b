// A blocking Redis connection with bounded connect and command times, over Debian's hiredis.
// Only what the fleet tier needs: connect (AUTH, SELECT), one command at a time, and a reply
// reduced to the few shapes it reads. Not thread-safe: the owner serializes calls.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

struct redisContext;

namespace tilejit {

struct RedisEndpoint {
  std::string host;      // TCP, when unixPath is empty
  int port = 6379;
  std::string unixPath;  // a Unix socket instead
  int database = 0;
  std::string password;  // sent with AUTH when not empty
  // host:port or the socket path, for messages (never the password).
  std::string describe() const;
};

// redis://[:password@]host[:port][/db] or unix:///path/to/socket[?db=N]. Errors name the URL's
// part that is wrong and the form accepted.
absl::StatusOr<RedisEndpoint> parseRedisUrl(std::string_view url);

struct RedisReply {
  enum class Kind { kString, kInteger, kNil, kStatus, kError, kArray };
  Kind kind = Kind::kNil;
  std::string text;  // string, status or error text
  long long integer = 0;
};

class RedisConnection {
 public:
  // Unavailable when the server cannot be reached within `connectTimeout`, or refuses AUTH or
  // SELECT. Every later command waits at most `commandTimeout` for its reply.
  static absl::StatusOr<std::unique_ptr<RedisConnection>> connect(
      const RedisEndpoint& endpoint, std::chrono::milliseconds connectTimeout,
      std::chrono::milliseconds commandTimeout);
  ~RedisConnection();
  RedisConnection(const RedisConnection&) = delete;
  RedisConnection& operator=(const RedisConnection&) = delete;

  // An error reply from Redis (OOM, WRONGTYPE, ...) is a reply of kind kError. A failed
  // exchange - timeout (DeadlineExceeded), connection lost or a reply that is not RESP
  // (Unavailable) - is a status, after which this connection cannot be used again.
  absl::StatusOr<RedisReply> command(const std::vector<std::string_view>& arguments);

 private:
  RedisConnection(redisContext* context, std::string description)
      : context_(context), description_(std::move(description)) {}
  redisContext* context_;
  std::string description_;
};

}  // namespace tilejit
