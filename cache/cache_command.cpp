#include "cache/cache_command.h"

#include <ctime>
#include <iomanip>

#include "absl/strings/str_cat.h"
#include "absl/strings/numbers.h"
#include "cache/disk_cache.h"
#include "nlohmann/json.hpp"

namespace tilejit {
namespace {

constexpr char kUsage[] = R"(usage: tilejit cache [--dir DIR] <command> [options]

Maintains the kernel cache (one verified file per compiled kernel).

commands:
  ls [--json]                 list entries: key, bytes, last use, template, writer version
  stats                       entry count and bytes, staging and lock files
  verify                      check every entry (header, sizes, SHA-256); exit 1 if any is
                              corrupt; removes nothing
  gc [--max-bytes N] [--stale-minutes M]
                              remove corrupt entries, sweep staging files of dead writers
                              (and of other hosts' writers older than M minutes, default 30),
                              remove idle lock files, evict least recently used entries down
                              to N bytes (K/M/G/T suffixes; default: the configured bound)
  clear                       remove every entry not in use by another process

options:
  --dir DIR                   the writable cache directory (default: environment, below)
  -h, --help                  this text

environment:
  TILEJIT_CACHE_DIR           writable directory (else $XDG_CACHE_HOME/tilejit, else
                              $HOME/.cache/tilejit)
  TILEJIT_CACHE_MAX_BYTES     size bound (default 4G)
  TILEJIT_CACHE_READONLY_DIRS colon-separated read-only cache directories, searched after it

fleet tier (the JIT asks Redis after a local miss and stores what it compiles there; these
commands act on the local directory only):
  TILEJIT_REDIS_URL           redis://[:password@]host[:port][/db] or unix:///path[?db=N];
                              unset: no fleet tier
  TILEJIT_REDIS_KEY_FILE      the fleet's shared signing key (>= 16 bytes; HMAC-SHA-256 of
                              every entry); without it the fleet tier is off
  TILEJIT_REDIS_TTL_SECONDS   expiry of stored entries (default 604800, 7 days)
  TILEJIT_REDIS_MAX_ENTRY_BYTES
                              larger entries are neither stored nor read (default 64M)
  TILEJIT_REDIS_CONNECT_TIMEOUT_MS, TILEJIT_REDIS_COMMAND_TIMEOUT_MS
                              bounds on waiting for Redis (defaults 250 and 1000)
  TILEJIT_REDIS_RETRY_SECONDS after a connection failure or timeout, Redis is not asked for
                              this long (default 30)
)";

std::string formatTime(std::chrono::system_clock::time_point time) {
  std::time_t seconds = std::chrono::system_clock::to_time_t(time);
  std::tm local = {};
  localtime_r(&seconds, &local);
  char buffer[32];
  std::strftime(buffer, sizeof(buffer), "%Y-%m-%d %H:%M:%S", &local);
  return buffer;
}

int usageError(std::ostream& err, const std::string& message) {
  err << "tilejit cache: " << message << "\n(run 'tilejit cache --help' for usage)\n";
  return 2;
}

int failure(std::ostream& err, const absl::Status& status) {
  err << "tilejit cache: " << status.message() << "\n";
  return 1;
}

void printGcReport(const GcReport& report, std::ostream& out) {
  out << "evicted " << report.evictedEntries << " entries (" << report.evictedBytes
      << " bytes), skipped " << report.skippedInUse << " in use, removed "
      << report.removedCorrupt << " corrupt, swept " << report.sweptStagingFiles
      << " staging files, removed " << report.removedLockFiles << " lock files; "
      << report.remainingBytes << " bytes remain\n";
}

}  // namespace

int runCacheCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  std::string command;
  std::string directory;
  bool json = false;
  GcOptions gcOptions;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    auto value = [&](std::string* result) {
      if (i + 1 >= args.size()) return false;
      *result = args[++i];
      return true;
    };
    std::string text;
    if (arg == "-h" || arg == "--help") {
      out << kUsage;
      return 0;
    } else if (arg == "--dir") {
      if (!value(&directory)) return usageError(err, "--dir needs a directory");
    } else if (arg == "--json" && command == "ls") {
      json = true;
    } else if (arg == "--max-bytes" && command == "gc") {
      if (!value(&text)) return usageError(err, "--max-bytes needs a byte count");
      absl::StatusOr<int64_t> bytes = parseByteCount(text);
      if (!bytes.ok()) return usageError(err, std::string(bytes.status().message()));
      gcOptions.maxBytes = *bytes;
    } else if (arg == "--stale-minutes" && command == "gc") {
      int64_t minutes = 0;
      if (!value(&text) || !absl::SimpleAtoi(text, &minutes) || minutes < 0) {
        return usageError(err, absl::StrCat("--stale-minutes needs a non-negative integer, got '",
                                            text, "'"));
      }
      gcOptions.staleStagingAge = std::chrono::minutes(minutes);
    } else if (command.empty() && (arg == "ls" || arg == "stats" || arg == "verify" ||
                                   arg == "gc" || arg == "clear")) {
      command = arg;
    } else {
      return usageError(err, absl::StrCat("unexpected argument '", arg, "'",
                                          command.empty() ? "; commands: ls, stats, verify, gc, clear"
                                                          : absl::StrCat(" for '", command, "'")));
    }
  }
  if (command.empty()) return usageError(err, "missing command (ls, stats, verify, gc, clear)");

  absl::StatusOr<DiskCacheOptions> options = diskCacheOptionsFromEnvironment();
  if (!options.ok() && directory.empty()) return failure(err, options.status());
  if (!options.ok()) options = DiskCacheOptions();
  if (!directory.empty()) options->directory = directory;
  absl::StatusOr<std::unique_ptr<DiskCache>> cache = DiskCache::open(*options);
  if (!cache.ok()) return failure(err, cache.status());

  if (command == "ls") {
    absl::StatusOr<std::vector<CacheEntryInfo>> entries = (*cache)->listEntries();
    if (!entries.ok()) return failure(err, entries.status());
    if (json) {
      nlohmann::json list = nlohmann::json::array();
      for (const CacheEntryInfo& entry : *entries) {
        list.push_back({{"key", entry.key},
                        {"path", entry.path},
                        {"bytes", entry.fileBytes},
                        {"lastUse", formatTime(entry.lastUse)},
                        {"template", entry.templateName},
                        {"writerVersion", entry.writerVersion},
                        {"readOnly", entry.readOnlyLayer}});
      }
      out << list.dump(2) << "\n";
      return 0;
    }
    out << std::left << std::setw(66) << "KEY" << std::setw(12) << "BYTES" << std::setw(21)
        << "LAST USE" << std::setw(28) << "TEMPLATE" << "WRITER\n";
    for (const CacheEntryInfo& entry : *entries) {
      out << std::setw(66) << entry.key << std::setw(12) << entry.fileBytes << std::setw(21)
          << formatTime(entry.lastUse) << std::setw(28)
          << (entry.templateName.empty() ? "-" : entry.templateName)
          << (entry.writerVersion.empty() ? "-" : entry.writerVersion)
          << (entry.readOnlyLayer ? " (read-only)" : "") << "\n";
    }
    return 0;
  }
  if (command == "stats") {
    absl::StatusOr<CacheStats> stats = (*cache)->stats();
    if (!stats.ok()) return failure(err, stats.status());
    out << "directory:      " << (*cache)->options().directory << "\n"
        << "entries:        " << stats->entries << " (" << stats->bytes << " bytes, bound "
        << (*cache)->options().maxBytes << ")\n"
        << "read-only:      " << stats->readOnlyEntries << " (" << stats->readOnlyBytes
        << " bytes)\n"
        << "staging files:  " << stats->stagingFiles << "\n"
        << "lock files:     " << stats->lockFiles << "\n";
    return 0;
  }
  if (command == "verify") {
    absl::StatusOr<VerifyReport> report = (*cache)->verifyAll(/*removeCorrupt=*/false);
    if (!report.ok()) return failure(err, report.status());
    for (const std::string& problem : report->problems) out << "corrupt: " << problem << "\n";
    out << "checked " << report->checked << " entries, " << report->problems.size()
        << " corrupt\n";
    return report->problems.empty() ? 0 : 1;
  }
  if (command == "gc") {
    absl::StatusOr<GcReport> report = (*cache)->collectGarbage(gcOptions);
    if (!report.ok()) return failure(err, report.status());
    printGcReport(*report, out);
    return 0;
  }
  absl::StatusOr<GcReport> report = (*cache)->clear();
  if (!report.ok()) return failure(err, report.status());
  printGcReport(*report, out);
  return 0;
}

}  // namespace tilejit
