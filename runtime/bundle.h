// A bundle: many precompiled code objects in one file, written by `tilejit aot` and read by a
// serving engine that links only the runtime (no MLIR/LLVM, no compiler, no cache). Every
// entry carries its own checksum so a damaged bundle names the entry that is wrong, and the
// whole file is sealed by a trailing checksum that also covers the index fields.
//
// Layout (integers little-endian):
//   8        magic "TJBUNDL1"
//   4        format version (1)
//   4        N = entry count
//   N times:
//     4+K    cache key (K = 64 hex digits)
//     4+T    template name
//     4+G    target
//     4+P    parameters text: "name=value" lines, sorted by name, each ending in '\n'
//     8+M    metadata JSON (runtime/kernel_metadata.h)
//     8+B    binary (code object)
//     32     SHA-256 of metadata JSON followed by binary
//   32       SHA-256 of every byte before it
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/kernel_metadata.h"

namespace tilejit {

inline constexpr char kBundleMagic[] = "TJBUNDL1";
inline constexpr uint32_t kBundleFormatVersion = 1;

struct BundleEntry {
  std::string key;           // cache key, 64 lowercase hex digits
  std::string templateName;  // "reshape_and_cache"
  std::string target;        // "sm_90", "host"
  std::map<std::string, std::string> parameters;  // every bound parameter
  std::string metadataJson;
  std::string binary;
  KernelMetadata metadata;  // parsed from metadataJson (filled by Bundle::open)
};

// "name=value\n" per parameter, sorted: the canonical text stored in a bundle.
std::string formatBundleParameters(const std::map<std::string, std::string>& parameters);
absl::StatusOr<std::map<std::string, std::string>> parseBundleParameters(std::string_view text);

class BundleWriter {
 public:
  // Validates the entry (well-formed key, parseable metadata, no '\n' or '=' in parameter
  // names, no '\n' in values) and rejects a second entry with the same key.
  absl::Status add(BundleEntry entry);
  size_t size() const { return entries_.size(); }
  bool contains(std::string_view key) const;

  // The whole bundle as bytes.
  std::string encode() const;
  // Writes to a temporary file beside `path`, fsyncs it and renames it over `path`, so a
  // reader never sees a half-written bundle and a crash leaves the old one intact.
  absl::Status write(const std::string& path) const;

 private:
  std::vector<BundleEntry> entries_;
};

class Bundle {
 public:
  // Reads and verifies the whole file: structure, every entry's checksum, the trailing
  // checksum, and that each entry's metadata parses. DataLoss errors name the entry (index,
  // template, target, key) and the field that is wrong.
  static absl::StatusOr<Bundle> open(const std::string& path);
  static absl::StatusOr<Bundle> decode(std::string_view bytes, const std::string& nameForErrors);

  const std::vector<BundleEntry>& entries() const { return entries_; }

  // The entry of `templateName` for `target` whose parameters include every pair in
  // `parameters` (unnamed ones may take any value). NotFound when none matches;
  // FailedPrecondition when several do (the message lists what tells them apart).
  absl::StatusOr<const BundleEntry*> find(std::string_view templateName, std::string_view target,
                                          const std::map<std::string, std::string>& parameters =
                                              {}) const;

 private:
  std::vector<BundleEntry> entries_;
};

}  // namespace tilejit
