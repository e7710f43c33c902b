#include "cache/redis_client.h"

#include <hiredis/hiredis.h>
#include <pthread.h>
#include <signal.h>

#include <cerrno>
#include <ctime>

#include "absl/strings/match.h"
#include "absl/strings/strip.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "support/dynamic_library.h"

namespace tilejit {
namespace {

// hiredis, loaded on first use (dlopen): an engine that never configures Redis needs no
// libhiredis on its machine, and one that does gets an error naming the library.
struct Hiredis {
  DynamicLibrary library;
  redisContext* (*connectTcp)(const char*, int, const struct timeval);
  redisContext* (*connectUnix)(const char*, const struct timeval);
  int (*setTimeout)(redisContext*, const struct timeval);
  void (*free)(redisContext*);
  void* (*commandArgv)(redisContext*, int, const char**, const size_t*);
  void (*freeReply)(void*);
};

absl::StatusOr<Hiredis> loadHiredis() {
  Hiredis api;
  auto library = DynamicLibrary::open({"libhiredis.so.0.14", "libhiredis.so.1.1.0", "libhiredis.so"});
  if (!library.ok()) {
    return absl::UnavailableError(absl::StrCat(
        "the Redis fleet tier needs hiredis (Debian: libhiredis0.14): ", library.status().message()));
  }
  api.library = *std::move(library);
  auto bind = [&](auto& slot, const char* name) -> absl::Status {
    auto address = api.library.symbol<std::remove_reference_t<decltype(slot)>>(name);
    if (!address.ok()) return address.status();
    slot = *address;
    return absl::OkStatus();
  };
  for (absl::Status status : {bind(api.connectTcp, "redisConnectWithTimeout"),
                              bind(api.connectUnix, "redisConnectUnixWithTimeout"),
                              bind(api.setTimeout, "redisSetTimeout"), bind(api.free, "redisFree"),
                              bind(api.commandArgv, "redisCommandArgv"),
                              bind(api.freeReply, "freeReplyObject")}) {
    if (!status.ok()) return status;
  }
  return api;
}

absl::StatusOr<const Hiredis*> hiredis() {
  static const absl::StatusOr<Hiredis>* loaded = new absl::StatusOr<Hiredis>(loadHiredis());
  if (!loaded->ok()) return loaded->status();
  return &**loaded;
}

timeval toTimeval(std::chrono::milliseconds duration) {
  timeval tv;
  tv.tv_sec = static_cast<time_t>(duration.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>((duration.count() % 1000) * 1000);
  return tv;
}

absl::Status badUrl(absl::string_view url, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(
      "Redis URL '", url, "': ", what,
      "; expected redis://[:password@]host[:port][/db] or unix:///path/to/socket[?db=N]"));
}

// hiredis writes with write(): a server that died mid-exchange would raise SIGPIPE, whose
// default action ends the process. Blocked here, and a pending one consumed, on this thread
// only, so the caller's own handling of SIGPIPE is untouched.
class ScopedSigpipeBlock {
 public:
  ScopedSigpipeBlock() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    sigset_t pending;
    sigpending(&pending);
    alreadyPending_ = sigismember(&pending, SIGPIPE) == 1;
    blocked_ = pthread_sigmask(SIG_BLOCK, &pipe_, &previous_) == 0;
  }
  ~ScopedSigpipeBlock() {
    if (!blocked_) return;
    if (!alreadyPending_) {
      timespec zero = {0, 0};
      while (sigtimedwait(&pipe_, nullptr, &zero) == SIGPIPE) {
      }
    }
    pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
  }

 private:
  sigset_t pipe_, previous_;
  bool alreadyPending_ = false;
  bool blocked_ = false;
};

}  // namespace

std::string RedisEndpoint::describe() const {
  if (!unixPath.empty()) return absl::StrCat("unix:", unixPath, database ? absl::StrCat(" db ", database) : "");
  return absl::StrCat(host, ":", port, database ? absl::StrCat(" db ", database) : "");
}

absl::StatusOr<RedisEndpoint> parseRedisUrl(std::string_view urlText) {
  absl::string_view url(urlText.data(), urlText.size());
  RedisEndpoint endpoint;
  absl::string_view rest = url;
  if (absl::ConsumePrefix(&rest, "unix://")) {
    size_t query = rest.find('?');
    endpoint.unixPath = std::string(rest.substr(0, query));
    if (endpoint.unixPath.empty() || endpoint.unixPath[0] != '/') {
      return badUrl(url, "the socket path must be absolute");
    }
    if (query != absl::string_view::npos) {
      absl::string_view parameter = rest.substr(query + 1);
      if (!absl::ConsumePrefix(&parameter, "db=") ||
          !absl::SimpleAtoi(parameter, &endpoint.database) || endpoint.database < 0) {
        return badUrl(url, "the only query accepted is db=<non-negative integer>");
      }
    }
    return endpoint;
  }
  if (!absl::ConsumePrefix(&rest, "redis://")) return badUrl(url, "unknown scheme");
  if (size_t at = rest.rfind('@'); at != absl::string_view::npos) {
    absl::string_view user = rest.substr(0, at);
    // Redis 6 ACL users are not supported: the password alone, as in redis://:secret@host.
    if (!absl::ConsumePrefix(&user, ":")) return badUrl(url, "only ':password@' is accepted before the host");
    endpoint.password = std::string(user);
    rest.remove_prefix(at + 1);
  }
  if (size_t slash = rest.find('/'); slash != absl::string_view::npos) {
    absl::string_view db = rest.substr(slash + 1);
    if (!db.empty() && (!absl::SimpleAtoi(db, &endpoint.database) || endpoint.database < 0)) {
      return badUrl(url, absl::StrCat("database '", db, "' is not a non-negative integer"));
    }
    rest = rest.substr(0, slash);
  }
  if (size_t colon = rest.rfind(':'); colon != absl::string_view::npos) {
    absl::string_view port = rest.substr(colon + 1);
    if (!absl::SimpleAtoi(port, &endpoint.port) || endpoint.port <= 0 || endpoint.port > 65535) {
      return badUrl(url, absl::StrCat("port '", port, "' is not in 1..65535"));
    }
    rest = rest.substr(0, colon);
  }
  if (rest.empty()) return badUrl(url, "no host");
  endpoint.host = std::string(rest);
  return endpoint;
}

absl::StatusOr<std::unique_ptr<RedisConnection>> RedisConnection::connect(
    const RedisEndpoint& endpoint, std::chrono::milliseconds connectTimeout,
    std::chrono::milliseconds commandTimeout) {
  absl::StatusOr<const Hiredis*> api = hiredis();
  if (!api.ok()) return api.status();
  redisContext* context =
      endpoint.unixPath.empty()
          ? (*api)->connectTcp(endpoint.host.c_str(), endpoint.port, toTimeval(connectTimeout))
          : (*api)->connectUnix(endpoint.unixPath.c_str(), toTimeval(connectTimeout));
  if (context == nullptr) {
    return absl::UnavailableError(absl::StrCat("cannot connect to Redis at ", endpoint.describe(),
                                               ": out of memory"));
  }
  std::unique_ptr<RedisConnection> connection(new RedisConnection(context, endpoint.describe()));
  if (context->err) {
    return absl::UnavailableError(absl::StrCat("cannot connect to Redis at ", endpoint.describe(),
                                               " within ", connectTimeout.count(), " ms: ",
                                               context->errstr));
  }
  if ((*api)->setTimeout(context, toTimeval(commandTimeout)) != REDIS_OK) {
    return absl::UnavailableError(
        absl::StrCat("cannot set the command timeout on ", endpoint.describe()));
  }
  auto expectOk = [&](const std::vector<std::string_view>& arguments,
                      const char* what) -> absl::Status {
    absl::StatusOr<RedisReply> reply = connection->command(arguments);
    if (!reply.ok()) return reply.status();
    if (reply->kind == RedisReply::Kind::kError) {
      return absl::UnavailableError(absl::StrCat("Redis at ", endpoint.describe(), " refused ",
                                                 what, ": ", reply->text));
    }
    return absl::OkStatus();
  };
  if (!endpoint.password.empty()) {
    if (absl::Status status = expectOk({"AUTH", endpoint.password}, "AUTH"); !status.ok()) return status;
  }
  if (endpoint.database != 0) {
    std::string db = std::to_string(endpoint.database);
    if (absl::Status status = expectOk({"SELECT", db}, "SELECT"); !status.ok()) return status;
  }
  return connection;
}

// A connection exists only where hiredis loaded.
RedisConnection::~RedisConnection() { (*hiredis())->free(context_); }

absl::StatusOr<RedisReply> RedisConnection::command(const std::vector<std::string_view>& arguments) {
  if (context_->err) {
    return absl::UnavailableError(absl::StrCat("connection to Redis at ", description_,
                                               " is broken: ", context_->errstr));
  }
  std::vector<const char*> pointers;
  std::vector<size_t> lengths;
  for (std::string_view argument : arguments) {
    pointers.push_back(argument.data());
    lengths.push_back(argument.size());
  }
  redisReply* raw;
  {
    ScopedSigpipeBlock noSigpipe;
    errno = 0;
    raw = static_cast<redisReply*>((*hiredis())->commandArgv(context_, int(arguments.size()),
                                                             pointers.data(), lengths.data()));
  }
  if (raw == nullptr) {
    int code = errno;
    std::string what = absl::StrCat(arguments.empty() ? "" : std::string(arguments[0]),
                                    " to Redis at ", description_);
    if (context_->err == REDIS_ERR_IO && (code == EAGAIN || code == EWOULDBLOCK)) {
      return absl::DeadlineExceededError(absl::StrCat(what, " timed out"));
    }
    return absl::UnavailableError(absl::StrCat(what, " failed: ", context_->errstr));
  }
  std::unique_ptr<redisReply, void (*)(void*)> owned(raw, (*hiredis())->freeReply);
  RedisReply reply;
  switch (raw->type) {
    case REDIS_REPLY_STRING: reply.kind = RedisReply::Kind::kString; break;
    case REDIS_REPLY_STATUS: reply.kind = RedisReply::Kind::kStatus; break;
    case REDIS_REPLY_ERROR: reply.kind = RedisReply::Kind::kError; break;
    case REDIS_REPLY_INTEGER: reply.kind = RedisReply::Kind::kInteger; break;
    case REDIS_REPLY_ARRAY: reply.kind = RedisReply::Kind::kArray; break;
    default: reply.kind = RedisReply::Kind::kNil; break;
  }
  if (raw->str != nullptr) reply.text.assign(raw->str, raw->len);
  reply.integer = raw->integer;
  return reply;
}

}  // namespace tilejit
