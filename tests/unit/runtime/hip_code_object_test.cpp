#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <random>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "runtime/backends/hip/code_object.h"
#include "tests/unit/runtime/hip_compile_test.h"

namespace tilejit {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using namespace tilejit::testing;  // NOLINT: the test helpers

constexpr const char* kTargets[] = {"gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1201"};

using Fields = std::map<std::string, std::string>;
struct ReadelfKernel {
  Fields fields;
  std::vector<Fields> arguments;
};
struct ReadelfMetadata {
  std::string target;
  std::vector<ReadelfKernel> kernels;
};

// The YAML that `llvm-readelf --notes` prints for the metadata: kernels are "  - " items with
// fields indented 4, their arguments "      - " items with fields indented 8.
ReadelfMetadata parseReadelfNotes(const std::string& text) {
  ReadelfMetadata metadata;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (absl::ConsumePrefix(&line, "amdhsa.target:")) {
      metadata.target = std::string(absl::StripAsciiWhitespace(line));
      continue;
    }
    const size_t indent = line.find_first_not_of(' ');
    if (indent == absl::string_view::npos) continue;
    absl::string_view item = line.substr(indent);
    const bool starts = absl::ConsumePrefix(&item, "- ");
    const size_t depth = indent + (starts ? 2 : 0);
    if (!absl::StartsWith(item, ".")) continue;
    const size_t colon = item.find(':');
    if (colon == absl::string_view::npos) continue;
    std::string key(item.substr(0, colon));
    std::string value(absl::StripAsciiWhitespace(item.substr(colon + 1)));
    if (depth == 4) {
      if (starts) metadata.kernels.emplace_back();
      if (!value.empty() && !metadata.kernels.empty()) metadata.kernels.back().fields[key] = value;
    } else if (depth == 8 && !metadata.kernels.empty()) {
      auto& arguments = metadata.kernels.back().arguments;
      if (starts) arguments.emplace_back();
      if (!arguments.empty()) arguments.back()[key] = value;
    }
  }
  return metadata;
}

Fields fieldsOf(const AmdKernelDescriptor& kernel) {
  return {{".name", kernel.name},
          {".symbol", kernel.symbol},
          {".kernarg_segment_size", std::to_string(kernel.kernargSegmentSize)},
          {".kernarg_segment_align", std::to_string(kernel.kernargSegmentAlign)},
          {".group_segment_fixed_size", std::to_string(kernel.groupSegmentFixedSize)},
          {".private_segment_fixed_size", std::to_string(kernel.privateSegmentFixedSize)},
          {".sgpr_count", std::to_string(kernel.sgprCount)},
          {".vgpr_count", std::to_string(kernel.vgprCount)},
          {".agpr_count", std::to_string(kernel.agprCount)},
          {".sgpr_spill_count", std::to_string(kernel.sgprSpillCount)},
          {".vgpr_spill_count", std::to_string(kernel.vgprSpillCount)},
          {".wavefront_size", std::to_string(kernel.wavefrontSize)},
          {".max_flat_workgroup_size", std::to_string(kernel.maxFlatWorkgroupSize)}};
}

void expectMatchesReadelf(const AmdCodeObject& object, const ReadelfMetadata& expected,
                          const std::string& where) {
  EXPECT_EQ(object.target, expected.target) << where;
  ASSERT_EQ(object.kernels.size(), expected.kernels.size()) << where;
  for (size_t k = 0; k < object.kernels.size(); ++k) {
    const AmdKernelDescriptor& kernel = object.kernels[k];
    const ReadelfKernel& reference = expected.kernels[k];
    for (const auto& [key, value] : fieldsOf(kernel)) {
      auto found = reference.fields.find(key);
      // Optional fields readelf does not print (agpr_count off gfx90a/gfx94x/gfx950) read 0.
      EXPECT_EQ(value, found == reference.fields.end() ? "0" : found->second)
          << where << " kernel " << kernel.name << " " << key;
    }
    ASSERT_EQ(kernel.arguments.size(), reference.arguments.size()) << where << " " << kernel.name;
    for (size_t a = 0; a < kernel.arguments.size(); ++a) {
      const AmdKernelArgument& argument = kernel.arguments[a];
      Fields reference_argument = reference.arguments[a];
      EXPECT_EQ(std::to_string(argument.offset), reference_argument[".offset"]) << where << a;
      EXPECT_EQ(std::to_string(argument.size), reference_argument[".size"]) << where << a;
      EXPECT_EQ(argument.valueKind, reference_argument[".value_kind"]) << where << a;
      EXPECT_EQ(argument.name, reference_argument[".name"]) << where << a;
    }
  }
}

class AmdCodeObjectTest : public ClangTest {
 protected:
  // The test kernels' code object for `target`, and what llvm-readelf reads from it.
  void build(const std::string& target, const std::string& version, std::string& bytes,
             ReadelfMetadata* readelf = nullptr) {
    absl::StatusOr<std::string> path = compileHip(
        scratch_.path(), absl::StrCat(target, "_v", version), kTestKernels, target, version);
    ASSERT_TRUE(path.ok()) << path.status();
    bytes = fileBytes(*path);
    if (readelf) {
      int status = 0;
      std::string notes = runCommand(absl::StrCat(kReadelf, " --notes '", *path, "'"), &status);
      ASSERT_EQ(status, 0) << notes;
      *readelf = parseReadelfNotes(notes);
      ASSERT_EQ(readelf->kernels.size(), 2u) << notes;
    }
  }

  // The code object and where its metadata note's descriptor lies: after the note's 12-byte
  // header and its name "AMDGPU\0\0".
  void buildWithNote(const std::string& target, std::string& bytes, size_t& descriptor,
                     uint32_t& descriptorSize) {
    ASSERT_NO_FATAL_FAILURE(build(target, "5", bytes));
    const size_t name = bytes.find(std::string("AMDGPU\0\0", 8));
    ASSERT_TRUE(name != std::string::npos && name >= 12);
    std::memcpy(&descriptorSize, bytes.data() + name - 8, 4);
    descriptor = name + 8;
  }
};

TEST_F(AmdCodeObjectTest, EveryTargetReadsAsLlvmReadelfDoes) {
  for (const char* target : kTargets) {
    std::string bytes;
    ReadelfMetadata readelf;
    ASSERT_NO_FATAL_FAILURE(build(target, "5", bytes, &readelf));
    absl::StatusOr<AmdCodeObject> object = readAmdCodeObject(bytes);
    ASSERT_TRUE(object.ok()) << target << ": " << object.status();
    EXPECT_EQ(object->codeObjectVersion, 5) << target;
    EXPECT_THAT(object->target, StartsWith(absl::StrCat("amdgcn-amd-amdhsa--", target)));
    expectMatchesReadelf(*object, readelf, target);
  }
}

TEST_F(AmdCodeObjectTest, ReadsTheKernelAbiStructAndResources) {
  std::string bytes;
  ASSERT_NO_FATAL_FAILURE(build("gfx942", "5", bytes));
  absl::StatusOr<AmdCodeObject> object = readAmdCodeObject(bytes);
  ASSERT_TRUE(object.ok()) << object.status();
  EXPECT_THAT(object->target, StartsWith("amdgcn-amd-amdhsa--gfx942"));
  ASSERT_EQ(object->kernels.size(), 2u);
  const AmdKernelDescriptor& byStruct = object->kernels[0];
  EXPECT_EQ(byStruct.name, "tj_struct");
  EXPECT_EQ(byStruct.symbol, "tj_struct.kd");
  EXPECT_EQ(byStruct.kernargSegmentSize, 56);
  EXPECT_EQ(byStruct.wavefrontSize, 64);
  ASSERT_EQ(byStruct.arguments.size(), 1u);
  EXPECT_EQ(byStruct.arguments[0].offset, 0);
  EXPECT_EQ(byStruct.arguments[0].size, 56);
  EXPECT_EQ(byStruct.arguments[0].valueKind, "by_value");
  const AmdKernelDescriptor& withLds = object->kernels[1];
  EXPECT_EQ(withLds.name, "tj_lds");
  EXPECT_EQ(withLds.groupSegmentFixedSize, 1024);
  EXPECT_GT(withLds.arguments.size(), 4u);  // hidden arguments follow the four declared ones
  EXPECT_EQ(withLds.arguments[0].valueKind, "global_buffer");
  EXPECT_EQ(withLds.arguments[3].offset, 24);
}

TEST_F(AmdCodeObjectTest, ReadsCodeObjectVersions4To6) {
  for (const auto& [flag, version] :
       std::vector<std::pair<std::string, int64_t>>{{"4", 4}, {"5", 5}, {"", 6}}) {
    std::string bytes;
    ReadelfMetadata readelf;
    ASSERT_NO_FATAL_FAILURE(build("gfx90a", flag, bytes, &readelf));
    absl::StatusOr<AmdCodeObject> object = readAmdCodeObject(bytes);
    ASSERT_TRUE(object.ok()) << "v" << version << ": " << object.status();
    EXPECT_EQ(object->codeObjectVersion, version);
    expectMatchesReadelf(*object, readelf, absl::StrCat("v", version));
  }
}

TEST_F(AmdCodeObjectTest, EveryTruncationIsAnError) {
  std::string bytes;
  ASSERT_NO_FATAL_FAILURE(build("gfx1100", "5", bytes));
  for (size_t size = 0; size < bytes.size(); ++size) {
    absl::StatusOr<AmdCodeObject> object =
        readAmdCodeObject(std::string_view(bytes).substr(0, size));
    ASSERT_FALSE(object.ok()) << "read " << size << " of " << bytes.size() << " bytes";
    ASSERT_THAT(std::string(object.status().message()), StartsWith("AMDGPU code object: "));
  }
}

TEST_F(AmdCodeObjectTest, ATruncatedNoteIsAnError) {
  std::string bytes;
  size_t descriptor = 0;
  uint32_t descriptorSize = 0;
  ASSERT_NO_FATAL_FAILURE(buildWithNote("gfx942", bytes, descriptor, descriptorSize));
  const size_t sizeField = descriptor - 8 - 8;
  for (uint32_t size = 0; size < descriptorSize; ++size) {
    std::string shortened = bytes;
    std::memcpy(shortened.data() + sizeField, &size, 4);
    absl::StatusOr<AmdCodeObject> object = readAmdCodeObject(shortened);
    ASSERT_FALSE(object.ok()) << "a note of " << size << " of " << descriptorSize << " bytes";
    ASSERT_THAT(std::string(object.status().message()), StartsWith("AMDGPU code object: "));
  }
  // Past the section's end.
  std::string longer = bytes;
  const uint32_t huge = 0xfffffff0u;
  std::memcpy(longer.data() + sizeField, &huge, 4);
  absl::StatusOr<AmdCodeObject> object = readAmdCodeObject(longer);
  ASSERT_FALSE(object.ok());
  EXPECT_THAT(std::string(object.status().message()), HasSubstr("runs past its end"));
}

TEST_F(AmdCodeObjectTest, CorruptMetadataBytesNeverCrash) {
  std::string bytes;
  size_t descriptor = 0;
  uint32_t descriptorSize = 0;
  ASSERT_NO_FATAL_FAILURE(buildWithNote("gfx90a", bytes, descriptor, descriptorSize));
  int errors = 0;
  for (size_t at = descriptor; at < descriptor + descriptorSize; ++at) {
    for (unsigned char value : {0x00, 0x7f, 0x9f, 0xc1, 0xdb, 0xdd, 0xdf, 0xff}) {
      std::string corrupt = bytes;
      corrupt[at] = static_cast<char>(value);
      absl::StatusOr<AmdCodeObject> object = readAmdCodeObject(corrupt);
      if (!object.ok()) {
        ++errors;
        ASSERT_THAT(std::string(object.status().message()), StartsWith("AMDGPU code object: "));
      }
    }
  }
  EXPECT_GT(errors, 0);
}

TEST_F(AmdCodeObjectTest, CorruptBytesAnywhereNeverCrash) {
  std::string bytes;
  ASSERT_NO_FATAL_FAILURE(build("gfx950", "5", bytes));
  std::mt19937 random(42);
  for (int trial = 0; trial < 3000; ++trial) {
    std::string corrupt = bytes;
    for (int flips = 1 + trial % 4; flips > 0; --flips)
      corrupt[random() % corrupt.size()] = static_cast<char>(random());
    absl::StatusOr<AmdCodeObject> object = readAmdCodeObject(corrupt);
    if (!object.ok())
      ASSERT_THAT(std::string(object.status().message()), StartsWith("AMDGPU code object: "));
  }
}

TEST_F(AmdCodeObjectTest, NamesAMissingOrMistypedField) {
  std::string bytes;
  ASSERT_NO_FATAL_FAILURE(build("gfx942", "5", bytes));
  std::string missing = bytes;
  const size_t key = missing.find(".sgpr_count");
  ASSERT_NE(key, std::string::npos);
  missing[key + 6] = 'x';  // ".sgpr_xount"
  absl::StatusOr<AmdCodeObject> object = readAmdCodeObject(missing);
  ASSERT_FALSE(object.ok());
  EXPECT_EQ(object.status().message(), "AMDGPU code object: kernel 'tj_struct' has no .sgpr_count");

  std::string mistyped = bytes;
  const std::string wave = "\xaf.wavefront_size";  // fixstr of 15 bytes, then fixint 64
  const size_t field = mistyped.find(wave);
  ASSERT_NE(field, std::string::npos);
  ASSERT_EQ(static_cast<unsigned char>(mistyped[field + wave.size()]), 0x40);
  mistyped[field + wave.size()] = static_cast<char>(0xa0);  // an empty string
  object = readAmdCodeObject(mistyped);
  ASSERT_FALSE(object.ok());
  EXPECT_EQ(object.status().message(),
            "AMDGPU code object: kernel 'tj_struct': .wavefront_size is a string, expected an "
            "integer");
}

TEST_F(AmdCodeObjectTest, RejectsOtherElfFiles) {
  std::string bytes;
  ASSERT_NO_FATAL_FAILURE(build("gfx942", "5", bytes));
  std::string x86 = bytes;
  x86[18] = 62;  // EM_X86_64
  x86[19] = 0;
  absl::StatusOr<AmdCodeObject> object = readAmdCodeObject(x86);
  ASSERT_FALSE(object.ok());
  EXPECT_THAT(std::string(object.status().message()),
              HasSubstr("e_machine is 62, expected EM_AMDGPU (224)"));
  std::string elf32 = bytes;
  elf32[4] = 1;
  object = readAmdCodeObject(elf32);
  ASSERT_FALSE(object.ok());
  EXPECT_THAT(std::string(object.status().message()), HasSubstr("expected ELF64 little-endian"));
  std::string v3 = bytes;
  v3[8] = 1;  // EI_ABIVERSION of code object v3
  object = readAmdCodeObject(v3);
  ASSERT_FALSE(object.ok());
  EXPECT_THAT(std::string(object.status().message()), HasSubstr("EI_ABIVERSION is 1"));
}

// Bytes of a literal that may hold NULs.
template <size_t N>
std::string bytesOf(const char (&literal)[N]) {
  return std::string(literal, N - 1);
}

// A minimal AMDGPU ELF holding one note section with `pack` as its metadata, for inputs no
// compiler writes.
std::string elfWithMetadata(const std::string& pack) {
  std::string note(12, '\0');
  const uint32_t header[3] = {7, static_cast<uint32_t>(pack.size()), 32};
  std::memcpy(note.data(), header, 12);
  note += std::string("AMDGPU\0\0", 8) + pack;
  note.resize((note.size() + 3) & ~size_t{3}, '\0');
  std::string elf(64, '\0');
  std::memcpy(elf.data(),
              "\x7f"
              "ELF\x02\x01\x01\x40\x03",
              9);
  const uint16_t machine = 224, sectionEntry = 64, sections = 1;
  const uint64_t sectionTable = 64 + note.size();
  std::memcpy(elf.data() + 18, &machine, 2);
  std::memcpy(elf.data() + 40, &sectionTable, 8);
  std::memcpy(elf.data() + 58, &sectionEntry, 2);
  std::memcpy(elf.data() + 60, &sections, 2);
  std::string section(64, '\0');
  const uint32_t type = 7;
  const uint64_t offset = 64, size = note.size();
  std::memcpy(section.data() + 4, &type, 4);
  std::memcpy(section.data() + 24, &offset, 8);
  std::memcpy(section.data() + 32, &size, 8);
  return elf + note + section;
}

TEST(AmdCodeObject, ReadsHandWrittenMetadata) {
  // {"amdhsa.version": [1, 2], "amdhsa.target": "t", "amdhsa.kernels": [{.name "k", ...}]}
  std::string kernel = "\x8e";  // a map of 14 fields
  auto field = [&](const std::string& key, const std::string& value) {
    kernel += static_cast<char>(0xa0 | key.size()) + key + value;
  };
  field(".name", "\xa1k");
  field(".symbol", "\xa4k.kd");
  field(".kernarg_segment_size", bytesOf("\xcd\x01\x20"));  // uint16 288
  field(".kernarg_segment_align", "\x08");
  field(".group_segment_fixed_size", bytesOf("\xce\x00\x01\x00\x00"));  // uint32 65536
  field(".private_segment_fixed_size", bytesOf("\xd0\x10"));            // int8 16
  field(".sgpr_count", "\x20");
  field(".vgpr_count", bytesOf("\xcc\x80"));
  field(".agpr_count", "\x04");
  field(".sgpr_spill_count", bytesOf("\x00"));
  field(".vgpr_spill_count", bytesOf("\x00"));
  field(".wavefront_size", "\x20");
  field(".max_flat_workgroup_size", bytesOf("\xcd\x01\x00"));
  field(".args", bytesOf("\x91\x84\xa5.name\xa1x\xa7.offset\x00\xa5.size\x08\xab.value_kind"
                         "\xadglobal_buffer"));
  const std::string pack = std::string(
                               "\x83\xae"
                               "amdhsa.version\x92\x01\x02\xad"
                               "amdhsa.target\xa1t"
                               "\xae"
                               "amdhsa.kernels\x91") +
                           kernel;
  absl::StatusOr<AmdCodeObject> object = readAmdCodeObject(elfWithMetadata(pack));
  ASSERT_TRUE(object.ok()) << object.status();
  EXPECT_EQ(object->codeObjectVersion, 5);
  EXPECT_EQ(object->target, "t");
  ASSERT_EQ(object->kernels.size(), 1u);
  const AmdKernelDescriptor& k = object->kernels[0];
  EXPECT_EQ(fieldsOf(k), (Fields{{".name", "k"},
                                 {".symbol", "k.kd"},
                                 {".kernarg_segment_size", "288"},
                                 {".kernarg_segment_align", "8"},
                                 {".group_segment_fixed_size", "65536"},
                                 {".private_segment_fixed_size", "16"},
                                 {".sgpr_count", "32"},
                                 {".vgpr_count", "128"},
                                 {".agpr_count", "4"},
                                 {".sgpr_spill_count", "0"},
                                 {".vgpr_spill_count", "0"},
                                 {".wavefront_size", "32"},
                                 {".max_flat_workgroup_size", "256"}}));
  ASSERT_EQ(k.arguments.size(), 1u);
  EXPECT_EQ(k.arguments[0].name, "x");
  EXPECT_EQ(k.arguments[0].size, 8);
  EXPECT_EQ(k.arguments[0].valueKind, "global_buffer");
}

TEST(AmdCodeObject, BoundsHostileMessagePack) {
  const auto error = [](const std::string& pack) {
    absl::StatusOr<AmdCodeObject> object = readAmdCodeObject(elfWithMetadata(pack));
    return object.ok() ? std::string("ok") : std::string(object.status().message());
  };
  EXPECT_THAT(error(std::string(100000, '\x91')), HasSubstr("nests deeper than"));
  EXPECT_THAT(error(std::string(40, '\x91') + "\x01"),
              HasSubstr("nests deeper than 32 levels at byte 33"));
  EXPECT_THAT(error("\xdd\xff\xff\xff\xff"), HasSubstr("declares 4294967295 items"));
  EXPECT_THAT(error("\xdf\x7f\xff\xff\xff\x01"), HasSubstr("declares 2147483647 items"));
  EXPECT_THAT(error("\xdb\xff\xff\xff\xff"
                    "abc"),
              HasSubstr("truncated: 4294967295 bytes needed"));
  EXPECT_THAT(error("\xc1"), HasSubstr("unused tag 0xc1"));
  EXPECT_THAT(error("\x80\x80"), HasSubstr("1 bytes after its MessagePack map"));
  EXPECT_THAT(error("\x80"), HasSubstr("has no amdhsa.version"));
  EXPECT_THAT(error("\x92\x01\x02"), HasSubstr("the metadata is an array, expected a map"));
  EXPECT_THAT(error(bytesOf("\x81\xae"
                            "amdhsa.version\x92\x01\x00")),
              HasSubstr("amdhsa.version is 1.0"));
  const std::string head =
      "\x83\xae"
      "amdhsa.version\x92\x01\x02\xad"
      "amdhsa.target\xa1t\xae"
      "amdhsa.kernels";
  EXPECT_THAT(error(head + "\x91\x81\xa5.name\xa1k"), HasSubstr("kernel 'k' has no .symbol"));
  EXPECT_THAT(error(head + "\x91\x82\xa5.name\xa1k\xa7.symbol\x01"),
              HasSubstr("kernel 'k': .symbol is an integer, expected a string"));
  EXPECT_THAT(error(head + "\x91\x83\xa5.name\xa1k\xa7.symbol\xa1s\xb5.kernarg_segment_size"
                           "\xcf\xff\xff\xff\xff\xff\xff\xff\xff"),
              HasSubstr("is above 2^63"));
  EXPECT_THAT(error(head + "\x91\x83\xa5.name\xa1k\xa7.symbol\xa1s\xb5.kernarg_segment_size\xff"),
              HasSubstr(".kernarg_segment_size is -1, expected a count"));
  EXPECT_THAT(error(head + "\x91\x01"), HasSubstr("amdhsa.kernels[0] is an integer"));
  const std::string named =
      head + "\x91\x83\xa5.name\xa1k\xa7.symbol\xa1s\xb5.kernarg_segment_size";
  EXPECT_THAT(error(named + "\xd0\xfe"), HasSubstr(".kernarg_segment_size is -2,"));
  EXPECT_THAT(error(named + bytesOf("\xd1\xff\x00")), HasSubstr(".kernarg_segment_size is -256,"));
  EXPECT_THAT(error(named + "\xcb\x3f\xf0" + std::string(6, '\0')),
              HasSubstr(".kernarg_segment_size is a float, expected an integer"));
  EXPECT_THAT(error(named + "\xc3"), HasSubstr("is a boolean"));
  EXPECT_THAT(error(named + "\xc4\x02xy"), HasSubstr("is binary data"));
  EXPECT_THAT(error(named + "\xd4\x01x"), HasSubstr("is an extension"));
}

TEST(AmdCodeObject, RejectsWhatIsNotAnElf) {
  absl::StatusOr<AmdCodeObject> object = readAmdCodeObject("not a code object");
  ASSERT_FALSE(object.ok());
  EXPECT_THAT(std::string(object.status().message()), HasSubstr("not an ELF file (17 bytes"));
  std::string noNote = elfWithMetadata("");
  noNote[64 + 8] = 1;  // the note's type: not NT_AMDGPU_METADATA
  object = readAmdCodeObject(noNote);
  ASSERT_FALSE(object.ok());
  EXPECT_THAT(std::string(object.status().message()), HasSubstr("no NT_AMDGPU_METADATA note"));
}

}  // namespace
}  // namespace tilejit
