// A connection to tilejitd: compile, health and metrics requests, one at a time. LLVM-free
// (the runtime-only client links it). Errors the daemon replied with keep their code and
// message and are marked (isServiceReply), so a caller can tell "the daemon said no" from "no
// daemon to ask".
#pragma once

#include <chrono>
#include <string>

#include "absl/status/statusor.h"
#include "cache/entry_format.h"
#include "service/protocol.h"
#include "service/unix_socket.h"

namespace tilejit::service {

// A compile can take minutes (a cold CUDA kernel under load); everything else is quick.
inline constexpr std::chrono::minutes kCompileReplyTimeout{10};
inline constexpr std::chrono::seconds kQuickReplyTimeout{10};

class ServiceClient {
 public:
  static absl::StatusOr<ServiceClient> connect(const std::string& socketPath);

  absl::StatusOr<CompileReply> compile(const CompileRequest& request);
  absl::StatusOr<std::string> health();
  absl::StatusOr<std::string> metrics();  // Prometheus text

  // Sends `bytes` as they are and reads one reply frame (tests send malformed frames).
  absl::StatusOr<Frame> exchangeRaw(std::string_view bytes, std::chrono::milliseconds timeout);
  int fd() const { return fd_.get(); }
  const std::string& socketPath() const { return socketPath_; }

 private:
  ServiceClient(UniqueFd fd, std::string socketPath)
      : fd_(std::move(fd)), socketPath_(std::move(socketPath)) {}
  absl::StatusOr<std::string> request(FrameType type, std::string_view payload,
                                      FrameType expected, std::chrono::milliseconds timeout);
  UniqueFd fd_;
  std::string socketPath_;
};

// True for a status the daemon sent as its reply (rather than a transport failure).
bool isServiceReply(const absl::Status& status);

// The reply's entry, verified: a well-formed key, the entry format's checksum, and that the
// entry was built for that key.
absl::StatusOr<CacheEntry> verifiedEntry(const CompileReply& reply);

}  // namespace tilejit::service
