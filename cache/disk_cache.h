// The kernel cache: content-addressed entries on disk (one verified file per key), a
// per-process memory layer in front, optional read-only layers behind (e.g. shipped in an
// image), cross-process deduplication of compiles by flock(), and LRU eviction to a size
// bound. Design notes: every failure mode we know from peer caches is either impossible by
// construction (atomic single-file publish, OS locks that die with their holder) or detected
// (checksummed entries are rebuilt, never loaded when wrong).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cache/entry_format.h"
#include "cache/file_util.h"

#ifndef TILEJIT_VERSION_STRING
#define TILEJIT_VERSION_STRING "0.1.0-dev"
#endif

namespace tilejit {

class FleetTier;

inline constexpr int64_t kDefaultCacheMaxBytes = int64_t(4) << 30;

struct DiskCacheOptions {
  // Writable root; entries live in <directory>/v1/<key[0:2]>/<key>.tjc.
  std::string directory;
  // Searched after the writable root, never written; corrupt entries there are reported and
  // skipped, not deleted.
  std::vector<std::string> readOnlyDirectories;
  // Bound on the bytes of the writable root's entries; <= 0 means unbounded.
  int64_t maxBytes = kDefaultCacheMaxBytes;
  // How long getOrCompute waits for another process's compile of the same key.
  std::chrono::milliseconds lockTimeout = std::chrono::minutes(10);
  // Staging files of writers on other hosts (whose liveness we cannot check) older than this
  // are swept by gc; on this host a staging file is swept once its writer process is gone.
  std::chrono::seconds staleStagingAge = std::chrono::minutes(30);
  // Bytes the memory layer keeps (least recently used dropped first); 0 disables it.
  int64_t memoryLayerMaxBytes = int64_t(256) << 20;
  // Recorded in every entry's header for `tilejit cache ls`; not part of the key (the key
  // hashes content, which is what changes bits).
  std::string writerVersion = TILEJIT_VERSION_STRING;
  // False behaves like a filesystem without flock (tests of the NFS fallback).
  bool useFileLocks = true;
  // Receives warnings (corrupt entry found, lock fallback); default prints to stderr.
  std::function<void(const std::string&)> warningSink;
  // Fault injection for tests: called with "store:chunk-written", "store:before-rename",
  // "compute:holding-lock" at the points where a killed process must leave a sound cache.
  std::function<void(const char* stage)> faultInjectionHook;
  // getOrCompute asks it on a miss of memory and disk (under the key's lock, so one process
  // per node asks) and gives it every entry it computes; what it returns is stored on disk
  // too. lookup() stays local.
  std::shared_ptr<FleetTier> fleetTier;
};

// $TILEJIT_CACHE_DIR, else $XDG_CACHE_HOME/tilejit, else $HOME/.cache/tilejit.
absl::StatusOr<std::string> defaultCacheDirectory();
// defaultCacheDirectory() plus $TILEJIT_CACHE_MAX_BYTES (bytes, or with a K/M/G/T suffix) and
// $TILEJIT_CACHE_READONLY_DIRS (colon-separated).
absl::StatusOr<DiskCacheOptions> diskCacheOptionsFromEnvironment();
// The same for the JIT, which never fails on configuration: an unparseable bound keeps the
// default, and no directory at all (no TILEJIT_CACHE_DIR, XDG_CACHE_HOME or HOME) leaves
// `directory` empty (memory layer only); each is a line in `warnings`.
DiskCacheOptions jitCacheOptionsFromEnvironment(std::vector<std::string>* warnings);
// Parses "4294967296", "512M", "4G" (binary multiples).
absl::StatusOr<int64_t> parseByteCount(std::string_view text);

struct CacheEntryInfo {
  std::string key;
  std::string path;
  int64_t fileBytes = 0;
  std::chrono::system_clock::time_point lastUse;  // mtime, touched on every disk hit
  std::string templateName;                       // from the metadata JSON, when present
  std::string writerVersion;
  bool readOnlyLayer = false;
};

struct CacheStats {
  int64_t entries = 0;
  int64_t bytes = 0;
  int64_t readOnlyEntries = 0;
  int64_t readOnlyBytes = 0;
  int64_t stagingFiles = 0;
  int64_t lockFiles = 0;
  // This process only.
  int64_t memoryHits = 0;
  int64_t diskHits = 0;
  int64_t fleetHits = 0;
  int64_t misses = 0;
  int64_t computes = 0;
  int64_t stores = 0;
  int64_t corruptDetected = 0;
  int64_t evictions = 0;
};

struct VerifyReport {
  int64_t checked = 0;
  std::vector<std::string> problems;  // "<path>: <what was wrong>"
  int64_t removed = 0;
};

struct GcOptions {
  std::optional<int64_t> maxBytes;                   // default: the cache's bound
  std::optional<std::chrono::seconds> staleStagingAge;  // default: the cache's option
  bool removeCorrupt = true;                         // verifies every entry (reads them all)
};

struct GcReport {
  int64_t evictedEntries = 0;
  int64_t evictedBytes = 0;
  int64_t skippedInUse = 0;
  int64_t sweptStagingFiles = 0;
  int64_t removedCorrupt = 0;
  int64_t removedLockFiles = 0;
  int64_t remainingBytes = 0;
};

// Holds a shared flock on an entry file: eviction and clear skip it while any pin exists.
class CacheEntryPin {
 public:
  CacheEntryPin() = default;
  explicit CacheEntryPin(cache_detail::UniqueFd fd) : fd_(std::move(fd)) {}
  bool held() const { return fd_.valid(); }

 private:
  cache_detail::UniqueFd fd_;
};

// Where getOrCompute found an entry: its memory layer, a disk root, the fleet tier, or the
// compute function (the compile service reports it per request).
enum class CacheSource { kMemory, kDisk, kFleet, kComputed };

class DiskCache {
 public:
  using ComputeFn = std::function<absl::StatusOr<CacheEntry>()>;

  // Creates the writable root if needed. Read-only roots may be missing (then they are empty).
  static absl::StatusOr<std::unique_ptr<DiskCache>> open(DiskCacheOptions options);
  // The JIT's cache, which never stops a compile: a writable root that cannot be used - not a
  // directory, unwritable, owned by another user, writable by every user - is reported in one
  // warning and the cache runs without it (the memory layer; a root that is readable and
  // trusted is still read, as a read-only layer). Idle lock files are swept.
  // `configurationWarnings` (from jitCacheOptionsFromEnvironment) go to the warning sink first.
  static std::unique_ptr<DiskCache> openForJit(
      DiskCacheOptions options, const std::vector<std::string>& configurationWarnings = {});
  // One instance per process, configured from the environment on first use.
  static absl::StatusOr<DiskCache*> processDefault();

  // nullopt on a miss, including when a corrupt entry was found (reported, removed from the
  // writable layer) - the caller rebuilds. Errors are I/O failures other than "absent".
  absl::StatusOr<std::optional<CacheEntry>> lookup(const std::string& key);
  // `source` (may be null) is set to kMemory or kDisk on a hit.
  absl::StatusOr<std::shared_ptr<const CacheEntry>> lookupShared(const std::string& key,
                                                                 CacheSource* source = nullptr);

  absl::Status store(const std::string& key, const CacheEntry& entry);

  // Lookup; on a miss, take the key's cross-process lock, look again, compute, store. `hit` is
  // set to whether this call did not run `compute`. A failed store (full or read-only disk)
  // is reported as a warning and the computed entry returned. `source` (may be null) says
  // where the entry came from.
  absl::StatusOr<CacheEntry> getOrCompute(const std::string& key, const ComputeFn& compute,
                                          bool* hit = nullptr, CacheSource* source = nullptr);
  absl::StatusOr<std::shared_ptr<const CacheEntry>> getOrComputeShared(
      const std::string& key, const ComputeFn& compute, bool* hit = nullptr,
      CacheSource* source = nullptr);

  // NotFound when the writable layer has no entry for `key`.
  absl::StatusOr<CacheEntryPin> pin(const std::string& key);

  // Maintenance (`tilejit cache ...`).
  absl::StatusOr<std::vector<CacheEntryInfo>> listEntries();
  absl::StatusOr<CacheStats> stats();
  absl::StatusOr<VerifyReport> verifyAll(bool removeCorrupt);
  absl::StatusOr<GcReport> collectGarbage(const GcOptions& options);
  // Removes every entry not in use, dead writers' staging files and idle lock files of the
  // writable layer, and empties the memory layer.
  absl::StatusOr<GcReport> clear();

  void dropMemoryLayer();
  const DiskCacheOptions& options() const { return options_; }
  // The root entries are written to; empty when this cache runs without one (openForJit).
  const std::string& writableRoot() const { return options_.directory; }
  std::string entryPath(const std::string& key) const;

 private:
  explicit DiskCache(DiskCacheOptions options);

  struct ScannedFile {
    std::string path;
    std::string key;  // entries only
    int64_t bytes = 0;
    std::chrono::system_clock::time_point mtime;
  };
  struct Scan {
    std::vector<ScannedFile> entries;
    std::vector<ScannedFile> staging;
    std::vector<ScannedFile> locks;
  };
  Scan scanRoot(const std::string& root, bool includeLocks) const;

  absl::StatusOr<std::shared_ptr<const CacheEntry>> readEntry(const std::string& root,
                                                             const std::string& key,
                                                             bool writable);
  void reportCorrupt(const std::string& path, int fd, const absl::Status& why, bool writable);
  void warn(const std::string& message);
  void hook(const char* stage) const;
  absl::Status checkKey(const std::string& key) const;
  std::string lockPath(const std::string& key) const;

  // Evicts least recently used entries of the writable layer until its bytes are at most
  // `maxBytes`, sparing `spareKey` and entries someone holds a flock on.
  void evictTo(int64_t maxBytes, const std::string& spareKey, GcReport* report);
  void maybeEvictAfterStore(const std::string& storedKey, int64_t storedBytes);
  // Removes idle lock files of the writable root (any that no process holds).
  int64_t sweepIdleLockFiles();
  // Warns (once per process) with `message`, keyed by `what`.
  void warnOnce(const std::string& what, const std::string& message);
  bool stagingFileAbandoned(const ScannedFile& file, std::chrono::seconds staleAge) const;

  // Stores an entry this process computed or fetched (memory only without a writable root or
  // when the store fails, which is warned once).
  void keep(const std::string& key, const std::shared_ptr<const CacheEntry>& entry);

  std::shared_ptr<const CacheEntry> memoryGet(const std::string& key);
  void memoryPut(const std::string& key, std::shared_ptr<const CacheEntry> entry);

  DiskCacheOptions options_;
  std::string hostName_;

  std::mutex memoryMutex_;
  using LruList = std::list<std::pair<std::string, std::shared_ptr<const CacheEntry>>>;
  LruList memoryLru_;  // most recently used first
  std::unordered_map<std::string, LruList::iterator> memoryIndex_;
  int64_t memoryBytes_ = 0;

  std::mutex reportedMutex_;
  std::set<std::string> reportedFiles_;  // "path@inode:size:mtime", so each is reported once
  std::atomic<bool> lockFallbackNoted_{false};
  std::mutex warnedMutex_;
  std::set<std::string> warned_;

  std::mutex evictionMutex_;
  int64_t bytesSinceScan_ = 0;
  int64_t bytesAtLastScan_ = -1;
  std::chrono::steady_clock::time_point lastScan_;

  std::atomic<int64_t> memoryHits_{0}, diskHits_{0}, fleetHits_{0}, misses_{0}, computes_{0}, stores_{0},
      corruptDetected_{0}, evictions_{0};
};

}  // namespace tilejit
