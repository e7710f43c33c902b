#include "cache/hmac.h"

#include <array>

namespace tilejit {

Sha256Digest hmacSha256(std::string_view key, std::string_view message) {
  constexpr size_t kBlockBytes = 64;
  // Keys longer than a block are hashed first (RFC 2104, section 2); shorter ones zero-padded.
  std::array<uint8_t, kBlockBytes> block = {};
  if (key.size() > kBlockBytes) {
    Sha256Digest hashed = sha256(key);
    std::copy(hashed.begin(), hashed.end(), block.begin());
  } else {
    std::copy(key.begin(), key.end(), block.begin());
  }
  std::array<uint8_t, kBlockBytes> innerPad, outerPad;
  for (size_t i = 0; i < kBlockBytes; ++i) {
    innerPad[i] = block[i] ^ 0x36;
    outerPad[i] = block[i] ^ 0x5c;
  }
  Sha256 inner;
  inner.update(innerPad.data(), innerPad.size());
  inner.update(message);
  Sha256Digest innerDigest = inner.finish();
  Sha256 outer;
  outer.update(outerPad.data(), outerPad.size());
  outer.update(innerDigest.data(), innerDigest.size());
  return outer.finish();
}

bool digestsEqualConstantTime(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char difference = 0;
  for (size_t i = 0; i < a.size(); ++i) difference |= static_cast<unsigned char>(a[i] ^ b[i]);
  return difference == 0;
}

}  // namespace tilejit
