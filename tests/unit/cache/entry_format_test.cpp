#include "cache/entry_format.h"

#include <gtest/gtest.h>

#include "cache_test_util.h"

namespace tilejit {
namespace {

using testing::testEntry;
using testing::testKey;

TEST(EntryFormatTest, RoundTrip) {
  std::string key = testKey(1);
  CacheEntry entry = testEntry(key, 1000);
  std::string bytes = encodeEntry(key, "1.2.3", entry);
  EntryHeader header;
  absl::StatusOr<CacheEntry> decoded = decodeEntry(bytes, key, &header);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(*decoded, entry);
  EXPECT_EQ(header.writerVersion, "1.2.3");
  EXPECT_EQ(header.key, key);
  EXPECT_EQ(bytes.substr(0, 8), "TJCACHE1");
  EXPECT_EQ(bytes.size(), 40 + 5 + 64 + entry.metadataJson.size() + 1000 + 32);
}

TEST(EntryFormatTest, EmptyMetadataAndBinaryRoundTrip) {
  std::string key = testKey(2);
  absl::StatusOr<CacheEntry> decoded = decodeEntry(encodeEntry(key, "", CacheEntry{}), key);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_TRUE(decoded->binary.empty());
}

TEST(EntryFormatTest, EveryTruncationAndEveryByteFlipIsDetected) {
  std::string key = testKey(3);
  std::string bytes = encodeEntry(key, "v", testEntry(key, 200));
  for (size_t length = 0; length < bytes.size(); ++length) {
    EXPECT_FALSE(decodeEntry(bytes.substr(0, length), key).ok()) << "truncated to " << length;
  }
  for (size_t i = 0; i < bytes.size(); ++i) {
    for (uint8_t mask : {0x01, 0x80, 0xff}) {
      std::string corrupt = bytes;
      corrupt[i] = char(uint8_t(corrupt[i]) ^ mask);
      EXPECT_FALSE(decodeEntry(corrupt, key).ok()) << "byte " << i << " ^ " << int(mask);
    }
  }
  EXPECT_FALSE(decodeEntry(bytes + "x", key).ok());
}

TEST(EntryFormatTest, ErrorsSayWhatWasWrong) {
  std::string key = testKey(4);
  std::string bytes = encodeEntry(key, "v", testEntry(key, 64));
  std::string badMagic = bytes;
  badMagic[0] = 'X';
  EXPECT_NE(decodeEntry(badMagic, key).status().message().find("magic"), std::string::npos);
  std::string badVersion = bytes;
  badVersion[8] = 9;
  EXPECT_NE(decodeEntry(badVersion, key).status().message().find("format version 9"),
            std::string::npos);
  std::string huge = bytes;
  huge[39] = char(0x7f);  // binary length ~2^63: must be rejected before any allocation
  EXPECT_NE(decodeEntry(huge, key).status().message().find("truncated"), std::string::npos);
  absl::Status wrongKey = decodeEntry(bytes, testKey(5)).status();
  EXPECT_NE(wrongKey.message().find("filed under key"), std::string::npos) << wrongKey;
  std::string flipped = bytes;
  flipped[bytes.size() - 40] ^= 1;
  EXPECT_NE(decodeEntry(flipped, key).status().message().find("checksum"), std::string::npos);
}

}  // namespace
}  // namespace tilejit
