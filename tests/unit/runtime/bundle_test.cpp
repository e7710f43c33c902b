#include "runtime/bundle.h"

#include <dirent.h>
#include <stdlib.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace tilejit {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

std::string hexKey(char digit) { return std::string(64, digit); }

BundleEntry makeEntry(char keyDigit, std::string templateName, std::string target,
                      std::map<std::string, std::string> parameters, std::string binary) {
  KernelMetadata metadata;
  metadata.templateName = templateName;
  metadata.entry = "tj_" + templateName;
  metadata.target = target;
  metadata.backend = target == "host" ? "cpu" : "cuda";
  for (const auto& [name, value] : parameters) metadata.parameters.emplace_back(name, value);
  BundleEntry entry;
  entry.key = hexKey(keyDigit);
  entry.templateName = std::move(templateName);
  entry.target = std::move(target);
  entry.parameters = std::move(parameters);
  entry.metadataJson = serializeMetadata(metadata);
  entry.binary = std::move(binary);
  return entry;
}

BundleWriter sampleWriter() {
  BundleWriter writer;
  EXPECT_TRUE(writer.add(makeEntry('a', "reshape_and_cache", "host",
                                   {{"block_size", "16"}, {"kv_layout", "standard"}},
                                   std::string("\x7f" "ELF\0binary-one", 15))).ok());
  EXPECT_TRUE(writer.add(makeEntry('b', "reshape_and_cache", "host",
                                   {{"block_size", "32"}, {"kv_layout", "standard"}},
                                   "binary-two")).ok());
  EXPECT_TRUE(writer.add(makeEntry('c', "merge_attn_states", "sm_90", {{"dtype", "bf16"}},
                                   "cubin-three")).ok());
  return writer;
}

class TempDir {
 public:
  TempDir() {
    char pattern[] = "/tmp/tj_bundle_test_XXXXXX";
    path_ = mkdtemp(pattern);
  }
  ~TempDir() { std::system(("rm -rf '" + path_ + "'").c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::vector<std::string> listDir(const std::string& path) {
  std::vector<std::string> names;
  if (DIR* dir = opendir(path.c_str())) {
    while (dirent* entry = readdir(dir))
      if (std::string(entry->d_name) != "." && std::string(entry->d_name) != "..")
        names.push_back(entry->d_name);
    closedir(dir);
  }
  return names;
}

TEST(Bundle, RoundTripThroughAFile) {
  TempDir dir;
  std::string path = dir.path() + "/kernels.tjb";
  BundleWriter writer = sampleWriter();
  ASSERT_TRUE(writer.write(path).ok());
  // Atomic publish: only the bundle remains, no temporary file.
  EXPECT_EQ(listDir(dir.path()), std::vector<std::string>{"kernels.tjb"});

  absl::StatusOr<Bundle> bundle = Bundle::open(path);
  ASSERT_TRUE(bundle.ok()) << bundle.status();
  ASSERT_EQ(bundle->entries().size(), 3u);
  const BundleEntry& first = bundle->entries()[0];
  EXPECT_EQ(first.key, hexKey('a'));
  EXPECT_EQ(first.templateName, "reshape_and_cache");
  EXPECT_EQ(first.target, "host");
  EXPECT_EQ(first.parameters.at("block_size"), "16");
  EXPECT_EQ(first.binary, std::string("\x7f" "ELF\0binary-one", 15));  // embedded NUL survives
  EXPECT_EQ(first.metadata.entry, "tj_reshape_and_cache");
  EXPECT_EQ(first.metadata.backend, "cpu");
  EXPECT_EQ(bundle->entries()[2].binary, "cubin-three");
}

TEST(Bundle, EmptyBundleIsValid) {
  BundleWriter writer;
  absl::StatusOr<Bundle> bundle = Bundle::decode(writer.encode(), "empty");
  ASSERT_TRUE(bundle.ok()) << bundle.status();
  EXPECT_TRUE(bundle->entries().empty());
}

TEST(Bundle, FindMatchesTemplateTargetAndParameters) {
  absl::StatusOr<Bundle> bundle = Bundle::decode(sampleWriter().encode(), "sample");
  ASSERT_TRUE(bundle.ok()) << bundle.status();

  absl::StatusOr<const BundleEntry*> found =
      bundle->find("reshape_and_cache", "host", {{"block_size", "32"}});
  ASSERT_TRUE(found.ok()) << found.status();
  EXPECT_EQ((*found)->key, hexKey('b'));

  found = bundle->find("merge_attn_states", "sm_90");  // the only one: no parameters needed
  ASSERT_TRUE(found.ok()) << found.status();
  EXPECT_EQ((*found)->key, hexKey('c'));

  found = bundle->find("reshape_and_cache", "host");
  EXPECT_EQ(found.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(found.status().message()), HasSubstr("block_size"));

  found = bundle->find("reshape_and_cache", "sm_90");
  EXPECT_EQ(found.status().code(), absl::StatusCode::kNotFound);
  found = bundle->find("reshape_and_cache", "host", {{"block_size", "64"}});
  EXPECT_EQ(found.status().code(), absl::StatusCode::kNotFound);
}

TEST(Bundle, WriterRejectsBadEntries) {
  BundleWriter writer;
  EXPECT_TRUE(writer.add(makeEntry('a', "t", "host", {}, "x")).ok());
  EXPECT_EQ(writer.add(makeEntry('a', "t", "host", {}, "y")).code(),
            absl::StatusCode::kAlreadyExists);
  BundleEntry badKey = makeEntry('b', "t", "host", {}, "x");
  badKey.key = "not-a-key";
  EXPECT_EQ(writer.add(badKey).code(), absl::StatusCode::kInvalidArgument);
  BundleEntry badMetadata = makeEntry('c', "t", "host", {}, "x");
  badMetadata.metadataJson = "{not json";
  EXPECT_EQ(writer.add(badMetadata).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(writer.add(makeEntry('d', "t", "host", {{"a=b", "1"}}, "x")).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(writer.add(makeEntry('e', "t", "host", {{"a", "1\n2"}}, "x")).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(writer.size(), 1u);
}

TEST(Bundle, FlippedByteInACodeObjectNamesTheEntry) {
  BundleWriter writer = sampleWriter();
  std::string bytes = writer.encode();
  size_t at = bytes.find("binary-two");
  ASSERT_NE(at, std::string::npos);
  bytes[at + 3] ^= 0x01;
  absl::StatusOr<Bundle> bundle = Bundle::decode(bytes, "damaged.tjb");
  ASSERT_FALSE(bundle.ok());
  EXPECT_EQ(bundle.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(std::string(bundle.status().message()),
              AllOf(HasSubstr("damaged.tjb"), HasSubstr("entry 1"),
                    HasSubstr("reshape_and_cache for host"), HasSubstr("checksum mismatch")));
}

TEST(Bundle, FlippedByteInMetadataNamesTheEntry) {
  std::string bytes = sampleWriter().encode();
  size_t at = bytes.find("tj_merge_attn_states");
  ASSERT_NE(at, std::string::npos);
  bytes[at] ^= 0x20;
  absl::StatusOr<Bundle> bundle = Bundle::decode(bytes, "damaged.tjb");
  ASSERT_FALSE(bundle.ok());
  EXPECT_THAT(std::string(bundle.status().message()),
              AllOf(HasSubstr("entry 2"), HasSubstr("merge_attn_states for sm_90"),
                    HasSubstr("checksum mismatch")));
}

TEST(Bundle, FlippedByteInTheIndexFailsTheWholeFileChecksum) {
  std::string bytes = sampleWriter().encode();
  // A parameter value lives in the index, which the entry checksums do not cover.
  size_t at = bytes.find("kv_layout=standard");
  ASSERT_NE(at, std::string::npos);
  bytes[at + 10] = 'S';
  absl::StatusOr<Bundle> bundle = Bundle::decode(bytes, "damaged.tjb");
  ASSERT_FALSE(bundle.ok());
  EXPECT_EQ(bundle.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(std::string(bundle.status().message()), HasSubstr("whole-file checksum"));
}

TEST(Bundle, FlippedByteOnDiskIsCaughtByOpen) {
  TempDir dir;
  std::string path = dir.path() + "/kernels.tjb";
  ASSERT_TRUE(sampleWriter().write(path).ok());
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream buffer;
    buffer << in.rdbuf();
    bytes = buffer.str();
  }
  // Every single-byte flip must be rejected, wherever it lands.
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string damaged = bytes;
    damaged[i] ^= 0x40;
    {
      std::ofstream out(path, std::ios::binary | std::ios::trunc);
      out << damaged;
    }
    absl::StatusOr<Bundle> bundle = Bundle::open(path);
    ASSERT_FALSE(bundle.ok()) << "flip at offset " << i << " went unnoticed";
    EXPECT_THAT(std::string(bundle.status().message()), HasSubstr(path));
  }
}

TEST(Bundle, TruncationBadMagicAndVersionAreClearErrors) {
  std::string bytes = sampleWriter().encode();
  for (size_t size : {size_t(0), size_t(10), size_t(60), bytes.size() - 1}) {
    absl::StatusOr<Bundle> bundle = Bundle::decode(bytes.substr(0, size), "cut.tjb");
    ASSERT_FALSE(bundle.ok()) << "size " << size;
    EXPECT_EQ(bundle.status().code(), absl::StatusCode::kDataLoss) << "size " << size;
  }
  std::string wrongMagic = bytes;
  wrongMagic[0] = 'X';
  EXPECT_THAT(std::string(Bundle::decode(wrongMagic, "x").status().message()),
              HasSubstr("bad magic"));
  std::string wrongVersion = bytes;
  wrongVersion[8] = 9;
  EXPECT_THAT(std::string(Bundle::decode(wrongVersion, "x").status().message()),
              HasSubstr("format version 9"));
  EXPECT_EQ(Bundle::open("/nonexistent/dir/k.tjb").status().code(), absl::StatusCode::kNotFound);
}

TEST(BundleParameters, CanonicalTextRoundTrips) {
  std::map<std::string, std::string> parameters = {{"z", "1"}, {"a", "x=y"}, {"m", ""}};
  std::string text = formatBundleParameters(parameters);
  EXPECT_EQ(text, "a=x=y\nm=\nz=1\n");
  absl::StatusOr<std::map<std::string, std::string>> parsed = parseBundleParameters(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(*parsed, parameters);
  EXPECT_FALSE(parseBundleParameters("a=1").ok());
  EXPECT_FALSE(parseBundleParameters("=1\n").ok());
}

}  // namespace
}  // namespace tilejit
