#include "cache/entry_format.h"

#include <cstring>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "cache/sha256.h"

namespace tilejit {
namespace {

void appendLittleEndian(std::string& out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(char(uint8_t(value >> (8 * i))));
}

uint64_t readLittleEndian(std::string_view bytes, size_t offset, int size) {
  uint64_t value = 0;
  for (int i = 0; i < size; ++i) value |= uint64_t(uint8_t(bytes[offset + i])) << (8 * i);
  return value;
}

}  // namespace

std::string encodeEntry(std::string_view key, std::string_view writerVersion,
                        const CacheEntry& entry) {
  std::string bytes;
  bytes.reserve(kEntryFixedHeaderBytes + writerVersion.size() + key.size() +
                entry.metadataJson.size() + entry.binary.size() + kEntryChecksumBytes);
  bytes.append(kEntryMagic, 8);
  appendLittleEndian(bytes, kEntryFormatVersion, 4);
  appendLittleEndian(bytes, writerVersion.size(), 4);
  appendLittleEndian(bytes, key.size(), 4);
  appendLittleEndian(bytes, 0, 4);
  appendLittleEndian(bytes, entry.metadataJson.size(), 8);
  appendLittleEndian(bytes, entry.binary.size(), 8);
  bytes.append(writerVersion);
  bytes.append(key);
  bytes.append(entry.metadataJson);
  bytes.append(entry.binary);
  Sha256Digest digest = sha256(bytes);
  bytes.append(reinterpret_cast<const char*>(digest.data()), digest.size());
  return bytes;
}

absl::StatusOr<EntryHeader> decodeEntryHeader(std::string_view prefix, uint64_t fileSize) {
  if (fileSize < kEntryFixedHeaderBytes + kEntryChecksumBytes ||
      prefix.size() < kEntryFixedHeaderBytes) {
    return absl::DataLossError(absl::StrCat("file is ", fileSize, " bytes, shorter than the ",
                                            kEntryFixedHeaderBytes + kEntryChecksumBytes,
                                            " bytes of header and checksum"));
  }
  if (std::memcmp(prefix.data(), kEntryMagic, 8) != 0) {
    return absl::DataLossError(absl::StrCat("bad magic '", absl::CHexEscape(std::string(prefix.substr(0, 8))),
                                            "', expected '", kEntryMagic, "'"));
  }
  EntryHeader header;
  header.formatVersion = uint32_t(readLittleEndian(prefix, 8, 4));
  if (header.formatVersion != kEntryFormatVersion) {
    return absl::DataLossError(absl::StrCat("format version ", header.formatVersion,
                                            ", this build reads version ", kEntryFormatVersion));
  }
  uint64_t versionBytes = readLittleEndian(prefix, 12, 4);
  uint64_t keyBytes = readLittleEndian(prefix, 16, 4);
  uint64_t reserved = readLittleEndian(prefix, 20, 4);
  header.metadataBytes = readLittleEndian(prefix, 24, 8);
  header.binaryBytes = readLittleEndian(prefix, 32, 8);
  if (versionBytes > kMaxWriterVersionBytes) {
    return absl::DataLossError(absl::StrCat("writer version length ", versionBytes,
                                            " exceeds the limit of ", kMaxWriterVersionBytes));
  }
  if (keyBytes != 64) {
    return absl::DataLossError(absl::StrCat("key length ", keyBytes, ", expected 64"));
  }
  if (reserved != 0) {
    return absl::DataLossError(absl::StrCat("reserved header field is ", reserved, ", expected 0"));
  }
  // Each length is checked against the file size before summing, so the sum cannot overflow.
  uint64_t payload = fileSize - kEntryFixedHeaderBytes - kEntryChecksumBytes;
  if (header.metadataBytes > payload || header.binaryBytes > payload ||
      versionBytes + keyBytes + header.metadataBytes + header.binaryBytes != payload) {
    return absl::DataLossError(absl::StrCat(
        "header declares ", versionBytes, "+", keyBytes, "+", header.metadataBytes, "+",
        header.binaryBytes, " payload bytes but the file holds ", payload,
        " (truncated or appended to)"));
  }
  if (prefix.size() < kEntryFixedHeaderBytes + versionBytes + keyBytes) {
    return absl::DataLossError("header prefix too short to hold the version and key");
  }
  header.writerVersion = std::string(prefix.substr(kEntryFixedHeaderBytes, versionBytes));
  header.key = std::string(prefix.substr(kEntryFixedHeaderBytes + versionBytes, keyBytes));
  return header;
}

absl::StatusOr<CacheEntry> decodeEntry(std::string_view fileBytes, std::string_view expectedKey,
                                       EntryHeader* headerOut) {
  absl::StatusOr<EntryHeader> header = decodeEntryHeader(fileBytes, fileBytes.size());
  if (!header.ok()) return header.status();
  size_t bodyEnd = fileBytes.size() - kEntryChecksumBytes;
  Sha256Digest digest = sha256(fileBytes.substr(0, bodyEnd));
  if (std::memcmp(digest.data(), fileBytes.data() + bodyEnd, kEntryChecksumBytes) != 0) {
    return absl::DataLossError(absl::StrCat(
        "checksum mismatch: stored ",
        absl::BytesToHexString(std::string(fileBytes.substr(bodyEnd, kEntryChecksumBytes))), ", computed ",
        digestToHex(digest)));
  }
  if (header->key != expectedKey) {
    return absl::DataLossError(absl::StrCat("entry holds key ", absl::CHexEscape(header->key),
                                            " but is filed under key ", std::string(expectedKey)));
  }
  size_t offset = kEntryFixedHeaderBytes + header->writerVersion.size() + header->key.size();
  CacheEntry entry;
  entry.metadataJson = std::string(fileBytes.substr(offset, header->metadataBytes));
  entry.binary = std::string(fileBytes.substr(offset + header->metadataBytes, header->binaryBytes));
  if (headerOut) *headerOut = std::move(*header);
  return entry;
}

}  // namespace tilejit
