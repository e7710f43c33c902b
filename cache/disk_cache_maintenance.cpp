// DiskCache's whole-directory operations: scanning, eviction, gc, verify, listing, clear.
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "cache/cache_key.h"
#include "cache/disk_cache.h"
#include "nlohmann/json.hpp"
#include "support/status.h"

namespace tilejit {

using cache_detail::UniqueFd;

namespace {

constexpr char kStagingMarker[] = ".tjc.tmp.";
// Eviction after a store goes below the bound by this margin so that not every store scans.
constexpr int64_t kEvictionLowWatermarkPercent = 90;
constexpr auto kRescanInterval = std::chrono::seconds(10);

std::vector<std::string> listDirectory(const std::string& path) {
  std::vector<std::string> names;
  DIR* dir = ::opendir(path.c_str());
  if (!dir) return names;
  while (dirent* item = ::readdir(dir)) {
    std::string name = item->d_name;
    if (name != "." && name != "..") names.push_back(std::move(name));
  }
  ::closedir(dir);
  std::sort(names.begin(), names.end());
  return names;
}

std::chrono::system_clock::time_point modificationTime(const struct stat& info) {
  return std::chrono::system_clock::time_point(
      std::chrono::duration_cast<std::chrono::system_clock::duration>(
          std::chrono::seconds(info.st_mtim.tv_sec) +
          std::chrono::nanoseconds(info.st_mtim.tv_nsec)));
}

// Opens the entry and verifies it completely; the shared lock keeps eviction away meanwhile.
absl::Status verifyEntryFile(const std::string& path, const std::string& key, UniqueFd* fdOut) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) {
    if (errno == ENOENT) return absl::NotFoundError("evicted meanwhile");
    return absl::UnavailableError(
        absl::StrCat("cannot open: ", cache_detail::errnoText(errno)));
  }
  cache_detail::lockShared(fd.get());
  struct stat info;
  if (::fstat(fd.get(), &info) != 0) return absl::InternalError("fstat failed");
  absl::StatusOr<std::string> bytes =
      cache_detail::readExactly(fd.get(), uint64_t(info.st_size), path);
  absl::Status status = bytes.ok() ? decodeEntry(*bytes, key).status() : bytes.status();
  *fdOut = std::move(fd);
  return status;
}

// Removes `path` only if no one holds a lock on it and it is still the file we opened.
bool removeIfIdle(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return false;
  if (!cache_detail::tryLockExclusive(fd.get())) return false;
  if (!cache_detail::pathNamesSameFile(path, fd.get())) return false;
  return ::unlink(path.c_str()) == 0;
}

void readTemplateName(int fd, uint64_t offset, uint64_t size, CacheEntryInfo* info) {
  if (size == 0 || size > (uint64_t(1) << 20)) return;
  std::string json(size, '\0');
  if (::pread(fd, json.data(), size, off_t(offset)) != ssize_t(size)) return;
  nlohmann::json parsed = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (!parsed.is_object()) return;
  for (const char* field : {"templateName", "template_name", "template"}) {
    auto found = parsed.find(field);
    if (found != parsed.end() && found->is_string()) {
      info->templateName = found->get<std::string>();
      return;
    }
  }
}

}  // namespace

DiskCache::Scan DiskCache::scanRoot(const std::string& root, bool includeLocks) const {
  if (root.empty()) return Scan{};  // a cache running without a writable root
  Scan scan;
  std::string layout = root + "/v1";
  for (const std::string& shard : listDirectory(layout)) {
    std::string shardPath = layout + "/" + shard;
    for (const std::string& name : listDirectory(shardPath)) {
      ScannedFile file;
      file.path = shardPath + "/" + name;
      struct stat info;
      if (::lstat(file.path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) continue;
      file.bytes = int64_t(info.st_size);
      file.mtime = modificationTime(info);
      if (name.size() == 68 && absl::EndsWith(name, ".tjc") &&
          isWellFormedCacheKey(name.substr(0, 64))) {
        file.key = name.substr(0, 64);
        scan.entries.push_back(std::move(file));
      } else if (absl::StrContains(name, kStagingMarker)) {
        scan.staging.push_back(std::move(file));
      }
    }
  }
  if (includeLocks) {
    std::string locks = root + "/locks";
    for (const std::string& name : listDirectory(locks)) {
      if (!absl::EndsWith(name, ".lock")) continue;
      ScannedFile file;
      file.path = locks + "/" + name;
      scan.locks.push_back(std::move(file));
    }
  }
  return scan;
}

bool DiskCache::stagingFileAbandoned(const ScannedFile& file,
                                     std::chrono::seconds staleAge) const {
  if (std::chrono::system_clock::now() - file.mtime > staleAge) return true;
  // <key>.tjc.tmp.<host>.<pid>.<random>: on this host, a writer that no longer exists is dead.
  std::string name = file.path.substr(file.path.rfind('/') + 1);
  std::vector<std::string> parts =
      absl::StrSplit(name.substr(name.find(kStagingMarker) + sizeof(kStagingMarker) - 1), '.');
  int pid = 0;
  if (parts.size() != 3 || parts[0] != hostName_ || !absl::SimpleAtoi(parts[1], &pid) ||
      pid <= 0) {
    return false;
  }
  return ::kill(pid, 0) != 0 && errno == ESRCH;
}

void DiskCache::evictTo(int64_t maxBytes, const std::string& spareKey, GcReport* report) {
  Scan scan = scanRoot(options_.directory, /*includeLocks=*/false);
  int64_t total = 0;
  for (const ScannedFile& file : scan.entries) total += file.bytes;
  int64_t target = maxBytes;
  if (report == nullptr) target = maxBytes / 100 * kEvictionLowWatermarkPercent;
  if (total > maxBytes) {
    std::sort(scan.entries.begin(), scan.entries.end(),
              [](const ScannedFile& a, const ScannedFile& b) { return a.mtime < b.mtime; });
    for (const ScannedFile& file : scan.entries) {
      if (total <= target) break;
      if (file.key == spareKey) continue;
      if (!removeIfIdle(file.path)) {
        if (report) ++report->skippedInUse;
        continue;
      }
      total -= file.bytes;
      evictions_.fetch_add(1);
      if (report) {
        ++report->evictedEntries;
        report->evictedBytes += file.bytes;
      }
    }
  }
  std::lock_guard<std::mutex> guard(evictionMutex_);
  bytesAtLastScan_ = total;
  bytesSinceScan_ = 0;
  lastScan_ = std::chrono::steady_clock::now();
  if (report) report->remainingBytes = total;
}

int64_t DiskCache::sweepIdleLockFiles() {
  int64_t removed = 0;
  if (options_.directory.empty()) return 0;
  // The locks folder only: a start must not pay a stat of every entry.
  std::string locks = options_.directory + "/locks";
  for (const std::string& name : listDirectory(locks)) {
    if (absl::EndsWith(name, ".lock") && removeIfIdle(locks + "/" + name)) ++removed;
  }
  return removed;
}

void DiskCache::maybeEvictAfterStore(const std::string& storedKey, int64_t storedBytes) {
  if (options_.maxBytes <= 0) return;
  if (storedBytes > options_.maxBytes) {
    warnOnce("bound", absl::StrCat("the cache size bound (", options_.maxBytes,
                                   " bytes, TILEJIT_CACHE_MAX_BYTES) is smaller than one entry (",
                                   storedBytes, " bytes): each entry is evicted by the next "
                                   "store, so later runs compile again; raise the bound"));
  }
  {
    // Scanning is a readdir+stat of every entry, so stores skip it while our running estimate
    // stays under the bound; the periodic rescan catches growth from other processes.
    std::lock_guard<std::mutex> guard(evictionMutex_);
    bytesSinceScan_ += storedBytes;
    bool due = bytesAtLastScan_ < 0 || bytesAtLastScan_ + bytesSinceScan_ > options_.maxBytes ||
               std::chrono::steady_clock::now() - lastScan_ > kRescanInterval;
    if (!due) return;
  }
  evictTo(options_.maxBytes, storedKey, nullptr);
}

absl::StatusOr<std::vector<CacheEntryInfo>> DiskCache::listEntries() {
  std::vector<CacheEntryInfo> result;
  std::vector<std::pair<std::string, bool>> roots = {{options_.directory, false}};
  for (const std::string& dir : options_.readOnlyDirectories) roots.emplace_back(dir, true);
  for (const auto& [root, readOnly] : roots) {
    for (const ScannedFile& file : scanRoot(root, false).entries) {
      CacheEntryInfo info;
      info.key = file.key;
      info.path = file.path;
      info.fileBytes = file.bytes;
      info.lastUse = file.mtime;
      info.readOnlyLayer = readOnly;
      UniqueFd fd(::open(file.path.c_str(), O_RDONLY | O_CLOEXEC));
      if (fd.valid()) {
        std::string prefix(kEntryFixedHeaderBytes + kMaxWriterVersionBytes + 64, '\0');
        ssize_t got = ::pread(fd.get(), prefix.data(), prefix.size(), 0);
        prefix.resize(got > 0 ? size_t(got) : 0);
        absl::StatusOr<EntryHeader> header = decodeEntryHeader(prefix, uint64_t(file.bytes));
        if (header.ok()) {
          info.writerVersion = header->writerVersion;
          readTemplateName(fd.get(),
                           kEntryFixedHeaderBytes + header->writerVersion.size() + 64,
                           header->metadataBytes, &info);
        }
      }
      result.push_back(std::move(info));
    }
  }
  return result;
}

absl::StatusOr<CacheStats> DiskCache::stats() {
  CacheStats stats;
  Scan scan = scanRoot(options_.directory, /*includeLocks=*/true);
  stats.entries = int64_t(scan.entries.size());
  for (const ScannedFile& file : scan.entries) stats.bytes += file.bytes;
  stats.stagingFiles = int64_t(scan.staging.size());
  stats.lockFiles = int64_t(scan.locks.size());
  for (const std::string& dir : options_.readOnlyDirectories) {
    for (const ScannedFile& file : scanRoot(dir, false).entries) {
      ++stats.readOnlyEntries;
      stats.readOnlyBytes += file.bytes;
    }
  }
  stats.memoryHits = memoryHits_.load();
  stats.diskHits = diskHits_.load();
  stats.fleetHits = fleetHits_.load();
  stats.misses = misses_.load();
  stats.computes = computes_.load();
  stats.stores = stores_.load();
  stats.corruptDetected = corruptDetected_.load();
  stats.evictions = evictions_.load();
  return stats;
}

absl::StatusOr<VerifyReport> DiskCache::verifyAll(bool removeCorrupt) {
  VerifyReport report;
  std::vector<std::pair<std::string, bool>> roots = {{options_.directory, true}};
  for (const std::string& dir : options_.readOnlyDirectories) roots.emplace_back(dir, false);
  for (const auto& [root, writable] : roots) {
    for (const ScannedFile& file : scanRoot(root, false).entries) {
      ++report.checked;
      UniqueFd fd;
      absl::Status status = verifyEntryFile(file.path, file.key, &fd);
      if (status.ok()) continue;
      if (absl::IsNotFound(status)) continue;
      report.problems.push_back(absl::StrCat(file.path, ": ", status.message(),
                                             writable ? "" : " (read-only layer)"));
      corruptDetected_.fetch_add(1);
      if (removeCorrupt && writable && fd.valid() &&
          cache_detail::pathNamesSameFile(file.path, fd.get()) &&
          ::unlink(file.path.c_str()) == 0) {
        ++report.removed;
      }
    }
  }
  return report;
}

absl::StatusOr<GcReport> DiskCache::collectGarbage(const GcOptions& gcOptions) {
  GcReport report;
  if (gcOptions.removeCorrupt) {
    TJ_ASSIGN_OR_RETURN(VerifyReport verified, verifyAll(/*removeCorrupt=*/true));
    report.removedCorrupt = verified.removed;
  }
  std::chrono::seconds staleAge = gcOptions.staleStagingAge.value_or(options_.staleStagingAge);
  Scan scan = scanRoot(options_.directory, /*includeLocks=*/true);
  for (const ScannedFile& file : scan.staging) {
    if (stagingFileAbandoned(file, staleAge) && ::unlink(file.path.c_str()) == 0) {
      ++report.sweptStagingFiles;
    }
  }
  // Safe at any time: a lock holder keeps it, and acquire() re-checks that the path still
  // names the file it locked.
  for (const ScannedFile& file : scan.locks) {
    if (removeIfIdle(file.path)) ++report.removedLockFiles;
  }
  // An explicit bound of 0 empties the cache; a configured bound <= 0 means unbounded.
  int64_t maxBytes = gcOptions.maxBytes ? *gcOptions.maxBytes
                                        : (options_.maxBytes > 0 ? options_.maxBytes : INT64_MAX);
  evictTo(maxBytes, "", &report);
  return report;
}

absl::StatusOr<GcReport> DiskCache::clear() {
  GcReport report;
  Scan scan = scanRoot(options_.directory, /*includeLocks=*/true);
  for (const ScannedFile& file : scan.entries) {
    if (removeIfIdle(file.path)) {
      ++report.evictedEntries;
      report.evictedBytes += file.bytes;
    } else if (::access(file.path.c_str(), F_OK) == 0) {
      ++report.skippedInUse;
      report.remainingBytes += file.bytes;
    }
  }
  for (const ScannedFile& file : scan.staging) {
    if (stagingFileAbandoned(file, options_.staleStagingAge) && ::unlink(file.path.c_str()) == 0) {
      ++report.sweptStagingFiles;
    }
  }
  for (const ScannedFile& file : scan.locks) {
    if (removeIfIdle(file.path)) ++report.removedLockFiles;
  }
  dropMemoryLayer();
  return report;
}

}  // namespace tilejit
