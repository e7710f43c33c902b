// POSIX plumbing for the disk cache: owned descriptors, whole-buffer I/O, directories, and the
// flock()-based lock whose holder is the kernel's open file (so it dies with the process: a
// killed compile cannot leave a lock that hangs the next start, flashinfer#972).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace tilejit::cache_detail {

std::string errnoText(int error);

class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept;
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() { reset(); }

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  int release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }
  void reset();

 private:
  int fd_ = -1;
};

// Creates `path` and its parents (mode 0777 & ~umask, so a shared cache follows the umask).
absl::Status makeDirectories(const std::string& path);

absl::Status writeAll(int fd, std::string_view bytes, const std::string& pathForMessages);
// Reads exactly `size` bytes from offset 0; fewer means the file changed under us.
absl::StatusOr<std::string> readExactly(int fd, uint64_t size, const std::string& path);

// Same file (device + inode)? Used to make sure the path still names the file we locked or
// read before we unlink it: another process may have renamed a fresh file there meanwhile.
bool pathNamesSameFile(const std::string& path, int fd);

// An exclusive flock() on a lock file that is reused across attempts (one per key, not one
// per attempt). Released by the destructor or by process death.
class ExclusiveFileLock {
 public:
  enum class Outcome { kAcquired, kUnsupported };
  ExclusiveFileLock() = default;
  ExclusiveFileLock(ExclusiveFileLock&&) = default;
  ExclusiveFileLock& operator=(ExclusiveFileLock&&) = default;

  // Waits up to `timeout` (polling with back-off; flock itself has no timeout). Returns
  // kUnsupported when the filesystem refuses flock (NFS: ENOLCK, EBUSY (triton#11512),
  // EOPNOTSUPP), so the caller can proceed without the lock; DeadlineExceeded on timeout.
  static absl::StatusOr<Outcome> acquire(const std::string& path,
                                         std::chrono::milliseconds timeout,
                                         ExclusiveFileLock* lock);
  bool held() const { return fd_.valid(); }
  // Unlinks the lock file (if its path still names the file we hold) and releases the lock,
  // so lock files do not pile up one per key. Safe while others wait: acquire() re-checks
  // that the path names the file it locked, and retries on a fresh one otherwise.
  void removeFileAndRelease();

 private:
  UniqueFd fd_;
  std::string path_;
};

// Non-blocking exclusive flock on an already open file; false when someone holds any lock.
bool tryLockExclusive(int fd);
// Blocking shared flock; false only when the filesystem refuses flock (then readers proceed
// unprotected: eviction on such a filesystem cannot lock either and skips the entry).
bool lockShared(int fd);

}  // namespace tilejit::cache_detail
