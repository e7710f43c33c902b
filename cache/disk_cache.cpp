#include "cache/disk_cache.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <iostream>
#include <random>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "cache/cache_key.h"
#include "cache/cache_location.h"
#include "cache/fleet_tier.h"
#include "support/status.h"

namespace tilejit {

using cache_detail::errnoText;
using cache_detail::UniqueFd;

namespace {

constexpr char kLayoutVersion[] = "v1";
constexpr size_t kWriteChunkBytes = size_t(1) << 20;

std::string environment(const char* name) {
  const char* value = std::getenv(name);
  return value ? std::string(value) : std::string();
}

// Host names go into staging file names, which are split on '.' when swept.
std::string sanitizedHostName() {
  char buffer[256] = {};
  if (::gethostname(buffer, sizeof(buffer) - 1) != 0) return "unknown-host";
  std::string host(buffer);
  for (char& c : host) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-') c = '-';
  }
  return host.empty() ? "unknown-host" : host;
}

std::string randomHex() {
  std::random_device device;
  uint64_t value = (uint64_t(device()) << 32) ^ device();
  return absl::StrCat(absl::Hex(value, absl::kZeroPad16));
}

}  // namespace

absl::StatusOr<int64_t> parseByteCount(std::string_view text) {
  std::string_view digits = text;
  int shift = 0;
  if (!digits.empty()) {
    switch (digits.back()) {
      case 'K': case 'k': shift = 10; break;
      case 'M': case 'm': shift = 20; break;
      case 'G': case 'g': shift = 30; break;
      case 'T': case 't': shift = 40; break;
      default: break;
    }
    if (shift) digits.remove_suffix(1);
  }
  int64_t value = 0;
  if (digits.empty() || !absl::SimpleAtoi(std::string(digits), &value) || value < 0 ||
      (shift && value > (INT64_MAX >> shift))) {
    return absl::InvalidArgumentError(absl::StrCat(
        "byte count '", std::string(text), "' is not valid: expected a non-negative integer, optionally "
        "followed by K, M, G or T (binary multiples), e.g. 4G"));
  }
  return value << shift;
}

absl::StatusOr<std::string> defaultCacheDirectory() {
  if (std::string dir = environment("TILEJIT_CACHE_DIR"); !dir.empty()) return dir;
  if (std::string xdg = environment("XDG_CACHE_HOME"); !xdg.empty()) return xdg + "/tilejit";
  if (std::string home = environment("HOME"); !home.empty()) return home + "/.cache/tilejit";
  return absl::FailedPreconditionError(
      "no cache directory: set TILEJIT_CACHE_DIR (or XDG_CACHE_HOME or HOME)");
}

absl::StatusOr<DiskCacheOptions> diskCacheOptionsFromEnvironment() {
  DiskCacheOptions options;
  TJ_ASSIGN_OR_RETURN(options.directory, defaultCacheDirectory());
  if (std::string bound = environment("TILEJIT_CACHE_MAX_BYTES"); !bound.empty()) {
    absl::StatusOr<int64_t> bytes = parseByteCount(bound);
    if (!bytes.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("TILEJIT_CACHE_MAX_BYTES: ", bytes.status().message()));
    }
    options.maxBytes = *bytes;
  }
  for (absl::string_view dir :
       absl::StrSplit(environment("TILEJIT_CACHE_READONLY_DIRS"), ':', absl::SkipEmpty())) {
    options.readOnlyDirectories.emplace_back(dir);
  }
  return options;
}

DiskCacheOptions jitCacheOptionsFromEnvironment(std::vector<std::string>* warnings) {
  DiskCacheOptions options;
  if (absl::StatusOr<std::string> dir = defaultCacheDirectory(); dir.ok()) {
    options.directory = *dir;
  } else {
    warnings->push_back(absl::StrCat(dir.status().message(), "; compiled kernels are kept in memory only"));
  }
  if (std::string bound = environment("TILEJIT_CACHE_MAX_BYTES"); !bound.empty()) {
    if (absl::StatusOr<int64_t> bytes = parseByteCount(bound); bytes.ok()) {
      options.maxBytes = *bytes;
    } else {
      warnings->push_back(absl::StrCat("TILEJIT_CACHE_MAX_BYTES: ", bytes.status().message(),
                                       "; using the default bound of ",
                                       kDefaultCacheMaxBytes >> 30, "G"));
    }
  }
  for (absl::string_view dir :
       absl::StrSplit(environment("TILEJIT_CACHE_READONLY_DIRS"), ':', absl::SkipEmpty())) {
    options.readOnlyDirectories.emplace_back(dir);
  }
  return options;
}

DiskCache::DiskCache(DiskCacheOptions options)
    : options_(std::move(options)), hostName_(sanitizedHostName()) {}

absl::StatusOr<std::unique_ptr<DiskCache>> DiskCache::open(DiskCacheOptions options) {
  if (options.directory.empty()) {
    TJ_ASSIGN_OR_RETURN(options.directory, defaultCacheDirectory());
  }
  TJ_RETURN_IF_ERROR(cache_detail::makeDirectories(options.directory + "/" + kLayoutVersion));
  TJ_RETURN_IF_ERROR(cache_detail::makeDirectories(options.directory + "/locks"));
  return std::unique_ptr<DiskCache>(new DiskCache(std::move(options)));
}

std::unique_ptr<DiskCache> DiskCache::openForJit(
    DiskCacheOptions options, const std::vector<std::string>& configurationWarnings) {
  std::string root = options.directory;
  options.directory.clear();
  auto cache = std::unique_ptr<DiskCache>(new DiskCache(std::move(options)));
  for (const std::string& warning : configurationWarnings) cache->warn(warning);
  if (root.empty()) return cache;
  bool groupShared = false;
  cache_detail::RootCheck check =
      cache_detail::checkCacheRoot(root, kLayoutVersion, {"locks"}, &groupShared);
  switch (check.use) {
    case cache_detail::RootUse::kWritable:
      cache->options_.directory = root;
      if (groupShared) {
        cache->warn(absl::StrCat("cache directory '", root,
                                 "' is writable by its group: every member can plant a kernel "
                                 "this process loads (chmod g-w it unless the group is meant to "
                                 "share it)"));
      }
      cache->sweepIdleLockFiles();
      break;
    case cache_detail::RootUse::kReadOnly:
      cache->options_.readOnlyDirectories.insert(cache->options_.readOnlyDirectories.begin(), root);
      cache->warn(absl::StrCat("cache directory '", root, "' cannot be written (", check.reason,
                               "): its entries are read, new kernels are kept in memory only"));
      break;
    case cache_detail::RootUse::kUnusable:
      cache->warn(absl::StrCat("cache directory not used: ", check.reason,
                               "; compiled kernels are kept in memory only"));
      break;
  }
  return cache;
}

absl::StatusOr<DiskCache*> DiskCache::processDefault() {
  static std::mutex mutex;
  static std::unique_ptr<DiskCache> instance;
  std::lock_guard<std::mutex> guard(mutex);
  if (!instance) {
    TJ_ASSIGN_OR_RETURN(DiskCacheOptions options, diskCacheOptionsFromEnvironment());
    TJ_ASSIGN_OR_RETURN(instance, open(std::move(options)));
  }
  return instance.get();
}

std::string DiskCache::entryPath(const std::string& key) const {
  return absl::StrCat(options_.directory, "/", kLayoutVersion, "/", key.substr(0, 2), "/", key,
                      ".tjc");
}

std::string DiskCache::lockPath(const std::string& key) const {
  return absl::StrCat(options_.directory, "/locks/", key, ".lock");
}

absl::Status DiskCache::checkKey(const std::string& key) const {
  if (isWellFormedCacheKey(key)) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("cache key '", key.substr(0, 80),
                   "' is not 64 lowercase hex digits (use CacheKeyBuilder::finish())"));
}

void DiskCache::warn(const std::string& message) {
  if (options_.warningSink) {
    options_.warningSink(message);
  } else {
    std::cerr << "tilejit cache: warning: " << message << "\n";
  }
}

void DiskCache::warnOnce(const std::string& what, const std::string& message) {
  {
    std::lock_guard<std::mutex> guard(warnedMutex_);
    if (!warned_.insert(what).second) return;
  }
  warn(message);
}

void DiskCache::hook(const char* stage) const {
  if (options_.faultInjectionHook) options_.faultInjectionHook(stage);
}

// ---- memory layer ----

std::shared_ptr<const CacheEntry> DiskCache::memoryGet(const std::string& key) {
  std::lock_guard<std::mutex> guard(memoryMutex_);
  auto found = memoryIndex_.find(key);
  if (found == memoryIndex_.end()) return nullptr;
  memoryLru_.splice(memoryLru_.begin(), memoryLru_, found->second);
  return found->second->second;
}

void DiskCache::memoryPut(const std::string& key, std::shared_ptr<const CacheEntry> entry) {
  int64_t bytes = int64_t(entry->binary.size() + entry->metadataJson.size());
  if (bytes > options_.memoryLayerMaxBytes) return;
  std::lock_guard<std::mutex> guard(memoryMutex_);
  if (auto found = memoryIndex_.find(key); found != memoryIndex_.end()) {
    memoryLru_.splice(memoryLru_.begin(), memoryLru_, found->second);
    return;  // same key, same content: keep the first
  }
  memoryLru_.emplace_front(key, std::move(entry));
  memoryIndex_[key] = memoryLru_.begin();
  memoryBytes_ += bytes;
  while (memoryBytes_ > options_.memoryLayerMaxBytes && !memoryLru_.empty()) {
    const auto& victim = memoryLru_.back();
    memoryBytes_ -= int64_t(victim.second->binary.size() + victim.second->metadataJson.size());
    memoryIndex_.erase(victim.first);
    memoryLru_.pop_back();
  }
}

void DiskCache::dropMemoryLayer() {
  std::lock_guard<std::mutex> guard(memoryMutex_);
  memoryLru_.clear();
  memoryIndex_.clear();
  memoryBytes_ = 0;
}

// ---- lookup ----

void DiskCache::reportCorrupt(const std::string& path, int fd, const absl::Status& why,
                              bool writable) {
  corruptDetected_.fetch_add(1);
  struct stat info = {};
  ::fstat(fd, &info);
  std::string identity = absl::StrCat(path, "@", info.st_ino, ":", info.st_size, ":",
                                      info.st_mtim.tv_sec, ".", info.st_mtim.tv_nsec);
  bool first;
  {
    std::lock_guard<std::mutex> guard(reportedMutex_);
    first = reportedFiles_.insert(identity).second;
  }
  // Remove only if the path still names the file we judged: a healthy entry may have been
  // renamed over it since.
  bool removed = writable && cache_detail::pathNamesSameFile(path, fd) && ::unlink(path.c_str()) == 0;
  if (!first) return;
  warn(absl::StrCat("corrupt cache entry '", path, "': ", why.message(), "; ",
                    writable ? (removed ? "removed, will be rebuilt" : "will be rebuilt")
                             : "read-only layer, skipped"));
}

absl::StatusOr<std::shared_ptr<const CacheEntry>> DiskCache::readEntry(const std::string& root,
                                                                      const std::string& key,
                                                                      bool writable) {
  std::string path =
      absl::StrCat(root, "/", kLayoutVersion, "/", key.substr(0, 2), "/", key, ".tjc");
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) {
    if (errno == ENOENT || errno == ENOTDIR) return nullptr;
    // Unreadable is a miss: the kernel is rebuilt (and, in the writable root, replaced).
    warnOnce(path, absl::StrCat("cannot open cache entry '", path, "': ", errnoText(errno),
                                "; compiling it instead"));
    return nullptr;
  }
  // The shared lock tells eviction the entry is in use while we read it.
  if (writable) cache_detail::lockShared(fd.get());
  struct stat info;
  if (::fstat(fd.get(), &info) != 0) {
    return absl::InternalError(absl::StrCat("fstat '", path, "': ", errnoText(errno)));
  }
  if (!cache_detail::trustedOwner(info.st_uid)) {
    // Checksums catch accidents, not authors: a well-formed entry of another user is still
    // code this process would run.
    warnOnce(path, absl::StrCat("cache entry '", path, "' is owned by uid ", info.st_uid,
                                ", neither this user (uid ", ::geteuid(),
                                ") nor root: not trusted, compiling it instead"));
    return nullptr;
  }
  absl::StatusOr<std::string> bytes = cache_detail::readExactly(fd.get(), uint64_t(info.st_size), path);
  absl::StatusOr<CacheEntry> entry =
      bytes.ok() ? decodeEntry(*bytes, key) : absl::StatusOr<CacheEntry>(bytes.status());
  if (!entry.ok()) {
    reportCorrupt(path, fd.get(), entry.status(), writable);
    return nullptr;
  }
  // mtime is the LRU clock; one syscall, and only on disk hits (memory hits never get here).
  if (writable) ::futimens(fd.get(), nullptr);
  return std::make_shared<const CacheEntry>(std::move(*entry));
}

absl::StatusOr<std::shared_ptr<const CacheEntry>> DiskCache::lookupShared(const std::string& key,
                                                                          CacheSource* source) {
  TJ_RETURN_IF_ERROR(checkKey(key));
  if (auto entry = memoryGet(key)) {
    memoryHits_.fetch_add(1);
    if (source) *source = CacheSource::kMemory;
    return entry;
  }
  std::shared_ptr<const CacheEntry> entry;
  if (!options_.directory.empty()) {
    TJ_ASSIGN_OR_RETURN(entry, readEntry(options_.directory, key, /*writable=*/true));
  }
  for (size_t i = 0; !entry && i < options_.readOnlyDirectories.size(); ++i) {
    TJ_ASSIGN_OR_RETURN(entry, readEntry(options_.readOnlyDirectories[i], key, false));
  }
  if (!entry) {
    misses_.fetch_add(1);
    return nullptr;
  }
  diskHits_.fetch_add(1);
  if (source) *source = CacheSource::kDisk;
  memoryPut(key, entry);
  return entry;
}

absl::StatusOr<std::optional<CacheEntry>> DiskCache::lookup(const std::string& key) {
  TJ_ASSIGN_OR_RETURN(std::shared_ptr<const CacheEntry> entry, lookupShared(key));
  if (!entry) return std::optional<CacheEntry>();
  return std::optional<CacheEntry>(*entry);
}

// ---- store ----

absl::Status DiskCache::store(const std::string& key, const CacheEntry& entry) {
  TJ_RETURN_IF_ERROR(checkKey(key));
  if (options_.directory.empty()) {
    return absl::FailedPreconditionError("this cache has no writable directory");
  }
  std::string path = entryPath(key);
  std::string directory = path.substr(0, path.rfind('/'));
  TJ_RETURN_IF_ERROR(cache_detail::makeDirectories(directory));
  // Unique per writer, in the entry's own directory so rename() stays within a filesystem.
  std::string stagingPath = absl::StrCat(path, ".tmp.", hostName_, ".", ::getpid(), ".", randomHex());
  UniqueFd fd(::open(stagingPath.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
  if (!fd.valid()) {
    return absl::UnavailableError(
        absl::StrCat("cannot create staging file '", stagingPath, "': ", errnoText(errno)));
  }
  std::string bytes = encodeEntry(key, options_.writerVersion, entry);
  absl::Status status;
  for (size_t offset = 0; status.ok() && offset < bytes.size(); offset += kWriteChunkBytes) {
    status = cache_detail::writeAll(
        fd.get(), std::string_view(bytes).substr(offset, kWriteChunkBytes), stagingPath);
    hook("store:chunk-written");
  }
  // fsync before rename: after a power loss the name may be lost but never point at a file
  // whose blocks were not written. The directory itself is not synced: losing the rename only
  // costs a recompile.
  if (status.ok() && ::fsync(fd.get()) != 0) {
    status = absl::UnavailableError(absl::StrCat("fsync '", stagingPath, "': ", errnoText(errno)));
  }
  fd.reset();
  hook("store:before-rename");
  if (status.ok() && ::rename(stagingPath.c_str(), path.c_str()) != 0) {
    status = absl::UnavailableError(absl::StrCat("cannot publish cache entry '", path,
                                                 "' (rename from staging): ", errnoText(errno)));
  }
  if (!status.ok()) {
    ::unlink(stagingPath.c_str());
    return status;
  }
  stores_.fetch_add(1);
  if (options_.memoryLayerMaxBytes > 0) memoryPut(key, std::make_shared<const CacheEntry>(entry));
  maybeEvictAfterStore(key, int64_t(bytes.size()));
  return absl::OkStatus();
}

// ---- getOrCompute ----

absl::StatusOr<std::shared_ptr<const CacheEntry>> DiskCache::getOrComputeShared(
    const std::string& key, const ComputeFn& compute, bool* hit, CacheSource* source) {
  if (hit) *hit = true;
  TJ_ASSIGN_OR_RETURN(std::shared_ptr<const CacheEntry> entry, lookupShared(key, source));
  if (entry) return entry;

  cache_detail::ExclusiveFileLock lock;
  if (!options_.directory.empty() && options_.useFileLocks) {
    absl::StatusOr<cache_detail::ExclusiveFileLock::Outcome> outcome =
        cache_detail::ExclusiveFileLock::acquire(lockPath(key), options_.lockTimeout, &lock);
    if (!outcome.ok() && absl::IsDeadlineExceeded(outcome.status())) return outcome.status();
    if (!outcome.ok()) {
      // A lock we cannot take (its directory turned unwritable) only costs deduplication.
      warnOnce("lock", absl::StrCat(outcome.status().message(),
                                    "; compiling without cross-process deduplication"));
    } else if (*outcome == cache_detail::ExclusiveFileLock::Outcome::kUnsupported &&
               !lockFallbackNoted_.exchange(true)) {
      warn(absl::StrCat("the filesystem of '", options_.directory,
                        "' does not support flock(); compiles are not deduplicated across "
                        "processes (entries stay correct: publishing is atomic)"));
    }
  }
  // Someone else may have compiled it while we waited for the lock. Either way the lock file
  // goes when we are done (waiters re-check that the path names the file they locked).
  TJ_ASSIGN_OR_RETURN(entry, lookupShared(key, source));
  if (entry) {
    lock.removeFileAndRelease();
    return entry;
  }

  if (options_.fleetTier) {
    if (std::shared_ptr<const CacheEntry> fetched = options_.fleetTier->fetch(key)) {
      fleetHits_.fetch_add(1);
      if (source) *source = CacheSource::kFleet;
      keep(key, fetched);
      lock.removeFileAndRelease();
      return fetched;
    }
  }

  hook("compute:holding-lock");
  if (hit) *hit = false;
  if (source) *source = CacheSource::kComputed;
  computes_.fetch_add(1);
  TJ_ASSIGN_OR_RETURN(CacheEntry computed, compute());
  auto shared = std::make_shared<const CacheEntry>(std::move(computed));
  keep(key, shared);
  lock.removeFileAndRelease();
  // After the lock: processes waiting for this key read the disk, not Redis.
  if (options_.fleetTier) options_.fleetTier->publish(key, *shared);
  return shared;
}

void DiskCache::keep(const std::string& key, const std::shared_ptr<const CacheEntry>& entry) {
  if (options_.directory.empty()) {
    memoryPut(key, entry);
    return;
  }
  absl::Status stored = store(key, *entry);
  if (!stored.ok()) {
    warnOnce("store", absl::StrCat("could not store cache entry ", key, ": ", stored.message(),
                                   "; using the compiled result without caching it (said once "
                                   "per process)"));
    memoryPut(key, entry);
  }
}

absl::StatusOr<CacheEntry> DiskCache::getOrCompute(const std::string& key,
                                                   const ComputeFn& compute, bool* hit,
                                                   CacheSource* source) {
  TJ_ASSIGN_OR_RETURN(std::shared_ptr<const CacheEntry> entry,
                      getOrComputeShared(key, compute, hit, source));
  return *entry;
}

absl::StatusOr<CacheEntryPin> DiskCache::pin(const std::string& key) {
  TJ_RETURN_IF_ERROR(checkKey(key));
  if (options_.directory.empty()) return absl::NotFoundError("this cache has no writable directory");
  std::string path = entryPath(key);
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) {
    return absl::NotFoundError(
        absl::StrCat("no cache entry to pin at '", path, "': ", errnoText(errno)));
  }
  cache_detail::lockShared(fd.get());
  return CacheEntryPin(std::move(fd));
}

}  // namespace tilejit
