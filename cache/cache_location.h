// Whether a directory can be the cache's writable root, and why not. The JIT never stops for a
// cache it cannot use (DiskCache::openForJit): it reports the reason once and goes on without
// the root, or with it read-only. A root someone else can write is refused outright, since
// whoever can write there can plant a kernel this process would load.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"

namespace tilejit::cache_detail {

enum class RootUse {
  kWritable,  // entries are read and written
  kReadOnly,  // readable and trusted, but not writable (read-only mount, no write permission)
  kUnusable,  // neither: not a directory, untrusted, or unreadable
};

struct RootCheck {
  RootUse use = RootUse::kUnusable;
  std::string reason;  // why not writable; empty for kWritable
};

// Creates `root` and its subdirectories `entries` and `others` (relative) where they are missing,
// then judges them: each must be a directory owned by this user and not writable by every user;
// group-writable is accepted (a cache shared by a group follows the umask) and noted in
// `groupShared`. Reading needs only `root` and `entries`; writing needs all of them.
RootCheck checkCacheRoot(const std::string& root, const std::string& entries,
                         const std::vector<std::string>& others, bool* groupShared);

// Whether a file of `uid` may be loaded as a kernel by this process: this user or root.
bool trustedOwner(unsigned uid);

}  // namespace tilejit::cache_detail
