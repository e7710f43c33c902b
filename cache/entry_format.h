// The on-disk form of one cache entry: a single file holding header, metadata and binary,
// sealed by a SHA-256 over everything before it. One file per entry means one inode per entry
// (triton#11778) and that a binary can never be paired with another writer's metadata
// (triton PR #11319, vllm#52413): they are published by one rename().
//
//   offset  size  field
//   0       8     magic "TJCACHE1"
//   8       4     format version (1), little-endian like every integer here
//   12      4     W = length of the writer's tilejit version string
//   16      4     K = length of the key (64)
//   20      4     reserved, 0
//   24      8     M = metadata JSON length
//   32      8     B = binary length
//   40      W+K+M+B   writer version, key, metadata JSON, binary
//   end-32  32    SHA-256 of bytes [0, end-32)
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace tilejit {

struct CacheEntry {
  std::string metadataJson;
  std::string binary;
  bool operator==(const CacheEntry& other) const {
    return metadataJson == other.metadataJson && binary == other.binary;
  }
};

struct EntryHeader {
  uint32_t formatVersion = 0;
  std::string writerVersion;
  std::string key;
  uint64_t metadataBytes = 0;
  uint64_t binaryBytes = 0;
};

inline constexpr char kEntryMagic[] = "TJCACHE1";
inline constexpr uint32_t kEntryFormatVersion = 1;
inline constexpr size_t kEntryFixedHeaderBytes = 40;
inline constexpr size_t kEntryChecksumBytes = 32;
inline constexpr size_t kMaxWriterVersionBytes = 256;

std::string encodeEntry(std::string_view key, std::string_view writerVersion,
                        const CacheEntry& entry);

// Parses and bounds-checks the header against the whole file's size, without the checksum.
// `prefix` must hold at least the fixed header plus writer version and key (or the whole file
// when shorter). Errors are DataLoss with a message saying which field is wrong and why.
absl::StatusOr<EntryHeader> decodeEntryHeader(std::string_view prefix, uint64_t fileSize);

// Full verification: header, sizes, checksum, and that the key stored is `expectedKey`.
// Returns the entry only when every check passed.
absl::StatusOr<CacheEntry> decodeEntry(std::string_view fileBytes, std::string_view expectedKey,
                                       EntryHeader* headerOut = nullptr);

}  // namespace tilejit
