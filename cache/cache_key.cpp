#include "cache/cache_key.h"

#include <cassert>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"

namespace tilejit {

CacheKeyBuilder::CacheKeyBuilder() {
  // Domain separation: a key can never equal the SHA-256 of some other artifact's bytes.
  addLengthPrefixed("tilejit-cache-key-v1");
}

void CacheKeyBuilder::addLengthPrefixed(std::string_view bytes) {
  uint8_t length[8];
  uint64_t size = bytes.size();
  for (int i = 0; i < 8; ++i) length[i] = uint8_t(size >> (8 * i));
  hasher_.update(length, sizeof(length));
  hasher_.update(bytes);
}

CacheKeyBuilder& CacheKeyBuilder::addField(std::string_view name, std::string_view value) {
  assert(!finished_ && "CacheKeyBuilder used after finish()");
  addLengthPrefixed(name);
  addLengthPrefixed(value);
  return *this;
}

CacheKeyBuilder& CacheKeyBuilder::addParameter(std::string_view name, std::string_view value) {
  return addField(absl::StrCat("param:", std::string(name)), value);
}

CacheKeyBuilder& CacheKeyBuilder::addParameter(std::string_view name, int64_t value) {
  // Typed prefix: the integer 128 and the string "128" are different parameter values.
  return addField(absl::StrCat("param-int:", std::string(name)), absl::StrCat(value));
}

CacheKeyBuilder& CacheKeyBuilder::addDeviceLibrary(std::string_view path,
                                                   std::string_view content) {
  addField("device-library-path", path);
  return addField("device-library-content", content);
}

absl::Status CacheKeyBuilder::addFileContent(std::string_view name, const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    return absl::NotFoundError(
        absl::StrCat("cache key field '", std::string(name), "': cannot read file '", path, "'"));
  }
  std::ostringstream content;
  content << file.rdbuf();
  if (file.bad()) {
    return absl::DataLossError(
        absl::StrCat("cache key field '", std::string(name), "': error while reading '", path, "'"));
  }
  addField(name, content.str());
  return absl::OkStatus();
}

std::string CacheKeyBuilder::finish() {
  assert(!finished_ && "CacheKeyBuilder::finish() called twice");
  finished_ = true;
  return digestToHex(hasher_.finish());
}

bool isWellFormedCacheKey(std::string_view key) {
  if (key.size() != 64) return false;
  for (char c : key) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

}  // namespace tilejit
