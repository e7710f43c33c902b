#include "cache/sha256.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace tilejit {
namespace {

// Examples from FIPS 180-4 / NIST CSRC "SHA256.pdf" and the NIST SHAVS short/long messages.
TEST(Sha256Test, SpecificationVectors) {
  EXPECT_EQ(sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256Hex("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnop"
                      "jklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu"),
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
  EXPECT_EQ(sha256Hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

// Message lengths around the padding boundaries (55, 56, 63, 64 bytes) must agree between
// one-shot and arbitrarily split incremental hashing.
TEST(Sha256Test, IncrementalMatchesOneShotAtEverySplit) {
  std::mt19937 random(7);
  for (size_t length : {0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 128, 1000}) {
    std::string message(length, '\0');
    for (char& c : message) c = char(random());
    std::string expected = sha256Hex(message);
    for (size_t split = 0; split <= length; split += (length > 130 ? 37 : 1)) {
      Sha256 hasher;
      hasher.update(std::string_view(message).substr(0, split));
      hasher.update(std::string_view(message).substr(split));
      EXPECT_EQ(digestToHex(hasher.finish()), expected) << "length " << length << " split " << split;
    }
  }
}

TEST(Sha256Test, HasherIsReusableAfterFinish) {
  Sha256 hasher;
  hasher.update("garbage");
  hasher.finish();
  hasher.update("abc");
  EXPECT_EQ(digestToHex(hasher.finish()),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

}  // namespace
}  // namespace tilejit
