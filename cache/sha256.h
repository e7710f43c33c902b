// SHA-256 (FIPS 180-4, section 6.2), written from the specification. The cache uses it for
// content-addressed keys and for the checksum that every entry carries.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace tilejit {

using Sha256Digest = std::array<uint8_t, 32>;

// Incremental hasher: update() any number of times, then finish() once.
class Sha256 {
 public:
  Sha256();
  void update(const void* data, size_t size);
  void update(std::string_view bytes) { update(bytes.data(), bytes.size()); }
  // Pads, processes the last block(s) and returns the digest. The hasher must not be updated
  // afterwards (it is reset, so it may be reused for a new message).
  Sha256Digest finish();

 private:
  void reset();
  void processBlock(const uint8_t* block);

  std::array<uint32_t, 8> state_;
  std::array<uint8_t, 64> buffer_;
  size_t bufferSize_ = 0;
  uint64_t totalBytes_ = 0;
};

Sha256Digest sha256(std::string_view bytes);
std::string sha256Hex(std::string_view bytes);
std::string digestToHex(const Sha256Digest& digest);

}  // namespace tilejit
