#include "runtime/backends/hip/code_object.h"

#include <cstring>
#include <limits>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "support/status.h"

namespace tilejit {
namespace {

constexpr uint16_t kElfMachineAmdgpu = 224;   // EM_AMDGPU
constexpr uint32_t kSectionNote = 7;          // SHT_NOTE
constexpr uint32_t kSegmentNote = 4;          // PT_NOTE
constexpr uint32_t kNoteAmdgpuMetadata = 32;  // NT_AMDGPU_METADATA
constexpr size_t kElfHeaderSize = 64;
constexpr int kMaxNesting = 32;  // the metadata nests 4 deep; bounds the decoder's recursion

absl::Status malformed(std::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("AMDGPU code object: ", asAbsl(what)));
}

// Little-endian reads at an offset already checked to lie inside the bytes.
template <typename T>
T readLittleEndian(std::string_view bytes, size_t offset) {
  T value = 0;
  for (size_t i = 0; i < sizeof(T); ++i)
    value |= static_cast<T>(static_cast<unsigned char>(bytes[offset + i])) << (8 * i);
  return value;
}

bool inBounds(std::string_view bytes, uint64_t offset, uint64_t size) {
  return offset <= bytes.size() && size <= bytes.size() - offset;
}

// One decoded MessagePack value; maps keep their (key, value) pairs in order.
struct PackValue {
  enum class Kind { kNil, kBool, kInteger, kFloat, kString, kBinary, kArray, kMap, kExtension };
  Kind kind = Kind::kNil;
  int64_t integer = 0;
  bool integerFits = true;  // false for an unsigned value above INT64_MAX
  double real = 0;
  std::string text;  // string, binary and extension payloads
  std::vector<PackValue> elements;
  std::vector<std::pair<PackValue, PackValue>> entries;
};

const char* kindName(PackValue::Kind kind) {
  static constexpr const char* kNames[] = {"nil",      "a boolean", "an integer",
                                           "a float",  "a string",  "binary data",
                                           "an array", "a map",     "an extension"};
  return kNames[static_cast<int>(kind)];
}

// A bounds-checked MessagePack decoder (https://github.com/msgpack/msgpack/blob/master/spec.md):
// every length is checked against the bytes left before anything is read or reserved.
class PackDecoder {
 public:
  explicit PackDecoder(std::string_view bytes) : bytes_(bytes) {}

  absl::StatusOr<PackValue> decodeDocument() {
    TJ_ASSIGN_OR_RETURN(PackValue value, decode(0));
    if (position_ != bytes_.size())
      return malformed(absl::StrCat("the metadata note has ", bytes_.size() - position_,
                                    " bytes after its MessagePack map (at byte ", position_, " of ",
                                    bytes_.size(), ")"));
    return value;
  }

 private:
  absl::Status truncated(size_t need) const {
    return malformed(absl::StrCat("the metadata's MessagePack is truncated: ", need,
                                  " bytes needed at byte ", position_, " of ", bytes_.size()));
  }

  // An unsigned big-endian number of `width` bytes (1, 2, 4 or 8).
  absl::StatusOr<uint64_t> readBigEndian(int width) {
    if (!inBounds(bytes_, position_, width)) return truncated(width);
    uint64_t value = 0;
    for (int i = 0; i < width; ++i)
      value = (value << 8) | static_cast<unsigned char>(bytes_[position_ + i]);
    position_ += width;
    return value;
  }

  absl::StatusOr<std::string> readBytes(uint64_t size) {
    if (!inBounds(bytes_, position_, size)) return truncated(size);
    std::string text(bytes_.substr(position_, size));
    position_ += size;
    return text;
  }

  // A container of `count` items needs at least one byte per item: a corrupt count fails here
  // instead of reserving gigabytes.
  absl::Status checkCount(uint64_t count, uint64_t bytesPerItem) const {
    if (count > (bytes_.size() - position_) / bytesPerItem)
      return malformed(absl::StrCat("the metadata's MessagePack declares ", count,
                                    " items at byte ", position_, " but only ",
                                    bytes_.size() - position_, " bytes follow"));
    return absl::OkStatus();
  }

  // An array of `count` values, or a map of `count` (key, value) pairs.
  absl::StatusOr<PackValue> decodeContainer(PackValue::Kind kind, uint64_t count, int depth) {
    const bool isMap = kind == PackValue::Kind::kMap;
    TJ_RETURN_IF_ERROR(checkCount(count, isMap ? 2 : 1));
    PackValue value;
    value.kind = kind;
    (isMap ? value.entries.reserve(count) : value.elements.reserve(count));
    for (uint64_t i = 0; i < count; ++i) {
      TJ_ASSIGN_OR_RETURN(PackValue first, decode(depth + 1));
      if (!isMap) {
        value.elements.push_back(std::move(first));
        continue;
      }
      TJ_ASSIGN_OR_RETURN(PackValue second, decode(depth + 1));
      value.entries.emplace_back(std::move(first), std::move(second));
    }
    return value;
  }

  absl::StatusOr<PackValue> payload(PackValue::Kind kind, uint64_t size) {
    PackValue value;
    value.kind = kind;
    TJ_ASSIGN_OR_RETURN(value.text, readBytes(size));
    return value;
  }

  absl::StatusOr<PackValue> extension(uint64_t size) {
    if (!inBounds(bytes_, position_, 1)) return truncated(1);
    ++position_;  // the extension's type byte
    return payload(PackValue::Kind::kExtension, size);
  }

  static PackValue integer(int64_t number) {
    PackValue value;
    value.kind = PackValue::Kind::kInteger;
    value.integer = number;
    return value;
  }

  static PackValue unsignedInteger(uint64_t number) {
    PackValue value = integer(static_cast<int64_t>(number));
    value.integerFits = number <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
    return value;
  }

  absl::StatusOr<PackValue> real(int width) {
    TJ_ASSIGN_OR_RETURN(uint64_t bits, readBigEndian(width));
    PackValue value;
    value.kind = PackValue::Kind::kFloat;
    if (width == 4) {
      float number;
      const auto narrow = static_cast<uint32_t>(bits);
      std::memcpy(&number, &narrow, sizeof(number));
      value.real = number;
    } else {
      std::memcpy(&value.real, &bits, sizeof(value.real));
    }
    return value;
  }

  absl::StatusOr<PackValue> decode(int depth) {
    if (depth > kMaxNesting)
      return malformed(absl::StrCat("the metadata's MessagePack nests deeper than ", kMaxNesting,
                                    " levels at byte ", position_));
    if (!inBounds(bytes_, position_, 1)) return truncated(1);
    const size_t start = position_;
    const auto tag = static_cast<unsigned char>(bytes_[position_++]);
    if (tag <= 0x7f) return integer(tag);
    if (tag >= 0xe0) return integer(static_cast<int8_t>(tag));
    if ((tag & 0xf0) == 0x80) return decodeContainer(PackValue::Kind::kMap, tag & 0x0f, depth);
    if ((tag & 0xf0) == 0x90) return decodeContainer(PackValue::Kind::kArray, tag & 0x0f, depth);
    if ((tag & 0xe0) == 0xa0) return payload(PackValue::Kind::kString, tag & 0x1f);
    if (tag == 0xc0) return PackValue{};
    if (tag == 0xc2 || tag == 0xc3) {
      PackValue value;
      value.kind = PackValue::Kind::kBool;
      value.integer = tag == 0xc3;
      return value;
    }
    if (tag == 0xca || tag == 0xcb) return real(tag == 0xca ? 4 : 8);
    if (tag >= 0xcc && tag <= 0xd3) {  // uint8..uint64, int8..int64
      const int width = 1 << ((tag - 0xcc) & 3);
      TJ_ASSIGN_OR_RETURN(uint64_t bits, readBigEndian(width));
      if (tag <= 0xcf) return unsignedInteger(bits);
      const int unused = 64 - 8 * width;  // sign-extend from `width` bytes
      return integer(static_cast<int64_t>(bits << unused) >> unused);
    }
    if (tag >= 0xd4 && tag <= 0xd8) return extension(uint64_t{1} << (tag - 0xd4));  // fixext
    // Tags followed by a length (or count) of 1, 2 or 4 bytes.
    struct Sized {
      unsigned char tag;
      PackValue::Kind kind;
      int width;
    };
    static constexpr Sized kSized[] = {
        {0xc4, PackValue::Kind::kBinary, 1},    {0xc5, PackValue::Kind::kBinary, 2},
        {0xc6, PackValue::Kind::kBinary, 4},    {0xc7, PackValue::Kind::kExtension, 1},
        {0xc8, PackValue::Kind::kExtension, 2}, {0xc9, PackValue::Kind::kExtension, 4},
        {0xd9, PackValue::Kind::kString, 1},    {0xda, PackValue::Kind::kString, 2},
        {0xdb, PackValue::Kind::kString, 4},    {0xdc, PackValue::Kind::kArray, 2},
        {0xdd, PackValue::Kind::kArray, 4},     {0xde, PackValue::Kind::kMap, 2},
        {0xdf, PackValue::Kind::kMap, 4}};
    for (const Sized& sized : kSized) {
      if (sized.tag != tag) continue;
      TJ_ASSIGN_OR_RETURN(uint64_t length, readBigEndian(sized.width));
      switch (sized.kind) {
        case PackValue::Kind::kArray:
        case PackValue::Kind::kMap:
          return decodeContainer(sized.kind, length, depth);
        case PackValue::Kind::kExtension:
          return extension(length);
        default:
          return payload(sized.kind, length);
      }
    }
    return malformed(absl::StrCat("the metadata's MessagePack has the unused tag 0x",
                                  absl::Hex(tag), " at byte ", start));
  }

  std::string_view bytes_;
  size_t position_ = 0;
};

// Field lookups in a decoded map; `where` names the map in errors ("kernel 'k'").
const PackValue* findField(const PackValue& map, std::string_view key) {
  for (const auto& [name, value] : map.entries)
    if (name.kind == PackValue::Kind::kString && name.text == key) return &value;
  return nullptr;
}

absl::Status wrongKind(std::string_view where, std::string_view key, const PackValue& value,
                       std::string_view expected) {
  return malformed(absl::StrCat(asAbsl(where), ": ", asAbsl(key), " is ", kindName(value.kind),
                                ", expected ", asAbsl(expected)));
}

absl::Status missing(std::string_view where, std::string_view key) {
  return malformed(absl::StrCat(asAbsl(where), " has no ", asAbsl(key)));
}

// A required (or, with `optional`, defaulted to 0) non-negative integer field.
absl::Status readCount(const PackValue& map, std::string_view where, std::string_view key,
                       int64_t& out, bool optional = false) {
  const PackValue* value = findField(map, key);
  if (!value) return optional ? absl::OkStatus() : missing(where, key);
  if (value->kind != PackValue::Kind::kInteger) return wrongKind(where, key, *value, "an integer");
  if (!value->integerFits || value->integer < 0)
    return malformed(
        absl::StrCat(asAbsl(where), ": ", asAbsl(key), " is ",
                     value->integerFits ? absl::StrCat(value->integer) : std::string("above 2^63"),
                     ", expected a count in [0, 2^63)"));
  out = value->integer;
  return absl::OkStatus();
}

absl::Status readText(const PackValue& map, std::string_view where, std::string_view key,
                      std::string& out, bool optional = false) {
  const PackValue* value = findField(map, key);
  if (!value) return optional ? absl::OkStatus() : missing(where, key);
  if (value->kind != PackValue::Kind::kString) return wrongKind(where, key, *value, "a string");
  out = value->text;
  return absl::OkStatus();
}

absl::StatusOr<AmdKernelArgument> readArgument(const PackValue& map, std::string_view kernel,
                                               size_t index) {
  const std::string where = absl::StrCat("kernel '", asAbsl(kernel), "' argument ", index);
  if (map.kind != PackValue::Kind::kMap)
    return malformed(absl::StrCat(where, " is ", kindName(map.kind), ", expected a map"));
  AmdKernelArgument argument;
  TJ_RETURN_IF_ERROR(readText(map, where, ".name", argument.name, /*optional=*/true));
  TJ_RETURN_IF_ERROR(readCount(map, where, ".offset", argument.offset));
  TJ_RETURN_IF_ERROR(readCount(map, where, ".size", argument.size));
  TJ_RETURN_IF_ERROR(readText(map, where, ".value_kind", argument.valueKind));
  return argument;
}

absl::StatusOr<AmdKernelDescriptor> readKernel(const PackValue& map, size_t index) {
  if (map.kind != PackValue::Kind::kMap)
    return malformed(
        absl::StrCat("amdhsa.kernels[", index, "] is ", kindName(map.kind), ", expected a map"));
  AmdKernelDescriptor kernel;
  TJ_RETURN_IF_ERROR(
      readText(map, absl::StrCat("amdhsa.kernels[", index, "]"), ".name", kernel.name));
  const std::string where = absl::StrCat("kernel '", kernel.name, "'");
  TJ_RETURN_IF_ERROR(readText(map, where, ".symbol", kernel.symbol));
  TJ_RETURN_IF_ERROR(readCount(map, where, ".kernarg_segment_size", kernel.kernargSegmentSize));
  TJ_RETURN_IF_ERROR(readCount(map, where, ".kernarg_segment_align", kernel.kernargSegmentAlign));
  TJ_RETURN_IF_ERROR(
      readCount(map, where, ".group_segment_fixed_size", kernel.groupSegmentFixedSize));
  TJ_RETURN_IF_ERROR(
      readCount(map, where, ".private_segment_fixed_size", kernel.privateSegmentFixedSize));
  TJ_RETURN_IF_ERROR(readCount(map, where, ".sgpr_count", kernel.sgprCount));
  TJ_RETURN_IF_ERROR(readCount(map, where, ".vgpr_count", kernel.vgprCount));
  // AGPRs exist on gfx90a/gfx94x/gfx950 only; spill counts are optional in AMDGPUUsage.
  TJ_RETURN_IF_ERROR(readCount(map, where, ".agpr_count", kernel.agprCount, true));
  TJ_RETURN_IF_ERROR(readCount(map, where, ".sgpr_spill_count", kernel.sgprSpillCount, true));
  TJ_RETURN_IF_ERROR(readCount(map, where, ".vgpr_spill_count", kernel.vgprSpillCount, true));
  TJ_RETURN_IF_ERROR(readCount(map, where, ".wavefront_size", kernel.wavefrontSize));
  TJ_RETURN_IF_ERROR(
      readCount(map, where, ".max_flat_workgroup_size", kernel.maxFlatWorkgroupSize));
  if (const PackValue* args = findField(map, ".args")) {
    if (args->kind != PackValue::Kind::kArray) return wrongKind(where, ".args", *args, "an array");
    for (size_t i = 0; i < args->elements.size(); ++i) {
      TJ_ASSIGN_OR_RETURN(AmdKernelArgument argument,
                          readArgument(args->elements[i], kernel.name, i));
      kernel.arguments.push_back(std::move(argument));
    }
  }
  return kernel;
}

absl::StatusOr<AmdCodeObject> readMetadata(std::string_view pack, int64_t codeObjectVersion) {
  TJ_ASSIGN_OR_RETURN(PackValue root, PackDecoder(pack).decodeDocument());
  if (root.kind != PackValue::Kind::kMap)
    return malformed(absl::StrCat("the metadata is ", kindName(root.kind), ", expected a map"));
  AmdCodeObject object;
  object.codeObjectVersion = codeObjectVersion;
  const PackValue* version = findField(root, "amdhsa.version");
  if (!version) return missing("the metadata", "amdhsa.version");
  if (version->kind != PackValue::Kind::kArray || version->elements.size() != 2 ||
      version->elements[0].kind != PackValue::Kind::kInteger ||
      version->elements[1].kind != PackValue::Kind::kInteger)
    return malformed("the metadata's amdhsa.version is not a [major, minor] pair of integers");
  const int64_t major = version->elements[0].integer, minor = version->elements[1].integer;
  // Metadata 1.0 is code object v3 (no amdhsa.target); v4 writes 1.1, v5 and v6 write 1.2.
  if (major != 1 || minor < 1)
    return malformed(absl::StrCat("amdhsa.version is ", major, ".", minor,
                                  ", expected 1.1 or later (code object v4, v5, v6)"));
  TJ_RETURN_IF_ERROR(readText(root, "the metadata", "amdhsa.target", object.target));
  const PackValue* kernels = findField(root, "amdhsa.kernels");
  if (!kernels) return missing("the metadata", "amdhsa.kernels");
  if (kernels->kind != PackValue::Kind::kArray)
    return wrongKind("the metadata", "amdhsa.kernels", *kernels, "an array");
  for (size_t i = 0; i < kernels->elements.size(); ++i) {
    TJ_ASSIGN_OR_RETURN(AmdKernelDescriptor kernel, readKernel(kernels->elements[i], i));
    object.kernels.push_back(std::move(kernel));
  }
  return object;
}

// A note region [offset, offset + size) of the file: the AMDGPU metadata note's descriptor, or
// nullopt when the region has none. Notes are 4-byte aligned in AMDGPU code objects.
absl::StatusOr<std::optional<std::string_view>> findMetadataNote(std::string_view elf,
                                                                 uint64_t offset, uint64_t size,
                                                                 std::string_view region) {
  if (!inBounds(elf, offset, size))
    return malformed(absl::StrCat(asAbsl(region), " (bytes ", offset, "..", offset + size,
                                  ") lies outside the file of ", elf.size(), " bytes"));
  std::string_view notes = elf.substr(offset, size);
  const auto align4 = [](uint64_t n) { return (n + 3) & ~uint64_t{3}; };
  uint64_t at = 0;
  while (at < notes.size()) {
    if (!inBounds(notes, at, 12))
      return malformed(absl::StrCat(asAbsl(region), " ends inside a note header at byte ", at));
    const uint64_t nameSize = readLittleEndian<uint32_t>(notes, at);
    const uint64_t descSize = readLittleEndian<uint32_t>(notes, at + 4);
    const uint32_t type = readLittleEndian<uint32_t>(notes, at + 8);
    const uint64_t nameAt = at + 12, descAt = nameAt + align4(nameSize);
    if (!inBounds(notes, nameAt, align4(nameSize)) || !inBounds(notes, descAt, descSize))
      return malformed(absl::StrCat(asAbsl(region), ": a note at byte ", at, " (name ", nameSize,
                                    " bytes, descriptor ", descSize,
                                    " bytes) runs past its end of ", notes.size(), " bytes"));
    std::string_view name = notes.substr(nameAt, nameSize);
    if (!name.empty() && name.back() == '\0') name.remove_suffix(1);
    if (name == "AMDGPU" && type == kNoteAmdgpuMetadata) return notes.substr(descAt, descSize);
    at = descAt + align4(descSize);
  }
  return std::nullopt;
}

// Where an ELF header table's entries keep what scanNotes reads.
struct HeaderTable {
  const char* name;   // "section header"
  const char* entry;  // "note section", for errors
  uint64_t offset;
  uint16_t count, entrySize, minimumEntrySize;
  uint64_t typeAt;
  uint32_t noteType;  // SHT_NOTE or PT_NOTE
  uint64_t fileOffsetAt, fileSizeAt;
};

// The metadata note in the first of the table's note entries that has one.
absl::StatusOr<std::optional<std::string_view>> scanNotes(std::string_view elf,
                                                          const HeaderTable& table) {
  if (table.count == 0) return std::nullopt;
  if (table.entrySize < table.minimumEntrySize ||
      !inBounds(elf, table.offset, uint64_t{table.count} * table.entrySize))
    return malformed(absl::StrCat("the ", table.name, " table (", table.count, " entries of ",
                                  table.entrySize, " bytes at ", table.offset,
                                  ") lies outside the file of ", elf.size(), " bytes"));
  for (uint16_t i = 0; i < table.count; ++i) {
    const uint64_t entry = table.offset + uint64_t{i} * table.entrySize;
    if (readLittleEndian<uint32_t>(elf, entry + table.typeAt) != table.noteType) continue;
    TJ_ASSIGN_OR_RETURN(
        std::optional<std::string_view> note,
        findMetadataNote(elf, readLittleEndian<uint64_t>(elf, entry + table.fileOffsetAt),
                         readLittleEndian<uint64_t>(elf, entry + table.fileSizeAt),
                         absl::StrCat(table.entry, " ", i)));
    if (note) return note;
  }
  return std::nullopt;
}

}  // namespace

absl::StatusOr<AmdCodeObject> readAmdCodeObject(std::string_view elf) {
  if (elf.size() < kElfHeaderSize || elf.substr(0, 4) !=
                                         "\x7f"
                                         "ELF")
    return malformed(absl::StrCat("not an ELF file (", elf.size(), " bytes, no ELF magic)"));
  if (elf[4] != 2 || elf[5] != 1)
    return malformed(absl::StrCat("ELF class ", static_cast<int>(elf[4]), " data ",
                                  static_cast<int>(elf[5]),
                                  ", expected ELF64 little-endian (2, 1)"));
  const uint16_t machine = readLittleEndian<uint16_t>(elf, 18);
  if (machine != kElfMachineAmdgpu)
    return malformed(
        absl::StrCat("e_machine is ", machine, ", expected EM_AMDGPU (", kElfMachineAmdgpu, ")"));
  // EI_OSABI ELFOSABI_AMDGPU_HSA (64); EI_ABIVERSION 2, 3, 4 are code object v4, v5, v6.
  if (static_cast<unsigned char>(elf[7]) != 64)
    return malformed(absl::StrCat("EI_OSABI is ",
                                  static_cast<int>(static_cast<unsigned char>(elf[7])),
                                  ", expected ELFOSABI_AMDGPU_HSA (64)"));
  const int abiVersion = static_cast<unsigned char>(elf[8]);
  if (abiVersion < 2 || abiVersion > 4)
    return malformed(absl::StrCat("EI_ABIVERSION is ", abiVersion,
                                  ", expected 2, 3 or 4 (code object v4, v5, v6)"));
  const uint64_t programOffset = readLittleEndian<uint64_t>(elf, 32);
  const uint64_t sectionOffset = readLittleEndian<uint64_t>(elf, 40);
  const uint16_t programEntrySize = readLittleEndian<uint16_t>(elf, 54);
  const uint16_t programCount = readLittleEndian<uint16_t>(elf, 56);
  const uint16_t sectionEntrySize = readLittleEndian<uint16_t>(elf, 58);
  const uint16_t sectionCount = readLittleEndian<uint16_t>(elf, 60);

  // The section table names the note section; loaders use the PT_NOTE segment, so a stripped
  // section table still reads.
  TJ_ASSIGN_OR_RETURN(std::optional<std::string_view> pack,
                      scanNotes(elf, {"section header", "note section", sectionOffset, sectionCount,
                                      sectionEntrySize, 64, 4, kSectionNote, 24, 32}));
  if (!pack) {
    TJ_ASSIGN_OR_RETURN(
        pack, scanNotes(elf, {"program header", "note segment", programOffset, programCount,
                              programEntrySize, 56, 0, kSegmentNote, 8, 32}));
  }
  if (!pack)
    return malformed(
        "no NT_AMDGPU_METADATA note (owner \"AMDGPU\", type 32): code object v2/v3 "
        "or not a compiled kernel");
  return readMetadata(*pack, abiVersion + 2);
}

}  // namespace tilejit
