#include "service/server.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <thread>

#include "absl/strings/str_cat.h"
#include "support/status.h"

namespace tilejit::service {

ServiceServer::ServiceServer(CompileService& service, ServerOptions options)
    : service_(service), options_(std::move(options)) {}

ServiceServer::~ServiceServer() {
  if (listener_.valid()) ::unlink(options_.socketPath.c_str());
}

absl::Status ServiceServer::listen() {
  int pipeFds[2];
  if (::pipe2(pipeFds, O_CLOEXEC | O_NONBLOCK) != 0)
    return absl::UnavailableError(absl::StrCat("pipe: ", cache_detail::errnoText(errno)));
  stopRead_ = UniqueFd(pipeFds[0]);
  stopWrite_ = UniqueFd(pipeFds[1]);
  TJ_ASSIGN_OR_RETURN(listener_, listenOnUnixSocket(options_.socketPath));
  return absl::OkStatus();
}

void ServiceServer::stop() {
  char byte = 1;
  if (stopWrite_.valid()) (void)!::write(stopWrite_.get(), &byte, 1);
}

void ServiceServer::serve() {
  while (true) {
    pollfd watched[2] = {{listener_.get(), POLLIN, 0}, {stopRead_.get(), POLLIN, 0}};
    if (::poll(watched, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (watched[1].revents) break;
    if (!(watched[0].revents & POLLIN)) continue;
    UniqueFd connection(::accept4(listener_.get(), nullptr, nullptr, SOCK_CLOEXEC));
    if (!connection.valid()) continue;  // EMFILE, a client gone before accept: keep serving
    {
      std::lock_guard<std::mutex> lock(mutex_);
      connections_.insert(connection.get());
      ++connectionCount_;
    }
    std::thread([this, fd = std::move(connection)]() mutable { serveConnection(std::move(fd)); })
        .detach();
  }
  // Wake every connection thread (blocked reading or waiting on a compile's reply write) and
  // wait until they are gone, so nothing outlives the service they use.
  std::unique_lock<std::mutex> lock(mutex_);
  for (int fd : connections_) ::shutdown(fd, SHUT_RDWR);
  drained_.wait(lock, [this] { return connections_.empty(); });
}

void ServiceServer::serveConnection(UniqueFd connection) {
  int fd = connection.get();
  while (true) {
    auto deadline = std::chrono::steady_clock::now() + options_.idleTimeout;
    FrameHeader header;
    absl::StatusOr<Frame> frame = readFrame(fd, options_.maxRequestBytes, deadline, &header);
    if (!frame.ok()) {
      const absl::Status& status = frame.status();
      if (absl::IsResourceExhausted(status)) {
        replyError(fd, "oversize", absl::ResourceExhaustedError(absl::StrCat(
                                       "request ", status.message(), " (--max-request-bytes)")));
      } else if (absl::IsInvalidArgument(status)) {
        replyError(fd, "malformed", status);
      } else if (!absl::IsCancelled(status)) {
        service_.metrics().countError("disconnect");  // gone or stalled mid-frame
      }
      break;
    }
    if (!answer(fd, *frame)) break;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  connections_.erase(fd);
  --connectionCount_;
  connection.reset();
  drained_.notify_all();
}

bool ServiceServer::answer(int fd, const Frame& frame) {
  if (frame.header.version != kProtocolVersion) {
    replyError(fd, "version", absl::FailedPreconditionError(absl::StrCat(
                                  "protocol version ", frame.header.version,
                                  " is not supported; this tilejitd speaks version ",
                                  kProtocolVersion)));
    return false;
  }
  switch (FrameType(frame.header.type)) {
    case FrameType::kCompile: {
      service_.metrics().countRequest("compile");
      absl::StatusOr<CompileRequest> request = decodeCompileRequest(frame.payload);
      if (!request.ok()) {
        replyError(fd, "malformed", request.status());
        return true;
      }
      absl::StatusOr<CompileReply> compiled = service_.compile(*request);
      if (!compiled.ok()) {
        replyError(fd, "compile", compiled.status());
        return true;
      }
      reply(fd, FrameType::kCompileOk, encodeCompileReply(*compiled));
      return true;
    }
    case FrameType::kHealth:
      service_.metrics().countRequest("health");
      reply(fd, FrameType::kHealthOk, encodeText(service_.healthText()));
      return true;
    case FrameType::kMetrics:
      service_.metrics().countRequest("metrics");
      reply(fd, FrameType::kMetricsOk, encodeText(service_.metricsText(connectionCount_.load())));
      return true;
    default:
      replyError(fd, "malformed", absl::InvalidArgumentError(absl::StrCat(
                                      "unknown request type ", frame.header.type,
                                      " (1 compile, 2 health, 3 metrics)")));
      return true;
  }
}

void ServiceServer::reply(int fd, FrameType type, std::string_view payload) {
  absl::Status sent = writeBytes(fd, encodeFrame(type, payload),
                                 std::chrono::steady_clock::now() + options_.idleTimeout);
  // The client left before its answer: its loss only, the entry is cached for the next one.
  if (!sent.ok()) service_.metrics().countError("disconnect");
}

void ServiceServer::replyError(int fd, const char* kind, const absl::Status& status) {
  service_.metrics().countError(kind);
  reply(fd, FrameType::kError, encodeError(status));
}

}  // namespace tilejit::service
