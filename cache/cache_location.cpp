#include "cache/cache_location.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cache/file_util.h"

namespace tilejit::cache_detail {

bool trustedOwner(unsigned uid) { return uid == ::geteuid() || uid == 0; }

namespace {

// Empty when `path` is a directory this process may trust as a cache root.
std::string untrustedBecause(const std::string& path, const struct stat& info) {
  if (!S_ISDIR(info.st_mode)) return absl::StrCat("'", path, "' is not a directory");
  if (info.st_uid != ::geteuid()) {
    return absl::StrCat("'", path, "' is owned by uid ", info.st_uid, ", not by this user (uid ",
                        ::geteuid(), "): entries there could have been written by anyone it lets in");
  }
  if (info.st_mode & S_IWOTH) {
    return absl::StrFormat(
        "'%s' is writable by every user (mode %04o), so anyone could plant a kernel in it "
        "(chmod o-w it, or point TILEJIT_CACHE_DIR elsewhere)",
        path, info.st_mode & 07777);
  }
  return "";
}

}  // namespace

RootCheck checkCacheRoot(const std::string& root, const std::string& entries,
                         const std::vector<std::string>& others, bool* groupShared) {
  RootCheck check;
  if (groupShared) *groupShared = false;
  absl::Status created = makeDirectories(root + "/" + entries);
  for (size_t i = 0; created.ok() && i < others.size(); ++i) {
    created = makeDirectories(root + "/" + others[i]);
  }
  bool writable = created.ok();
  if (!writable) check.reason = std::string(created.message());
  std::vector<std::string> paths = {root, root + "/" + entries};
  for (const std::string& other : others) paths.push_back(root + "/" + other);
  for (size_t i = 0; i < paths.size(); ++i) {
    const std::string& path = paths[i];
    bool neededToRead = i < 2;
    struct stat info;
    if (::stat(path.c_str(), &info) != 0) {
      // Missing after creation failed: the reason is creation's. A missing write-only
      // subdirectory (the locks of a read-only root) still leaves the entries readable.
      if (!created.ok() && !neededToRead) continue;
      if (created.ok()) check.reason = absl::StrCat("cannot inspect '", path, "': ", errnoText(errno));
      check.use = RootUse::kUnusable;
      return check;
    }
    if (std::string why = untrustedBecause(path, info); !why.empty()) {
      check.reason = why;
      check.use = RootUse::kUnusable;
      return check;
    }
    if ((info.st_mode & S_IWGRP) && groupShared) *groupShared = true;
    if (neededToRead && ::access(path.c_str(), R_OK | X_OK) != 0) {
      check.reason = absl::StrCat("'", path, "' is not readable: ", errnoText(errno));
      check.use = RootUse::kUnusable;
      return check;
    }
    if (writable && ::access(path.c_str(), W_OK) != 0) {
      writable = false;
      check.reason = absl::StrCat("'", path, "' is not writable: ", errnoText(errno));
    }
  }
  check.use = writable ? RootUse::kWritable : RootUse::kReadOnly;
  if (writable) check.reason.clear();
  return check;
}

}  // namespace tilejit::cache_detail
