// Cache keys are a pure function of everything that changes the compiled bits (DESIGN
// principle 5). Each field is hashed as (name, value), both length-prefixed, so neither
// ("ab", "c") vs ("a", "bc") nor a value that happens to look like the next field's name can
// collide, and the order in which fields are added is part of the key.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "cache/sha256.h"

namespace tilejit {

class CacheKeyBuilder {
 public:
  CacheKeyBuilder();

  // The conventional fields; each is a thin wrapper over addField with a fixed name, so the
  // compiler and the AOT precompiler cannot spell them differently.
  CacheKeyBuilder& addTemplateText(std::string_view text) { return addField("template", text); }
  CacheKeyBuilder& addParameter(std::string_view name, std::string_view value);
  CacheKeyBuilder& addParameter(std::string_view name, int64_t value);
  CacheKeyBuilder& addTarget(std::string_view target) { return addField("target", target); }
  CacheKeyBuilder& addEmitterVersion(std::string_view version) {
    return addField("emitter-version", version);
  }
  // Content, not a version string: a reinstall with the same version number but edited
  // headers must miss (flashinfer#4489).
  CacheKeyBuilder& addDeviceLibrary(std::string_view path, std::string_view content);
  CacheKeyBuilder& addToolchainIdentity(std::string_view identity) {
    return addField("toolchain", identity);
  }
  CacheKeyBuilder& addCompileOption(std::string_view option) {
    return addField("compile-option", option);
  }

  CacheKeyBuilder& addField(std::string_view name, std::string_view value);
  // Hashes the file's bytes (not its path or time stamps) under `name`.
  absl::Status addFileContent(std::string_view name, const std::string& path);

  // 64 lowercase hex digits. Ends the builder: call once.
  std::string finish();

 private:
  void addLengthPrefixed(std::string_view bytes);
  Sha256 hasher_;
  bool finished_ = false;
};

// True for what finish() returns: 64 lowercase hex digits. DiskCache accepts only these, which
// also keeps keys from naming paths outside the cache directory.
bool isWellFormedCacheKey(std::string_view key);

}  // namespace tilejit
