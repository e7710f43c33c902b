// HMAC-SHA-256 (RFC 2104 with FIPS 180-4's SHA-256, the construction RFC 4231 tests). The fleet
// tier signs every entry it puts in Redis with a key shared by the fleet, so that write access
// to Redis is not enough to plant a kernel.
#pragma once

#include <string_view>

#include "cache/sha256.h"

namespace tilejit {

Sha256Digest hmacSha256(std::string_view key, std::string_view message);

// Compares in time independent of where the inputs differ, so a forger probing the check
// learns nothing from how fast it fails.
bool digestsEqualConstantTime(std::string_view a, std::string_view b);

}  // namespace tilejit
