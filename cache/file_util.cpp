#include "cache/file_util.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include "absl/strings/str_cat.h"

namespace tilejit::cache_detail {

std::string errnoText(int error) { return absl::StrCat(std::strerror(error), " (errno ", error, ")"); }

UniqueFd& UniqueFd::operator=(UniqueFd&& other) noexcept {
  if (this != &other) {
    reset();
    fd_ = other.release();
  }
  return *this;
}

void UniqueFd::reset() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

absl::Status makeDirectories(const std::string& path) {
  if (path.empty()) return absl::InvalidArgumentError("empty directory path");
  std::string prefix;
  size_t position = 0;
  while (position != std::string::npos) {
    position = path.find('/', position + 1);
    prefix = path.substr(0, position);
    if (prefix.empty()) continue;
    if (::mkdir(prefix.c_str(), 0777) != 0 && errno != EEXIST) {
      return absl::PermissionDeniedError(
          absl::StrCat("cannot create directory '", prefix, "': ", errnoText(errno)));
    }
  }
  struct stat info;
  if (::stat(path.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) {
    return absl::FailedPreconditionError(
        absl::StrCat("'", path, "' exists but is not a directory"));
  }
  return absl::OkStatus();
}

absl::Status writeAll(int fd, std::string_view bytes, const std::string& pathForMessages) {
  while (!bytes.empty()) {
    ssize_t written = ::write(fd, bytes.data(), bytes.size());
    if (written < 0) {
      if (errno == EINTR) continue;
      return absl::InternalError(
          absl::StrCat("writing '", pathForMessages, "' failed: ", errnoText(errno)));
    }
    bytes.remove_prefix(size_t(written));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> readExactly(int fd, uint64_t size, const std::string& path) {
  std::string bytes(size, '\0');
  uint64_t done = 0;
  while (done < size) {
    ssize_t got = ::pread(fd, bytes.data() + done, size - done, off_t(done));
    if (got < 0) {
      if (errno == EINTR) continue;
      return absl::InternalError(absl::StrCat("reading '", path, "' failed: ", errnoText(errno)));
    }
    if (got == 0) {
      return absl::DataLossError(
          absl::StrCat("'", path, "' ended at byte ", done, " of ", size, " while reading"));
    }
    done += uint64_t(got);
  }
  return bytes;
}

bool pathNamesSameFile(const std::string& path, int fd) {
  struct stat byPath, byFd;
  if (::stat(path.c_str(), &byPath) != 0 || ::fstat(fd, &byFd) != 0) return false;
  return byPath.st_dev == byFd.st_dev && byPath.st_ino == byFd.st_ino;
}

namespace {
bool flockUnsupported(int error) {
  return error == ENOLCK || error == EBUSY || error == EOPNOTSUPP || error == EINVAL ||
         error == ENOSYS;
}
}  // namespace

absl::StatusOr<ExclusiveFileLock::Outcome> ExclusiveFileLock::acquire(
    const std::string& path, std::chrono::milliseconds timeout, ExclusiveFileLock* lock) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  auto backoff = std::chrono::microseconds(200);
  for (;;) {
    UniqueFd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666));
    if (!fd.valid()) {
      return absl::PermissionDeniedError(
          absl::StrCat("cannot open lock file '", path, "': ", errnoText(errno)));
    }
    for (;;) {
      if (::flock(fd.get(), LOCK_EX | LOCK_NB) == 0) break;
      int error = errno;
      if (error == EINTR) continue;
      if (error != EWOULDBLOCK) {
        if (flockUnsupported(error)) return Outcome::kUnsupported;
        return absl::InternalError(
            absl::StrCat("flock on '", path, "' failed: ", errnoText(error)));
      }
      if (std::chrono::steady_clock::now() >= deadline) {
        return absl::DeadlineExceededError(absl::StrCat(
            "waited ", timeout.count(), " ms for the compile lock '", path,
            "' held by another process; raise DiskCacheOptions::lockTimeout if compiles "
            "legitimately take longer"));
      }
      std::this_thread::sleep_for(backoff);
      backoff = std::min(backoff * 2, std::chrono::microseconds(50'000));
    }
    // gc may have unlinked the lock file between our open() and flock(); then a newcomer
    // would lock a different inode. Holding a lock on the file the path names is what counts.
    if (pathNamesSameFile(path, fd.get())) {
      lock->fd_ = std::move(fd);
      lock->path_ = path;
      return Outcome::kAcquired;
    }
  }
}

void ExclusiveFileLock::removeFileAndRelease() {
  if (!fd_.valid()) return;
  if (pathNamesSameFile(path_, fd_.get())) ::unlink(path_.c_str());
  fd_.reset();
}

bool tryLockExclusive(int fd) {
  for (;;) {
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0) return true;
    if (errno != EINTR) return false;
  }
}

bool lockShared(int fd) {
  for (;;) {
    if (::flock(fd, LOCK_SH) == 0) return true;
    if (errno != EINTR) return false;
  }
}

}  // namespace tilejit::cache_detail
