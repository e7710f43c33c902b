// The cache entry reader on arbitrary bytes (what a corrupt or planted file holds): an error,
// never a crash; an entry that decodes re-encodes to the same bytes.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "cache/entry_format.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  tilejit::EntryHeader header;
  // The expected key is the one the file claims, so the checks past the key are reached too.
  absl::StatusOr<tilejit::EntryHeader> claimed = tilejit::decodeEntryHeader(bytes, size);
  std::string key = claimed.ok() ? claimed->key : std::string(64, '0');
  absl::StatusOr<tilejit::CacheEntry> entry = tilejit::decodeEntry(bytes, key, &header);
  if (!entry.ok()) return 0;
  if (tilejit::encodeEntry(key, header.writerVersion, *entry) != bytes) std::abort();
  return 0;
}
