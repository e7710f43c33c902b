// The daemon's Unix socket: an owner-only (0600) socket in a directory only its owner can
// change (so nobody can swap the socket for their own and serve a planted kernel), and frame
// I/O on connected descriptors with deadlines, so a stalled peer never holds a thread forever.
#pragma once

#include <chrono>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cache/file_util.h"
#include "service/protocol.h"

namespace tilejit::service {

using cache_detail::UniqueFd;

// Creates the socket's parent directory (0700) when missing, then checks it: a directory
// owned by this user (or root) that neither group nor others can write unless it is sticky
// (like /tmp, where others cannot remove our socket). The error names the directory and why.
absl::Status checkSocketDirectory(const std::string& socketPath);

// Binds and listens on `socketPath` with mode 0600. A stale socket file that nobody answers
// on is replaced; a live one (another tilejitd) or a file that is not a socket is an error.
absl::StatusOr<UniqueFd> listenOnUnixSocket(const std::string& socketPath);

// Connects; Unavailable (naming the path) when nothing listens there, PermissionDenied when
// the daemon runs as another user than this one or root.
absl::StatusOr<UniqueFd> connectToUnixSocket(const std::string& socketPath);

struct Frame {
  FrameHeader header;
  std::string payload;
};

// Reads one frame. `maxPayloadBytes` bounds what is read: a larger one returns
// ResourceExhausted with its header in `header` (the payload is left unread). A peer that
// closes before a frame begins gives Cancelled("closed"); one that stops mid-frame or stalls
// past `deadline` gives Unavailable / DeadlineExceeded.
absl::StatusOr<Frame> readFrame(int fd, uint32_t maxPayloadBytes,
                                std::chrono::steady_clock::time_point deadline,
                                FrameHeader* header = nullptr);
// Writes every byte (no SIGPIPE: a vanished peer is an Unavailable error).
absl::Status writeBytes(int fd, std::string_view bytes,
                        std::chrono::steady_clock::time_point deadline);

}  // namespace tilejit::service
