#include "cache/hmac.h"

#include <gtest/gtest.h>

#include <string>

#include "absl/strings/escaping.h"

namespace tilejit {
namespace {

std::string fromHex(const std::string& hex) { return absl::HexStringToBytes(hex); }

std::string hmacHex(const std::string& key, const std::string& message) {
  return digestToHex(hmacSha256(key, message));
}

// RFC 4231, section 4 (test case 5 truncates the output, which we never do).
TEST(HmacSha256Test, Rfc4231Vectors) {
  EXPECT_EQ(hmacHex(std::string(20, '\x0b'), "Hi There"),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
  EXPECT_EQ(hmacHex("Jefe", "what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  EXPECT_EQ(hmacHex(std::string(20, '\xaa'), std::string(50, '\xdd')),
            "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe");
  EXPECT_EQ(hmacHex(fromHex("0102030405060708090a0b0c0d0e0f10111213141516171819"),
                    std::string(50, '\xcd')),
            "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b");
  // Keys longer than the 64-byte block are hashed first.
  EXPECT_EQ(hmacHex(std::string(131, '\xaa'),
                    "Test Using Larger Than Block-Size Key - Hash Key First"),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
  EXPECT_EQ(hmacHex(std::string(131, '\xaa'),
                    "This is a test using a larger than block-size key and a larger than "
                    "block-size data. The key needs to be hashed before being used by the HMAC "
                    "algorithm."),
            "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2");
}

// A key of exactly one block is used as is, one byte more is hashed: both sides of the branch.
TEST(HmacSha256Test, BlockSizedKeyIsNotHashed) {
  std::string block(64, 'k');
  EXPECT_NE(hmacSha256(block, "m"), hmacSha256(std::string(65, 'k'), "m"));
  std::string hashedKey(reinterpret_cast<const char*>(sha256(std::string(65, 'k')).data()), 32);
  EXPECT_EQ(hmacSha256(std::string(65, 'k'), "m"), hmacSha256(hashedKey, "m"));
}

TEST(HmacSha256Test, ConstantTimeCompare) {
  EXPECT_TRUE(digestsEqualConstantTime("abc", "abc"));
  EXPECT_FALSE(digestsEqualConstantTime("abc", "abd"));
  EXPECT_FALSE(digestsEqualConstantTime("xbc", "abc"));
  EXPECT_FALSE(digestsEqualConstantTime("abc", "abcd"));
  EXPECT_TRUE(digestsEqualConstantTime("", ""));
}

}  // namespace
}  // namespace tilejit
