// tilejitd's socket loop: accepts clients on the Unix socket and serves each connection on
// its own thread, frame by frame (service/protocol.h). A bad frame gets an error reply and,
// where the stream cannot be trusted any more (bad magic, wrong version, oversize), the
// connection is closed; nothing a client sends or fails to send stops the daemon.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <string>

#include "absl/status/status.h"
#include "service/compile_service.h"
#include "service/unix_socket.h"

namespace tilejit::service {

struct ServerOptions {
  std::string socketPath;
  uint32_t maxRequestBytes = kDefaultMaxRequestBytes;
  // A connection idle this long, or a frame that takes this long to arrive, is closed.
  std::chrono::milliseconds idleTimeout = std::chrono::minutes(10);
};

class ServiceServer {
 public:
  ServiceServer(CompileService& service, ServerOptions options);
  ~ServiceServer();

  absl::Status listen();
  // Serves until stop(); then closes every connection and waits for their threads.
  void serve();
  // Safe from a signal handler (one write to a pipe).
  void stop();

 private:
  void serveConnection(UniqueFd connection);
  // False when the connection must close after this frame.
  bool answer(int fd, const Frame& frame);
  void reply(int fd, FrameType type, std::string_view payload);
  void replyError(int fd, const char* kind, const absl::Status& status);

  CompileService& service_;
  ServerOptions options_;
  UniqueFd listener_;
  UniqueFd stopRead_, stopWrite_;
  std::mutex mutex_;
  std::condition_variable drained_;
  std::set<int> connections_;  // open client descriptors, shut down on stop
  std::atomic<int64_t> connectionCount_{0};
};

}  // namespace tilejit::service
