#include "service/protocol.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "support/status.h"

namespace tilejit::service {
namespace {

void putInteger(std::string& out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(char((value >> (8 * i)) & 0xff));
}

void putString(std::string& out, std::string_view text) {
  putInteger(out, text.size(), 4);
  out.append(text);
}

// Reads fields in order; every read checks the bytes left, so a truncated or lying payload is
// an InvalidArgument naming the field, never a read past the buffer.
class PayloadReader {
 public:
  PayloadReader(std::string_view bytes, const char* what) : bytes_(bytes), what_(what) {}

  absl::StatusOr<uint64_t> integer(int width, const char* field) {
    if (bytes_.size() < size_t(width)) return truncated(field);
    uint64_t value = 0;
    for (int i = 0; i < width; ++i) value |= uint64_t(uint8_t(bytes_[size_t(i)])) << (8 * i);
    bytes_.remove_prefix(size_t(width));
    return value;
  }
  absl::StatusOr<std::string> string(const char* field) {
    absl::StatusOr<uint64_t> length = integer(4, field);
    if (!length.ok()) return length.status();
    if (bytes_.size() < *length)
      return absl::InvalidArgumentError(absl::StrCat(what_, ": field '", field, "' claims ",
                                                     *length, " bytes but ", bytes_.size(),
                                                     " remain in the payload"));
    std::string value(bytes_.substr(0, size_t(*length)));
    bytes_.remove_prefix(size_t(*length));
    return value;
  }
  absl::Status finish() const {
    if (bytes_.empty()) return absl::OkStatus();
    return absl::InvalidArgumentError(
        absl::StrCat(what_, ": ", bytes_.size(), " unexpected bytes after the last field"));
  }

 private:
  absl::Status truncated(const char* field) const {
    return absl::InvalidArgumentError(
        absl::StrCat(what_, ": payload ends inside field '", field, "'"));
  }
  std::string_view bytes_;
  const char* what_;
};

}  // namespace

const char* servedTierName(ServedTier tier) {
  switch (tier) {
    case ServedTier::kMemory: return "memory";
    case ServedTier::kDisk: return "disk";
    case ServedTier::kFleet: return "redis";
    case ServedTier::kCompiled: return "compile";
  }
  return "unknown";
}

std::string encodeFrame(FrameType type, std::string_view payload, uint16_t version) {
  std::string out(kFrameMagic, sizeof(kFrameMagic));
  putInteger(out, version, 2);
  putInteger(out, uint16_t(type), 2);
  putInteger(out, payload.size(), 4);
  out.append(payload);
  return out;
}

absl::StatusOr<FrameHeader> decodeFrameHeader(std::string_view bytes) {
  if (bytes.size() < kFrameHeaderBytes || std::memcmp(bytes.data(), kFrameMagic, 4) != 0)
    return absl::InvalidArgumentError(
        "malformed frame: it does not begin with the magic \"TJSV\" (is this a tilejitd "
        "client?)");
  PayloadReader reader(bytes.substr(4, kFrameHeaderBytes - 4), "frame header");
  FrameHeader header;
  TJ_ASSIGN_OR_RETURN(auto version, reader.integer(2, "version"));
  TJ_ASSIGN_OR_RETURN(auto type, reader.integer(2, "type"));
  TJ_ASSIGN_OR_RETURN(auto length, reader.integer(4, "payload length"));
  header.version = uint16_t(version);
  header.type = uint16_t(type);
  header.payloadBytes = uint32_t(length);
  return header;
}

std::string encodeCompileRequest(const CompileRequest& request) {
  std::string out;
  putInteger(out, uint8_t(request.kind), 1);
  putString(out, request.templateRef);
  putString(out, request.sourceName);
  putString(out, request.target);
  putInteger(out, request.parameters.size(), 4);
  for (const auto& [name, value] : request.parameters) {
    putString(out, name);
    putString(out, value);
  }
  return out;
}

absl::StatusOr<CompileRequest> decodeCompileRequest(std::string_view payload) {
  PayloadReader reader(payload, "compile request");
  CompileRequest request;
  TJ_ASSIGN_OR_RETURN(auto kind, reader.integer(1, "template kind"));
  if (kind > uint8_t(TemplateKind::kSourceText))
    return absl::InvalidArgumentError(absl::StrCat(
        "compile request: template kind ", kind, " is neither 0 (shipped name) nor 1 (source)"));
  request.kind = TemplateKind(kind);
  TJ_ASSIGN_OR_RETURN(auto templateRef, reader.string("template"));
  TJ_ASSIGN_OR_RETURN(auto sourceName, reader.string("source name"));
  TJ_ASSIGN_OR_RETURN(auto target, reader.string("target"));
  TJ_ASSIGN_OR_RETURN(auto count, reader.integer(4, "parameter count"));
  // Each parameter takes at least 8 bytes, so a count past that is a lie told to make us
  // reserve memory.
  if (count > payload.size() / 8)
    return absl::InvalidArgumentError(absl::StrCat("compile request: parameter count ", count,
                                                   " exceeds what the payload can hold"));
  for (uint64_t i = 0; i < count; ++i) {
    TJ_ASSIGN_OR_RETURN(auto name, reader.string("parameter name"));
    TJ_ASSIGN_OR_RETURN(auto value, reader.string("parameter value"));
    request.parameters.emplace_back(std::move(name), std::move(value));
  }
  TJ_RETURN_IF_ERROR(reader.finish());
  if (templateRef.empty())
    return absl::InvalidArgumentError("compile request: the template is empty");
  if (target.empty()) return absl::InvalidArgumentError("compile request: the target is empty");
  request.templateRef = std::move(templateRef);
  request.sourceName = std::move(sourceName);
  request.target = std::move(target);
  return request;
}

std::string encodeCompileReply(const CompileReply& reply) {
  std::string out;
  putString(out, reply.key);
  putInteger(out, uint8_t(reply.tier), 1);
  uint64_t seconds = 0;
  std::memcpy(&seconds, &reply.serverSeconds, sizeof(seconds));
  putInteger(out, seconds, 8);
  putString(out, reply.entry);
  return out;
}

absl::StatusOr<CompileReply> decodeCompileReply(std::string_view payload) {
  PayloadReader reader(payload, "compile reply");
  CompileReply reply;
  TJ_ASSIGN_OR_RETURN(auto key, reader.string("key"));
  TJ_ASSIGN_OR_RETURN(auto tier, reader.integer(1, "tier"));
  if (tier > uint8_t(ServedTier::kCompiled))
    return absl::InvalidArgumentError(absl::StrCat("compile reply: unknown tier ", tier));
  TJ_ASSIGN_OR_RETURN(auto seconds, reader.integer(8, "server seconds"));
  TJ_ASSIGN_OR_RETURN(auto entry, reader.string("entry"));
  TJ_RETURN_IF_ERROR(reader.finish());
  reply.key = std::move(key);
  reply.tier = ServedTier(tier);
  std::memcpy(&reply.serverSeconds, &seconds, sizeof(seconds));
  reply.entry = std::move(entry);
  return reply;
}

std::string encodeText(std::string_view text) {
  std::string out;
  putString(out, text);
  return out;
}

absl::StatusOr<std::string> decodeText(std::string_view payload) {
  PayloadReader reader(payload, "text reply");
  TJ_ASSIGN_OR_RETURN(auto text, reader.string("text"));
  TJ_RETURN_IF_ERROR(reader.finish());
  return text;
}

std::string encodeError(const absl::Status& status) {
  std::string out;
  putInteger(out, uint32_t(status.code()), 4);
  putString(out, std::string(status.message()));
  return out;
}

absl::Status decodeError(std::string_view payload) {
  PayloadReader reader(payload, "error reply");
  absl::StatusOr<uint64_t> code = reader.integer(4, "code");
  if (!code.ok()) return code.status();
  absl::StatusOr<std::string> message = reader.string("message");
  if (!message.ok()) return message.status();
  if (*code == 0 || *code > uint64_t(absl::StatusCode::kUnauthenticated))
    return absl::UnknownError(*message);  // a code this build does not know keeps its text
  return absl::Status(absl::StatusCode(*code), *message);
}

}  // namespace tilejit::service
