#include "runtime/bundle.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cache/sha256.h"
#include "support/status.h"

namespace tilejit {
namespace {

constexpr size_t kMagicBytes = 8;
constexpr size_t kDigestBytes = 32;
constexpr size_t kKeyHexDigits = 64;

// Same rule as the cache's isWellFormedCacheKey; repeated here because the runtime must not
// link the cache library.
bool isHexKey(std::string_view key) {
  if (key.size() != kKeyHexDigits) return false;
  for (char c : key)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

std::string errnoText(int error) { return std::strerror(error); }

void putU32(std::string& out, uint32_t value) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}
void putU64(std::string& out, uint64_t value) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}
void putDigest(std::string& out, const Sha256Digest& digest) {
  out.append(reinterpret_cast<const char*>(digest.data()), digest.size());
}

Sha256Digest entryDigest(std::string_view metadataJson, std::string_view binary) {
  Sha256 hasher;
  hasher.update(metadataJson);
  hasher.update(binary);
  return hasher.finish();
}

// Bounds-checked cursor over the bundle's bytes. Every read names the field it wanted so a
// truncated or damaged file says where it broke.
class Reader {
 public:
  Reader(std::string_view bytes, std::string name) : bytes_(bytes), name_(std::move(name)) {}

  size_t offset() const { return offset_; }
  size_t remaining() const { return bytes_.size() - offset_; }

  absl::StatusOr<uint64_t> readInt(size_t width, const std::string& field) {
    if (remaining() < width) return truncated(field);
    uint64_t value = 0;
    for (size_t i = 0; i < width; ++i)
      value |= uint64_t(static_cast<uint8_t>(bytes_[offset_ + i])) << (8 * i);
    offset_ += width;
    return value;
  }
  absl::StatusOr<std::string_view> readBytes(uint64_t size, const std::string& field) {
    if (remaining() < size)
      return absl::DataLossError(absl::StrCat(name_, ": ", field, " claims ", size,
                                              " bytes but only ", remaining(),
                                              " remain at offset ", offset_));
    std::string_view view = bytes_.substr(offset_, size);
    offset_ += size;
    return view;
  }
  // A length-prefixed field (u32 or u64 length).
  absl::StatusOr<std::string_view> readSized(size_t lengthWidth, const std::string& field) {
    TJ_ASSIGN_OR_RETURN(uint64_t size, readInt(lengthWidth, field + " length"));
    return readBytes(size, field);
  }

 private:
  absl::Status truncated(const std::string& field) const {
    return absl::DataLossError(
        absl::StrCat(name_, ": truncated at offset ", offset_, " while reading ", field));
  }
  std::string_view bytes_;
  std::string name_;
  size_t offset_ = 0;
};

// Closes the descriptor and removes the temporary file unless the rename succeeded.
class TempFile {
 public:
  TempFile(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  ~TempFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!published_) ::unlink(path_.c_str());
  }
  int fd() const { return fd_; }
  const std::string& path() const { return path_; }
  absl::Status closeFd() {
    int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0)
      return absl::InternalError(absl::StrCat("close ", path_, ": ", errnoText(errno)));
    return absl::OkStatus();
  }
  void markPublished() { published_ = true; }

 private:
  int fd_;
  std::string path_;
  bool published_ = false;
};

}  // namespace

std::string formatBundleParameters(const std::map<std::string, std::string>& parameters) {
  std::string text;
  for (const auto& [name, value] : parameters) absl::StrAppend(&text, name, "=", value, "\n");
  return text;
}

absl::StatusOr<std::map<std::string, std::string>> parseBundleParameters(std::string_view text) {
  std::map<std::string, std::string> parameters;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos)
      return absl::DataLossError("parameters text does not end in a newline");
    std::string_view line = text.substr(start, end - start);
    size_t eq = line.find('=');
    if (eq == std::string_view::npos || eq == 0)
      return absl::DataLossError(
          absl::StrCat("parameter line '", std::string(line), "' is not name=value"));
    parameters[std::string(line.substr(0, eq))] = std::string(line.substr(eq + 1));
    start = end + 1;
  }
  return parameters;
}

// --- writer -----------------------------------------------------------------------------

bool BundleWriter::contains(std::string_view key) const {
  for (const BundleEntry& entry : entries_)
    if (entry.key == key) return true;
  return false;
}

absl::Status BundleWriter::add(BundleEntry entry) {
  if (!isHexKey(entry.key))
    return absl::InvalidArgumentError(
        absl::StrCat("bundle entry key '", entry.key, "' is not 64 lowercase hex digits"));
  if (entry.templateName.empty() || entry.target.empty())
    return absl::InvalidArgumentError(
        absl::StrCat("bundle entry ", entry.key, " needs a template name and a target"));
  for (const auto& [name, value] : entry.parameters) {
    if (name.empty() || name.find_first_of("=\n") != std::string::npos ||
        value.find('\n') != std::string::npos)
      return absl::InvalidArgumentError(absl::StrCat("bundle entry ", entry.key, ": parameter '",
                                                     name, "' cannot be stored as a line"));
  }
  absl::StatusOr<KernelMetadata> metadata = parseMetadata(entry.metadataJson);
  if (!metadata.ok())
    return absl::InvalidArgumentError(absl::StrCat("bundle entry ", entry.key,
                                                   ": metadata does not parse: ",
                                                   std::string(metadata.status().message())));
  if (contains(entry.key))
    return absl::AlreadyExistsError(absl::StrCat("bundle already holds key ", entry.key));
  entry.metadata = *std::move(metadata);
  entries_.push_back(std::move(entry));
  return absl::OkStatus();
}

std::string BundleWriter::encode() const {
  std::string out(kBundleMagic, kMagicBytes);
  putU32(out, kBundleFormatVersion);
  putU32(out, static_cast<uint32_t>(entries_.size()));
  for (const BundleEntry& entry : entries_) {
    std::string parameters = formatBundleParameters(entry.parameters);
    for (std::string_view field : {std::string_view(entry.key), std::string_view(entry.templateName),
                                   std::string_view(entry.target), std::string_view(parameters)}) {
      putU32(out, static_cast<uint32_t>(field.size()));
      out.append(field);
    }
    putU64(out, entry.metadataJson.size());
    out.append(entry.metadataJson);
    putU64(out, entry.binary.size());
    out.append(entry.binary);
    putDigest(out, entryDigest(entry.metadataJson, entry.binary));
  }
  putDigest(out, sha256(out));
  return out;
}

absl::Status BundleWriter::write(const std::string& path) const {
  std::string bytes = encode();
  // Random suffix: two writers of the same bundle must not share a temporary file.
  std::random_device random;
  std::string tempPath = absl::StrCat(path, ".tmp.", ::getpid(), ".", random());
  int fd = ::open(tempPath.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0)
    return absl::InternalError(absl::StrCat("cannot create ", tempPath, ": ", errnoText(errno)));
  TempFile temp(fd, tempPath);
  size_t written = 0;
  while (written < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      return absl::InternalError(absl::StrCat("write ", tempPath, ": ", errnoText(errno)));
    written += static_cast<size_t>(n);
  }
  // fsync before rename: otherwise a crash can publish a name pointing at empty data.
  if (::fsync(fd) != 0)
    return absl::InternalError(absl::StrCat("fsync ", tempPath, ": ", errnoText(errno)));
  TJ_RETURN_IF_ERROR(temp.closeFd());
  if (::rename(tempPath.c_str(), path.c_str()) != 0)
    return absl::InternalError(
        absl::StrCat("rename ", tempPath, " -> ", path, ": ", errnoText(errno)));
  temp.markPublished();
  return absl::OkStatus();
}

// --- reader -----------------------------------------------------------------------------

absl::StatusOr<Bundle> Bundle::open(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot open bundle ", path));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (!in && !in.eof()) return absl::InternalError(absl::StrCat("cannot read bundle ", path));
  return decode(buffer.str(), path);
}

absl::StatusOr<Bundle> Bundle::decode(std::string_view bytes, const std::string& name) {
  if (bytes.size() < kMagicBytes + 8 + kDigestBytes)
    return absl::DataLossError(
        absl::StrCat(name, ": ", bytes.size(), " bytes is too short to be a bundle"));
  if (bytes.substr(0, kMagicBytes) != std::string_view(kBundleMagic, kMagicBytes))
    return absl::DataLossError(absl::StrCat(name, ": not a tilejit bundle (bad magic)"));
  std::string_view body = bytes.substr(0, bytes.size() - kDigestBytes);
  Reader reader(body, name);
  TJ_RETURN_IF_ERROR(reader.readBytes(kMagicBytes, "magic").status());
  TJ_ASSIGN_OR_RETURN(uint64_t version, reader.readInt(4, "format version"));
  if (version != kBundleFormatVersion)
    return absl::DataLossError(absl::StrCat(name, ": format version ", version,
                                            " is not supported (this runtime reads ",
                                            kBundleFormatVersion, ")"));
  TJ_ASSIGN_OR_RETURN(uint64_t count, reader.readInt(4, "entry count"));

  Bundle bundle;
  for (uint64_t i = 0; i < count; ++i) {
    std::string where = absl::StrCat("entry ", i);
    BundleEntry entry;
    TJ_ASSIGN_OR_RETURN(std::string_view key, reader.readSized(4, where + " key"));
    entry.key = std::string(key);
    if (!isHexKey(entry.key))
      return absl::DataLossError(
          absl::StrCat(name, ": ", where, ": key is not 64 lowercase hex digits"));
    TJ_ASSIGN_OR_RETURN(std::string_view templ, reader.readSized(4, where + " template name"));
    TJ_ASSIGN_OR_RETURN(std::string_view target, reader.readSized(4, where + " target"));
    entry.templateName = std::string(templ);
    entry.target = std::string(target);
    // From here on the entry is named by what it is, not only by its index.
    where = absl::StrCat("entry ", i, " (", entry.templateName, " for ", entry.target, ", key ",
                         entry.key.substr(0, 16), "...)");
    TJ_ASSIGN_OR_RETURN(std::string_view parameters, reader.readSized(4, where + " parameters"));
    absl::StatusOr<std::map<std::string, std::string>> parsed = parseBundleParameters(parameters);
    if (!parsed.ok())
      return absl::DataLossError(absl::StrCat(name, ": ", where, ": ",
                                              std::string(parsed.status().message())));
    entry.parameters = *std::move(parsed);
    TJ_ASSIGN_OR_RETURN(std::string_view metadataJson, reader.readSized(8, where + " metadata"));
    TJ_ASSIGN_OR_RETURN(std::string_view binary, reader.readSized(8, where + " binary"));
    TJ_ASSIGN_OR_RETURN(std::string_view stored, reader.readBytes(kDigestBytes, where + " checksum"));
    Sha256Digest digest = entryDigest(metadataJson, binary);
    if (stored != std::string_view(reinterpret_cast<const char*>(digest.data()), digest.size()))
      return absl::DataLossError(absl::StrCat(
          name, ": ", where, ": checksum mismatch: the metadata or code object is corrupt"));
    entry.metadataJson = std::string(metadataJson);
    entry.binary = std::string(binary);
    absl::StatusOr<KernelMetadata> metadata = parseMetadata(entry.metadataJson);
    if (!metadata.ok())
      return absl::DataLossError(absl::StrCat(name, ": ", where, ": metadata does not parse: ",
                                              std::string(metadata.status().message())));
    entry.metadata = *std::move(metadata);
    bundle.entries_.push_back(std::move(entry));
  }
  if (reader.remaining() != 0)
    return absl::DataLossError(absl::StrCat(name, ": ", reader.remaining(),
                                            " unexpected bytes after the last entry"));
  // Checked last so that damage inside an entry is reported by that entry's name above; this
  // catches what entry checksums do not cover (keys, names, parameters, counts).
  Sha256Digest whole = sha256(body);
  if (bytes.substr(body.size()) !=
      std::string_view(reinterpret_cast<const char*>(whole.data()), whole.size()))
    return absl::DataLossError(absl::StrCat(
        name, ": whole-file checksum mismatch: the index (keys, names, parameters) is corrupt"));
  return bundle;
}

absl::StatusOr<const BundleEntry*> Bundle::find(
    std::string_view templateName, std::string_view target,
    const std::map<std::string, std::string>& parameters) const {
  std::vector<const BundleEntry*> matches;
  for (const BundleEntry& entry : entries_) {
    if (entry.templateName != templateName || entry.target != target) continue;
    bool all = true;
    for (const auto& [name, value] : parameters) {
      auto it = entry.parameters.find(name);
      if (it == entry.parameters.end() || it->second != value) {
        all = false;
        break;
      }
    }
    if (all) matches.push_back(&entry);
  }
  std::string request = absl::StrCat(std::string(templateName), " for ", std::string(target));
  if (!parameters.empty()) {
    std::vector<std::string> pairs;
    for (const auto& [name, value] : parameters) pairs.push_back(absl::StrCat(name, "=", value));
    absl::StrAppend(&request, " with ", absl::StrJoin(pairs, ", "));
  }
  if (matches.empty())
    return absl::NotFoundError(absl::StrCat("the bundle holds no kernel ", request));
  if (matches.size() > 1) {
    // Name the parameters whose values differ between the matches: binding them decides.
    std::vector<std::string> differing;
    for (const auto& [name, value] : matches[0]->parameters) {
      for (const BundleEntry* other : matches) {
        auto it = other->parameters.find(name);
        if (it == other->parameters.end() || it->second != value) {
          differing.push_back(name);
          break;
        }
      }
    }
    return absl::FailedPreconditionError(absl::StrCat(
        matches.size(), " bundle entries match ", request,
        "; bind more parameters to choose one (they differ in: ", absl::StrJoin(differing, ", "),
        ")"));
  }
  return matches[0];
}

}  // namespace tilejit
