#include "service/unix_socket.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>

#include "absl/strings/str_cat.h"
#include "cache/cache_location.h"
#include "support/status.h"

namespace tilejit::service {
namespace {

using cache_detail::errnoText;
using Clock = std::chrono::steady_clock;

absl::StatusOr<sockaddr_un> socketAddress(const std::string& path) {
  sockaddr_un address = {};
  address.sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof(address.sun_path))
    return absl::InvalidArgumentError(absl::StrCat(
        "socket path '", path, "' must be 1 to ", sizeof(address.sun_path) - 1,
        " bytes long (a Unix socket's limit); set TILEJIT_SERVICE_SOCKET or --socket"));
  path.copy(address.sun_path, path.size());
  return address;
}

std::string parentOf(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// Waits until `fd` is ready for `events` or the deadline passes.
absl::Status waitReady(int fd, short events, Clock::time_point deadline, const char* what) {
  while (true) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0)
      return absl::DeadlineExceededError(absl::StrCat("timed out ", what, " on the socket"));
    pollfd entry = {fd, events, 0};
    int ready = ::poll(&entry, 1, int(std::min<int64_t>(left.count(), 1 << 30)));
    if (ready > 0) return absl::OkStatus();
    if (ready < 0 && errno != EINTR)
      return absl::UnavailableError(absl::StrCat("poll: ", errnoText(errno)));
  }
}

// Reads exactly `size` bytes; `atFrameStart` turns an orderly close before any byte into
// Cancelled (the peer is done), not an error.
absl::Status readExactly(int fd, char* out, size_t size, Clock::time_point deadline,
                         bool atFrameStart) {
  size_t done = 0;
  while (done < size) {
    TJ_RETURN_IF_ERROR(waitReady(fd, POLLIN, deadline, "reading"));
    ssize_t got = ::recv(fd, out + done, size - done, 0);
    if (got == 0) {
      if (atFrameStart && done == 0) return absl::CancelledError("closed");
      return absl::UnavailableError(
          absl::StrCat("the peer closed the connection after ", done, " of ", size, " bytes"));
    }
    if (got < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return absl::UnavailableError(absl::StrCat("recv: ", errnoText(errno)));
    }
    done += size_t(got);
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status checkSocketDirectory(const std::string& socketPath) {
  std::string directory = parentOf(socketPath);
  struct stat info = {};
  if (::stat(directory.c_str(), &info) != 0) {
    if (errno != ENOENT)
      return absl::FailedPreconditionError(
          absl::StrCat("socket directory '", directory, "': ", errnoText(errno)));
    TJ_RETURN_IF_ERROR(cache_detail::makeDirectories(parentOf(directory)));
    if (::mkdir(directory.c_str(), 0700) != 0 && errno != EEXIST)
      return absl::FailedPreconditionError(
          absl::StrCat("cannot create socket directory '", directory, "': ", errnoText(errno)));
    if (::stat(directory.c_str(), &info) != 0)
      return absl::FailedPreconditionError(
          absl::StrCat("socket directory '", directory, "': ", errnoText(errno)));
  }
  if (!S_ISDIR(info.st_mode))
    return absl::FailedPreconditionError(
        absl::StrCat("socket directory '", directory, "' is not a directory"));
  if (!cache_detail::trustedOwner(info.st_uid))
    return absl::FailedPreconditionError(absl::StrCat(
        "socket directory '", directory, "' belongs to uid ", info.st_uid,
        ", neither this user (uid ", ::geteuid(), ") nor root: its owner could replace the socket"));
  bool othersWrite = (info.st_mode & (S_IWGRP | S_IWOTH)) != 0;
  if (othersWrite && (info.st_mode & S_ISVTX) == 0)
    return absl::FailedPreconditionError(absl::StrCat(
        "socket directory '", directory, "' is writable by group or others (mode ",
        absl::StrCat(absl::Hex(info.st_mode & 07777)),
        ") without the sticky bit: they could replace the socket; use a directory of mode 0700"));
  return absl::OkStatus();
}

absl::StatusOr<UniqueFd> connectToUnixSocket(const std::string& socketPath) {
  TJ_ASSIGN_OR_RETURN(sockaddr_un address, socketAddress(socketPath));
  UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return absl::UnavailableError(absl::StrCat("socket: ", errnoText(errno)));
  if (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0)
    return absl::UnavailableError(absl::StrCat("no compile service answers at '", socketPath,
                                               "': ", errnoText(errno)));
  // Whoever serves the socket hands us code to run: it must be this user or root.
  ucred peer = {};
  socklen_t length = sizeof(peer);
  if (::getsockopt(fd.get(), SOL_SOCKET, SO_PEERCRED, &peer, &length) != 0 ||
      !cache_detail::trustedOwner(peer.uid))
    return absl::PermissionDeniedError(absl::StrCat(
        "the compile service at '", socketPath, "' runs as uid ", peer.uid,
        ", neither this user (uid ", ::geteuid(), ") nor root: not using it"));
  return fd;
}

absl::StatusOr<UniqueFd> listenOnUnixSocket(const std::string& socketPath) {
  TJ_ASSIGN_OR_RETURN(sockaddr_un address, socketAddress(socketPath));
  TJ_RETURN_IF_ERROR(checkSocketDirectory(socketPath));
  struct stat info = {};
  if (::lstat(socketPath.c_str(), &info) == 0) {
    if (!S_ISSOCK(info.st_mode))
      return absl::FailedPreconditionError(
          absl::StrCat("'", socketPath, "' exists and is not a socket; not replacing it"));
    if (connectToUnixSocket(socketPath).ok())
      return absl::AlreadyExistsError(
          absl::StrCat("another tilejitd already serves '", socketPath, "'"));
    ::unlink(socketPath.c_str());  // stale: its daemon is gone
  }
  UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return absl::UnavailableError(absl::StrCat("socket: ", errnoText(errno)));
  // The umask makes bind() create the file 0600 at once: no window in which others may connect.
  mode_t previous = ::umask(0177);
  int bound = ::bind(fd.get(), reinterpret_cast<const sockaddr*>(&address), sizeof(address));
  int bindError = errno;
  ::umask(previous);
  if (bound != 0)
    return absl::UnavailableError(
        absl::StrCat("cannot bind '", socketPath, "': ", errnoText(bindError)));
  if (::chmod(socketPath.c_str(), 0600) != 0 || ::listen(fd.get(), 256) != 0)
    return absl::UnavailableError(
        absl::StrCat("cannot listen on '", socketPath, "': ", errnoText(errno)));
  return fd;
}

absl::StatusOr<Frame> readFrame(int fd, uint32_t maxPayloadBytes, Clock::time_point deadline,
                                FrameHeader* headerOut) {
  char headerBytes[kFrameHeaderBytes];
  TJ_RETURN_IF_ERROR(readExactly(fd, headerBytes, sizeof(headerBytes), deadline, true));
  TJ_ASSIGN_OR_RETURN(FrameHeader header,
                      decodeFrameHeader(std::string_view(headerBytes, sizeof(headerBytes))));
  if (headerOut) *headerOut = header;
  if (header.payloadBytes > maxPayloadBytes)
    return absl::ResourceExhaustedError(absl::StrCat("frame payload of ", header.payloadBytes,
                                                     " bytes exceeds the limit of ",
                                                     maxPayloadBytes, " bytes"));
  Frame frame;
  frame.header = header;
  frame.payload.resize(header.payloadBytes);
  TJ_RETURN_IF_ERROR(readExactly(fd, frame.payload.data(), frame.payload.size(), deadline, false));
  return frame;
}

absl::Status writeBytes(int fd, std::string_view bytes, Clock::time_point deadline) {
  while (!bytes.empty()) {
    TJ_RETURN_IF_ERROR(waitReady(fd, POLLOUT, deadline, "writing"));
    ssize_t sent = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (sent < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return absl::UnavailableError(absl::StrCat("send: ", errnoText(errno)));
    }
    bytes.remove_prefix(size_t(sent));
  }
  return absl::OkStatus();
}

}  // namespace tilejit::service
